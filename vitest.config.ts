import { defineConfig } from 'vitest/config';

// Unit and integration tests of every workspace; the browser story lives in e2e/ with its own config.
// How the suite is kept fast (template databases, the test password-hash cost, shared workers):
// docs/contributing.md "Running the tests".
const INCLUDE = ['packages/*/{src,test}/**/*.test.ts', 'apps/*/{src,test}/**/*.test.{ts,tsx}', 'test/**/*.test.ts'];

/**
 * Files that need a worker of their own: they read the worker's heap (load-memory), replace a module
 * (vi.mock) or a global for the whole file (vi.stubGlobal in beforeAll). Every other file runs in a
 * worker that earlier files of the run have used, so the modules they share are loaded once per
 * worker, not once per file (≈ 300 s of loading in a run before); a file must leave process-wide
 * state (environment variables, fake timers, the outbound allowance) as it found it.
 */
const ISOLATED = [
  'apps/resolver/test/load-memory.test.ts',
  'apps/console/src/app/Toasts.test.tsx',
  'apps/console/src/features/logstreams/LogStreamParts.test.tsx',
  'apps/console/src/features/webhooks/WebhookParts.test.tsx',
];

/**
 * Files whose assertions are latencies of a server under a load they make themselves (p99 of DNS
 * answers during a flood or a storm of list changes, another tenant's API calls during heavy history
 * searches): they run after the others, one at a time, so the machine's other work is not what they
 * measure. With three files beside them one missed its bound by 1% of its samples; the heavy-search
 * file, beside them, saw 336 ms profile calls before its searches began and missed its bound in CI.
 */
const TIMED = [
  'apps/cli/test/noisy-neighbour-dns.test.ts',
  'apps/cli/test/list-storm-dns.test.ts',
  'apps/api/src/modules/history/heavy-search.test.ts',
];

/** What the projects share (the root's global setup runs once for all of them, so it is not here). */
const COMMON = {
  testTimeout: 30_000,
  hookTimeout: 60_000,
  pool: 'forks',
  // argon2 at its least cost in tests (passwordHashCost; production's is pinned by passwords.test.ts).
  env: { CORDON_TEST_PASSWORD_HASH_COST: 'low' },
} as const;

export default defineConfig({
  test: {
    // Vitest's default is one worker fewer than the cores, a single one on CI's two. Much test time
    // waits on PostgreSQL, spawned servers and sockets: with three workers the cores were busy ≈ 72%
    // of the shared files' time, with four ≈ 80%, and the run took 253 -> 215 s (five: 211 s;
    // docs/contributing.md "Running the tests"; VITEST_MAX_WORKERS overrides).
    maxWorkers: 4,
    // Migrates the template databases once per run; each test database is a copy (createTestDatabase).
    // Names the run's `cordon` bundle, which the tests that spawn the command build once and share.
    globalSetup: ['packages/db/src/testing-setup.ts', 'test/setup/cli-bundle.ts'],
    projects: [
      { test: { ...COMMON, name: 'shared', include: INCLUDE, exclude: [...ISOLATED, ...TIMED], isolate: false } },
      { test: { ...COMMON, name: 'isolated', include: ISOLATED, isolate: true } },
      {
        test: { ...COMMON, name: 'timed', include: TIMED, isolate: true, maxWorkers: 1, sequence: { groupOrder: 1 } },
      },
    ],
  },
});
