import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * The directory of a bundle of the current sources (`apps/cli/scripts/bundle.mjs --outdir`) whose
 * worker entries a process running from the TypeScript sources starts instead of the sources: the
 * test suite's global setup builds one per run and names it here (docs/contributing.md "Running the
 * tests"). Unset or empty: the sources through tsx. Never read by the bundle itself.
 */
export const TEST_WORKER_BUNDLE_ENV = 'CORDON_TEST_WORKER_BUNDLE';

/**
 * Starts a module of this package as a worker thread, from TypeScript sources or from the bundle.
 *
 * - Bundled (`apps/cli/scripts/bundle.mjs`), every module shares the bundle's `import.meta.url`,
 *   so the entry is the file `bundleName` emitted beside it.
 * - From `.ts` sources (tsx, vitest), the worker is an eval'd bootstrap that registers tsx's ESM
 *   hooks and then imports `source`: tsx's `register()` in the parent does not reach workers, and
 *   `--import` in a worker's execArgv comes too late for its entry module. Where
 *   {@link TEST_WORKER_BUNDLE_ENV} names a bundle of the same sources, its entry is started instead.
 *
 * @param source the entry's `.ts` URL, e.g. `new URL('./worker.ts', import.meta.url)`
 * @param bundleName the entry's file name in the bundle's directory, e.g. `querylog-worker.mjs`
 * @param options passed to `new Worker` (`workerData`, `env`…); `eval` is set here
 * @throws Error when the entry (or tsx, from sources) cannot be found
 */
export function startModuleWorker(source: URL, bundleName: string, options: WorkerOptions = {}): Worker {
  const fromSource = import.meta.url.endsWith('.ts');
  const entry = fromSource ? source : new URL(`./${bundleName}`, import.meta.url);
  if (!existsSync(fileURLToPath(entry))) throw new Error(`worker entry ${entry.href} not found`);
  if (!fromSource) return new Worker(entry, options);
  // The test suite's bundle of these same sources, when it names one: its entry starts in a fraction
  // of the CPU that compiling the worker's TypeScript through tsx costs in each new thread.
  const testBundle = process.env[TEST_WORKER_BUNDLE_ENV];
  if (testBundle && existsSync(join(testBundle, bundleName))) {
    return new Worker(pathToFileURL(join(testBundle, bundleName)), options);
  }
  const require = createRequire(import.meta.url);
  const tsxPackage = require.resolve('tsx/package.json');
  const exports = JSON.parse(readFileSync(tsxPackage, 'utf8')) as {
    exports: { './esm/api': { import: { default: string } } };
  };
  const api = new URL(exports.exports['./esm/api'].import.default, pathToFileURL(tsxPackage)).href;
  const bootstrap = `import(${JSON.stringify(api)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry.href)}); });`;
  return new Worker(bootstrap, { ...options, eval: true });
}
