import { defineConfig } from 'vitest/config';

// The end-to-end story: a real `cordon serve`, real dig, headless Chromium. Run after the console build.
export default defineConfig({
  test: {
    include: ['e2e/**/*.e2e.ts'],
    testTimeout: 300_000,
    hookTimeout: 300_000,
    pool: 'forks',
    fileParallelism: false,
  },
});
