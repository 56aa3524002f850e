import { defineConfig } from 'vitest/config';

// Unit and integration tests of every workspace; the browser story lives in e2e/ with its own config.
// How the suite is kept fast (template databases, the test password-hash cost, workers):
// docs/contributing.md "Running the tests".
export default defineConfig({
  test: {
    include: ['packages/*/{src,test}/**/*.test.ts', 'apps/*/{src,test}/**/*.test.{ts,tsx}', 'test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Vitest's default is one worker fewer than the cores, a single one on CI's two. Most test time
    // waits on PostgreSQL, spawned servers and sockets, so two run side by side (VITEST_MAX_WORKERS
    // overrides).
    maxWorkers: 2,
    // Migrates the template databases once per run; each test database is a copy (createTestDatabase).
    // Names the run's `cordon` bundle, which the tests that spawn the command build once and share.
    globalSetup: ['packages/db/src/testing-setup.ts', 'test/setup/cli-bundle.ts'],
    // argon2 at its least cost in tests (passwordHashCost; production's is pinned by passwords.test.ts).
    env: { CORDON_TEST_PASSWORD_HASH_COST: 'low' },
  },
});
