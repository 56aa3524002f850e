import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SOURCES_CLI, testCommand } from './test-bundle.ts';

export { SOURCES_CLI } from './test-bundle.ts';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
/**
 * The `cordon` command of the current sources, as an `entry` of {@link startCordon} and what
 * {@link runCordon} runs: the test run's bundle of them under Vitest's unit and integration suite,
 * else the sources through tsx (e2e/support/test-bundle.ts).
 */
export const CLI = 'cordon:current-sources';

/** The script that runs {@link CLI}, for a test that spawns the command itself (e2e/support/test-bundle.ts). */
export const cordonCommand = testCommand;
/** The production bundle `npm start` runs (`npm run build:server` makes it). */
const BUNDLE = fileURLToPath(new URL('../../apps/cli/dist/cordon.mjs', import.meta.url));

/** A `cordon serve` child process and what it printed. */
export interface CordonProcess {
  child: ChildProcess;
  output: string[];
  /** Sends SIGTERM and waits for the exit; resolves to the exit code. */
  stop(): Promise<number | null>;
}

/**
 * Runs `cordon <args>` to completion.
 * @returns its exit code and output lines (stdout and stderr together)
 */
export async function runCordon(
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; output: string[] }> {
  const child = spawn(process.execPath, [await testCommand(), ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
  });
  const output: string[] = [];
  child.stdout.on('data', (d: Buffer) => output.push(...d.toString().split('\n').filter(Boolean)));
  child.stderr.on('data', (d: Buffer) => output.push(...d.toString().split('\n').filter(Boolean)));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  return { code, output };
}

/**
 * Starts `cordon serve` from the production bundle, as `npm start` runs it, with `env`, and waits
 * for its boot line (`cordon serving: …`).
 * @param requested the script node runs: the release bundle (`apps/cli/dist`) by default, {@link CLI}
 *   for the current sources (bundled per test run), {@link SOURCES_CLI} for them through tsx, or another bundle
 * @throws Error with the process output when it exits or does not boot within `timeoutMs`
 */
export async function startCordon(
  env: NodeJS.ProcessEnv,
  timeoutMs = 60_000,
  requested = BUNDLE,
): Promise<CordonProcess> {
  const entry = requested === CLI ? await testCommand() : requested;
  if (!existsSync(entry)) throw new Error(`${entry} is missing: run npm run build:server`);
  // The DoH listener is off unless a test asks for it: its default port would clash between runs.
  // The query-log writer without the idle gate unless a test asks for it: the tests wait seconds for
  // logged rows and streamed lines while other test files and browsers keep the cores busy, and
  // there the gate opens seldom (docs/operations.md "Threads").
  const child = spawn(process.execPath, [entry, 'serve'], {
    cwd: REPO_ROOT,
    env: { ...process.env, CORDON_DOH_ADDR: 'off', CORDON_QUERY_LOG_WRITER: 'normal', ...env },
  });
  const output: string[] = [];
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`cordon serve did not boot:\n${output.join('\n')}`)), timeoutMs);
    const onData = (d: Buffer) => {
      for (const line of d.toString().split('\n').filter(Boolean)) {
        output.push(line);
        if (line.startsWith('cordon serving:')) {
          clearTimeout(timer);
          resolve();
        }
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`cordon serve exited with ${code}:\n${output.join('\n')}`));
    });
  });
  return {
    child,
    output,
    stop: async () => {
      child.kill('SIGTERM');
      return exited;
    },
  };
}
