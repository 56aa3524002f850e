/**
 * The `cordon` command the integration tests spawn: one production bundle of the current sources
 * per test run, built by the first test that needs it (docs/contributing.md "Running the tests").
 *
 * A spawn of the TypeScript sources through tsx costs ≈ 2–3 s of CPU before the command does
 * anything, and `cordon serve` pays it again in each worker thread (data plane, query-log writer);
 * the bundle starts in ≈ 0.5 s. The suite's global setup (`test/setup/cli-bundle.ts`) names a
 * directory for the run in {@link TEST_BUNDLE_ENV}; the first caller of {@link testCommand} takes a
 * lock directory beside it and runs `apps/cli/scripts/bundle.mjs --outdir`, the others wait for its
 * `.done` marker. Without that variable (the e2e suite, a script outside Vitest) or with
 * `CORDON_TEST_CLI=sources`, the sources run through tsx as before.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The environment variable naming the run's bundle directory (under node_modules, so packages resolve). */
export const TEST_BUNDLE_ENV = 'CORDON_TEST_CLI_BUNDLE_DIR';

/** The `cordon` command from the TypeScript sources (tsx). */
export const SOURCES_CLI = join(REPO_ROOT, 'apps/cli/bin/cordon.js');

/** How long a waiting caller gives the builder (esbuild takes 1–5 s; a loaded machine more). */
const BUILD_WAIT_MS = 180_000;

let built: Promise<string> | null = null;

/**
 * The script to run `cordon` with in this test run: the run's bundle (`<dir>/cordon.mjs`), built on
 * first use, or {@link SOURCES_CLI}.
 * @throws Error when the bundle's build fails, or another worker's build does not finish within 180 s
 */
export function testCommand(): Promise<string> {
  const dir = process.env[TEST_BUNDLE_ENV];
  if (!dir || process.env.CORDON_TEST_CLI === 'sources') return Promise.resolve(SOURCES_CLI);
  built ??= ensureBundle(dir);
  return built;
}

async function ensureBundle(dir: string): Promise<string> {
  const entry = join(dir, 'cordon.mjs');
  const done = join(dir, '.done');
  if (existsSync(done)) return entry;
  mkdirSync(dirname(dir), { recursive: true });
  let builder = true;
  try {
    mkdirSync(`${dir}.lock`); // atomic: exactly one worker of the run gets it
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    builder = false;
  }
  const failed = join(dir, '.failed');
  if (builder) {
    await new Promise<void>((resolve, reject) => {
      execFile(
        process.execPath,
        [join(REPO_ROOT, 'apps/cli/scripts/bundle.mjs'), '--outdir', dir],
        { cwd: REPO_ROOT },
        (error, stdout, stderr) => {
          if (!error) return resolve();
          mkdirSync(dir, { recursive: true });
          writeFileSync(failed, `${stdout}${stderr}`);
          reject(new Error(`the test bundle did not build:\n${stdout}${stderr}`));
        },
      );
    });
    writeFileSync(done, '');
    return entry;
  }
  const deadline = Date.now() + BUILD_WAIT_MS;
  while (!existsSync(done)) {
    if (existsSync(failed)) throw new Error(`the test bundle in ${dir} did not build (another worker's build)`);
    if (Date.now() > deadline) throw new Error(`the test bundle in ${dir} was not built within ${BUILD_WAIT_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return entry;
}
