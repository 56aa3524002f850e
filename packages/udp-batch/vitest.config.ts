import { defineConfig } from 'vitest/config';

// The addon's own tests alone, as test/sanitize.sh runs them against its ASan+UBSan build: none of
// the root config's global setups (template databases, the `cordon` test bundle), which these tests
// do not use and which would run under libasan, needing better-sqlite3 built (.ci/run builds it
// beside the first phase of npm test, while this script runs).
export default defineConfig({
  // The root's timeout: under libasan, at a low priority beside the first phase, a test that starts
  // a child node took over Vitest's 5 s default once.
  test: { include: ['packages/udp-batch/test/udp-batch.test.ts'], pool: 'forks', testTimeout: 30_000 },
});
