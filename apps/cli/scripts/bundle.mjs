// Bundles the `cordon` command for production: Cordon's own TypeScript (every @cordon/* workspace)
// and the plain-JavaScript npm packages it uses become ES modules, apps/cli/dist/cordon.mjs and its
// chunks, run by plain node; the packages in EXTERNAL stay in node_modules. Running without tsx
// saves its compile time and memory (bench/README.md); taking the packages in saves node's
// resolving and wrapping of their hundreds of files at each start (an API start 1.3-1.5 s -> 0.7-0.9 s
// of CPU, docs/decisions.md "The bundle takes in its npm packages").
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

/**
 * Packages left to node_modules: native modules (better-sqlite3, argon2), packages that read their
 * own files at run time (pdfkit's fonts), optional native parts or worker-thread entries found by
 * path (pg, pino), and the lazily loaded heavy ones whose chunks nothing else shares (X.509,
 * nodemailer). Every other package is bundled.
 */
const EXTERNAL = new Set([
  'better-sqlite3',
  '@node-rs/argon2',
  'pdfkit',
  'pg',
  'pg-native',
  'pg-copy-streams',
  'pino',
  'thread-stream',
  '@peculiar/x509',
  'nodemailer',
]);

/** The package a bare import names: `@scope/name/sub` -> `@scope/name`, `name/sub` -> `name`. */
const packageOf = (path) =>
  path
    .split('/')
    .slice(0, path.startsWith('@') ? 2 : 1)
    .join('/');

/** node: builtins and EXTERNAL packages stay imports; @cordon/* and every other package are bundled. */
const externalPackages = {
  name: 'external-packages',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) =>
      args.path.startsWith('node:') || EXTERNAL.has(packageOf(args.path))
        ? { path: args.path, external: true }
        : undefined,
    );
  },
};

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
  // The bundled CommonJS packages require node's builtins; an ES module has no `require` of its own.
  banner: {
    js: "import { createRequire as __cordonCreateRequire } from 'node:module'; const require = __cordonCreateRequire(import.meta.url);",
  },
  logLevel: 'warning',
  metafile: true,
});
const outputs = Object.entries(result.metafile.outputs).filter(([f]) => f.endsWith('.mjs'));
for (const [file, info] of outputs) {
  console.log(
    `bundled ${file.replace(root, '')} (${(info.bytes / 1024).toFixed(0)} KiB) in ${Date.now() - started} ms`,
  );
}
