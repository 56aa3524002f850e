/**
 * Vitest global setup (vitest.config.ts): names this run's directory for the `cordon` bundle the
 * integration tests spawn (e2e/support/test-bundle.ts builds it on first use), and removes it and
 * its lock at the end. Under node_modules so the bundle's external packages resolve from the root.
 */
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TEST_BUNDLE_ENV } from '../../e2e/support/test-bundle.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export default function setup(): () => void {
  const dir = join(ROOT, 'node_modules', '.cordon-test-cli', `${process.pid}-${randomBytes(4).toString('hex')}`);
  process.env[TEST_BUNDLE_ENV] = dir;
  return () => {
    rmSync(dir, { recursive: true, force: true });
    rmSync(`${dir}.lock`, { recursive: true, force: true });
  };
}
