// `npm test`: the whole check of the repository, as steps that start as soon as what they need has
// passed (docs/contributing.md "Running the tests"):
//   - the typecheck of the server and of the console, the lint and the build the e2e suite serves,
//     from the start (and better-sqlite3's native build when the install skipped it: NATIVE);
//   - the unit and integration suite (vitest.config.ts) once the native build is there, beside what
//     is left of the steps above;
//   - the end-to-end suite (e2e/) once the unit suite and the build have passed.
// Output: a step's is printed whole when it ends while other steps run (they would interleave line
// by line), as it comes when it runs alone or is the unit or e2e suite. A failing step starts nothing
// that needs it; the run ends when nothing more can start, with the first failure's exit code.
// `node scripts/test.mjs --only unit,e2e` runs some steps.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { setPriority } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../', import.meta.url));
const npx = (...args) => ['npx', ['--no-install', ...args]];

/**
 * better-sqlite3's native module, which `npm ci --ignore-scripts` (as `.ci/run` installs) leaves
 * unbuilt: its compile (≈ 60 s on one core, SQLite in one C file) then runs beside the typecheck,
 * lint and build, which do not load it, instead of holding up the install with the other core idle.
 */
const NATIVE = existsSync(join(root, 'node_modules/better-sqlite3/build/Release/better_sqlite3.node'))
  ? []
  : [{ name: 'native', command: ['npm', ['rebuild', 'better-sqlite3']], always: true }];

/**
 * The steps: `{ name, command: [file, args], after?: names that must pass first, always?: runs
 * whatever --only says, streamed?: output printed as it comes }`.
 */
const STEPS = [
  ...NATIVE,
  { name: 'typecheck', command: npx('tsc', '-p', 'tsconfig.json', '--noEmit') },
  { name: 'typecheck:console', command: npx('tsc', '-p', 'apps/console/tsconfig.json', '--noEmit') },
  { name: 'lint', command: npx('biome', 'check', '.') },
  { name: 'build', command: ['node', ['scripts/build.mjs']] },
  { name: 'unit', command: npx('vitest', 'run'), after: NATIVE.map((s) => s.name), streamed: true },
  {
    name: 'e2e',
    command: npx('vitest', 'run', '--config', 'e2e/vitest.config.ts'),
    after: ['unit', 'build'],
    streamed: true,
  },
];

const onlyFlag = process.argv.indexOf('--only');
const only = onlyFlag > 0 ? new Set(process.argv[onlyFlag + 1]?.split(',')) : null;
const selected = STEPS.filter((s) => only === null || only.has(s.name) || s.always);
const names = new Set(selected.map((s) => s.name));

/**
 * Runs one step; resolves with its exit code (a signal counts as 1). `buffered`: its output is kept
 * and printed in one piece when it ends. `nice`: it runs at a lower priority (nice 10).
 */
function runStep(step, buffered, nice) {
  const started = Date.now();
  const [file, args] = step.command;
  const child = spawn(file, args, { cwd: root, stdio: buffered ? ['ignore', 'pipe', 'pipe'] : 'inherit' });
  // Beside the native compile (one core for ≈ 60 s, the first link of the longest chain: native,
  // unit, e2e), the typecheck, lint and build yield: the compile keeps its core and they share what
  // is left, instead of the compile getting a third of the machine and ending last (the first
  // phase took 130 s so, against ≈ 50 s without it); they go on yielding to the unit suite after.
  if (nice && child.pid !== undefined) {
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
const passed = new Set();
const running = new Map();
let failure;
const niceOthers = NATIVE.length > 0;
// A step needs those of its `after` that were selected; unselected ones count as passed.
const ready = (s) => (s.after ?? []).every((n) => !names.has(n) || passed.has(n));
const pending = [...selected];
for (;;) {
  if (failure === undefined) {
    for (const step of pending.filter(ready)) {
      pending.splice(pending.indexOf(step), 1);
      const buffered = !step.streamed && selected.length > 1;
      const nice = niceOthers && !step.always && !step.streamed;
      running.set(
        step.name,
        runStep(step, buffered, nice).then((code) => ({ step, code })),
      );
    }
  }
  if (running.size === 0) break;
  const { step, code } = await Promise.race(running.values());
  running.delete(step.name);
  if (code === 0) passed.add(step.name);
  else if (failure === undefined) failure = code;
}
const seconds = ((Date.now() - started) / 1000).toFixed(0);
if (failure !== undefined) {
  console.log(`test: stopped after ${seconds} s`);
  process.exit(failure);
}
console.log(`test: everything passed in ${seconds} s`);
