import { defineConfig } from 'vitest/config';

// The end-to-end story: a real `cordon serve`, real dig, headless Chromium. Run after the console build.
// Each file starts its own server on free loopback ports with its own data directory and browser, and
// names its screenshots with its own prefix, so files run side by side (docs/contributing.md
// "Running the tests"); most of their time waits on the browser and the server.
export default defineConfig({
  test: {
    include: ['e2e/**/*.e2e.ts'],
    testTimeout: 300_000,
    hookTimeout: 300_000,
    pool: 'forks',
    // A poll waits for what a user would wait for (a title set by a fetched branding, a table after
    // its reload): 10 s, not Vitest's 1 s, which a page on a loaded machine missed (platform.e2e's
    // branded title). A poll that succeeds returns at once, so passing runs are no slower.
    expect: { poll: { timeout: 10_000 } },
    fileParallelism: true,
    // Three files at a time keep CI's two cores busy (87% of the run; 299 -> 189 s against two).
    maxWorkers: 3,
  },
});
