// `npm run build`: the console (Vite) and the server bundle (esbuild), each rebuilt only when its
// inputs changed since the build that is on disk. A stamp beside each output holds the SHA-256 of
// its inputs' paths and contents; `npm start` on an unchanged tree then starts in seconds instead
// of a minute of Vite. `--force` rebuilds both (README.md "On a fresh machine").
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));
const force = process.argv.includes('--force');
const SKIP = new Set(['node_modules', 'dist', 'build', '.git']);

/** Every file under `path` (a file or a directory), skipping outputs and dependencies. */
function files(path) {
  const full = join(root, path);
  if (!existsSync(full)) return [];
  if (!statSync(full).isDirectory()) return [path];
  return readdirSync(full, { withFileTypes: true }).flatMap((entry) =>
    SKIP.has(entry.name) || entry.name.endsWith('.tsbuildinfo') ? [] : files(relative(root, join(full, entry.name))),
  );
}

/** SHA-256 over the sorted paths and contents of `inputs`. */
function digest(inputs) {
  const hash = createHash('sha256');
  for (const path of inputs.flatMap(files).sort()) {
    hash.update(`${path}\0`);
    hash.update(readFileSync(join(root, path)));
    hash.update('\0');
  }
  return hash.digest('hex');
}

const workspaces = (dir) => readdirSync(join(root, dir)).map((name) => `${dir}/${name}`);
const common = ['package-lock.json', 'tsconfig.base.json'];
const targets = [
  {
    name: 'console',
    // The console imports @cordon/shared only.
    inputs: [...common, 'apps/console', 'packages/shared'],
    output: 'apps/console/dist/index.html',
    stamp: 'apps/console/dist/.build-stamp',
    command: ['npm', ['run', 'build:console']],
  },
  {
    name: 'server bundle',
    inputs: [
      ...common,
      ...workspaces('packages').map((p) => `${p}/src`),
      ...workspaces('apps')
        .filter((a) => a !== 'apps/console')
        .flatMap((a) => [`${a}/src`, `${a}/scripts`, `${a}/package.json`]),
    ],
    output: 'apps/cli/dist/cordon.mjs',
    stamp: 'apps/cli/dist/.build-stamp',
    command: ['npm', ['run', 'build:server']],
  },
];

for (const target of targets) {
  const wanted = digest(target.inputs);
  const stampPath = join(root, target.stamp);
  const current =
    existsSync(join(root, target.output)) && existsSync(stampPath) ? readFileSync(stampPath, 'utf8').trim() : '';
  if (!force && current === wanted) {
    console.log(`build: ${target.name} is up to date (inputs unchanged since its build)`);
    continue;
  }
  const [cmd, args] = target.command;
  const run = spawnSync(cmd, args, { cwd: root, stdio: 'inherit' });
  if (run.status !== 0) process.exit(run.status ?? 1);
  writeFileSync(stampPath, `${wanted}\n`);
}
