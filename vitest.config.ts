import { defineConfig } from 'vitest/config';

// Unit and integration tests of every workspace; the browser story lives in e2e/ with its own config.
export default defineConfig({
  test: {
    include: ['packages/*/{src,test}/**/*.test.ts', 'apps/*/{src,test}/**/*.test.{ts,tsx}', 'test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
