/**
 * Vitest global setup (vitest.config.ts): names this run's directory for the `cordon` bundle the
 * integration tests spawn, builds it (e2e/support/test-bundle.ts) and names it as the bundle whose
 * worker entries the tests' worker threads start (TEST_WORKER_BUNDLE_ENV of apps/resolver/src/threads.ts),
 * and removes it and its lock at the end. Under node_modules so the bundle's external packages
 * resolve from the root. A failed build leaves both to the tests: the CLI tests fail on it, the
 * worker threads start from the sources.
 */
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TEST_WORKER_BUNDLE_ENV } from '../../apps/resolver/src/threads.ts';
import { SOURCES_CLI, TEST_BUNDLE_ENV, testCommand } from '../../e2e/support/test-bundle.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export default async function setup(): Promise<() => void> {
  const dir = join(ROOT, 'node_modules', '.cordon-test-cli', `${process.pid}-${randomBytes(4).toString('hex')}`);
  process.env[TEST_BUNDLE_ENV] = dir;
  const command = await testCommand().catch(() => SOURCES_CLI);
  if (command !== SOURCES_CLI) process.env[TEST_WORKER_BUNDLE_ENV] = dir;
  return () => {
    rmSync(dir, { recursive: true, force: true });
    rmSync(`${dir}.lock`, { recursive: true, force: true });
  };
}
