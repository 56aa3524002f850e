// Bundles the `cordon` command for production: Cordon's own TypeScript (every @cordon/* workspace)
// becomes one ES module, apps/cli/dist/cordon.mjs, run by plain node; npm packages stay external and
// load from node_modules. Running without tsx saves its compile time and memory (bench/README.md).
// The entries of the worker threads (the data plane, the query-log writer) are emitted beside it,
// where the code that starts them looks. `--outdir DIR` writes elsewhere (tests bundle into a
// directory under node_modules, so the external packages still resolve).
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const outdirFlag = process.argv.indexOf('--outdir');
const outdir =
  outdirFlag > 0 && process.argv[outdirFlag + 1]
    ? resolve(process.argv[outdirFlag + 1])
    : fileURLToPath(new URL('../dist/', import.meta.url));

/** Bundle @cordon/* sources and relative imports; leave every other bare import to node_modules. */
const externalPackages = {
  name: 'external-packages',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) =>
      args.path.startsWith('@cordon/') ? undefined : { path: args.path, external: true },
    );
  },
};

// Chunk names change with their content: drop the previous build's.
if (existsSync(outdir)) {
  for (const f of readdirSync(outdir)) if (/^chunk-[A-Z0-9]+\.mjs(\.map)?$/.test(f)) rmSync(join(outdir, f));
}

const started = Date.now();
const result = await build({
  absWorkingDir: root,
  entryPoints: {
    cordon: 'apps/cli/src/bundle-entry.ts',
    // Must match QUERY_LOG_WORKER_BUNDLE_NAME in apps/resolver/src/querylog/threaded.ts.
    'querylog-worker': 'apps/resolver/src/querylog/worker.ts',
    // The data-plane thread (resolver, block page); must match DATA_PLANE_WORKER_BUNDLE_NAME in
    // apps/resolver/src/dataplane/host.ts.
    'dataplane-worker': 'apps/resolver/src/dataplane/entry.ts',
  },
  outdir,
  outExtension: { '.js': '.mjs' },
  bundle: true,
  // Dynamic imports become chunks, so a process evaluates only its roles' code (a resolver-only
  // `cordon serve` never loads the API; bench/README.md "Resolver memory"). Chunks sit beside the
  // entries: code in a chunk finds the worker entries through its own import.meta.url (threads.ts).
  splitting: true,
  chunkNames: 'chunk-[hash]',
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: true,
  plugins: [externalPackages],
  logLevel: 'warning',
  metafile: true,
});
const outputs = Object.entries(result.metafile.outputs).filter(([f]) => f.endsWith('.mjs'));
for (const [file, info] of outputs) {
  console.log(
    `bundled ${file.replace(root, '')} (${(info.bytes / 1024).toFixed(0)} KiB) in ${Date.now() - started} ms`,
  );
}
