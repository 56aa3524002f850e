// `npm test`: the whole check of the repository, in phases whose steps run side by side
// (docs/contributing.md "Running the tests"). The steps of a phase are independent and mostly use
// one core each, so on two cores they take about as long as the longest of them:
//   1. the typecheck of the server and of the console, the lint, and the build the e2e suite serves
//      (and better-sqlite3's native build when the install skipped it: NATIVE);
//   2. the unit and integration suite (vitest.config.ts), then the end-to-end suite (e2e/).
// A step's output is printed whole when it ends (steps of one phase would interleave line by line),
// a single-step phase's as it comes. The first failing phase ends the run with its exit code, after
// the other steps of that phase have finished. `node scripts/test.mjs --only unit,e2e` runs some steps.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { setPriority } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));
const npx = (...args) => ['npx', ['--no-install', ...args]];

/**
 * better-sqlite3's native module, which `npm ci --ignore-scripts` (as `.ci/run` installs) leaves
 * unbuilt: its compile (≈ 60 s on one core, SQLite in one C file) then runs beside the first phase,
 * which does not load it, instead of holding up the install with the other core idle.
 */
const NATIVE = existsSync(join(root, 'node_modules/better-sqlite3/build/Release/better_sqlite3.node'))
  ? []
  : [{ name: 'native', command: ['npm', ['rebuild', 'better-sqlite3']], always: true }];

/** The phases, in order: each a list of steps `{ name, command: [file, args], always? }`. */
const PHASES = [
  [
    ...NATIVE,
    { name: 'typecheck', command: npx('tsc', '-p', 'tsconfig.json', '--noEmit') },
    { name: 'typecheck:console', command: npx('tsc', '-p', 'apps/console/tsconfig.json', '--noEmit') },
    { name: 'lint', command: npx('biome', 'check', '.') },
    { name: 'build', command: ['node', ['scripts/build.mjs']] },
  ],
  [{ name: 'unit', command: npx('vitest', 'run') }],
  [{ name: 'e2e', command: npx('vitest', 'run', '--config', 'e2e/vitest.config.ts') }],
];

const onlyFlag = process.argv.indexOf('--only');
const only = onlyFlag > 0 ? new Set(process.argv[onlyFlag + 1]?.split(',')) : null;

/**
 * Runs one step; resolves with its exit code (a signal counts as 1). `buffered`: its output is kept
 * and printed in one piece when it ends. `niceOthers`: a step other than the native build runs at
 * a lower priority (nice 10).
 */
function runStep(step, buffered, niceOthers) {
  const started = Date.now();
  const [file, args] = step.command;
  const child = spawn(file, args, { cwd: root, stdio: buffered ? ['ignore', 'pipe', 'pipe'] : 'inherit' });
  // Beside the native compile (one core for ≈ 60 s, the phase's longest chain), the other steps
  // yield: the compile keeps its core and they share what is left, instead of the compile getting
  // a third of the machine and ending last (phase 1 took 130 s so, against ≈ 50 s without it).
  if (niceOthers && !step.always && child.pid !== undefined) {
    try {
      setPriority(child.pid, 10);
    } catch {
      // Not permitted here: the steps run at one priority, slower but the same.
    }
  }
  const chunks = [];
  if (buffered) {
    child.stdout.on('data', (d) => chunks.push(d));
    child.stderr.on('data', (d) => chunks.push(d));
  }
  return new Promise((resolve) => {
    child.on('close', (code) => {
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      if (buffered) process.stdout.write(`\n--- ${step.name} ---\n${Buffer.concat(chunks).toString()}`);
      console.log(`test: ${step.name} ${code === 0 ? 'passed' : `failed (exit ${code})`} in ${seconds} s`);
      resolve(code ?? 1);
    });
  });
}

const started = Date.now();
for (const phase of PHASES) {
  const steps = phase.filter((s) => only === null || only.has(s.name) || s.always);
  if (steps.length === 0) continue;
  const native = steps.some((s) => s.always);
  const codes = await Promise.all(steps.map((s) => runStep(s, steps.length > 1, native)));
  const failed = codes.find((c) => c !== 0);
  if (failed !== undefined) {
    console.log(`test: stopped after ${((Date.now() - started) / 1000).toFixed(0)} s`);
    process.exit(failed);
  }
}
console.log(`test: everything passed in ${((Date.now() - started) / 1000).toFixed(0)} s`);
