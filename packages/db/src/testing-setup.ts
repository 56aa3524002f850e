/**
 * Vitest global setup of the unit and integration suite (vitest.config.ts): migrates the template
 * databases once per run, which every test database is then copied from (createTestDatabase;
 * docs/contributing.md "Running the tests"); at the end removes their scripts and drops the run's
 * PostgreSQL test schemas still on the server.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dropRunSchemas, TEST_TEMPLATE_ENV, writeTestTemplates } from './testing.ts';

export default async function setup(): Promise<() => Promise<void>> {
  const dir = mkdtempSync(join(tmpdir(), 'cordon-test-templates-'));
  const written = await writeTestTemplates(dir);
  if (process.env.CORDON_TEST_DATABASE_URL && !written.postgres) {
    console.warn(
      'test databases: no PostgreSQL template (pg_dump missing or older than the server, or the server does not answer); each PostgreSQL test schema is migrated from empty',
    );
  }
  return async () => {
    rmSync(dir, { recursive: true, force: true });
    const url = process.env.CORDON_TEST_DATABASE_URL;
    const run = process.env[TEST_TEMPLATE_ENV.run];
    if (url && run) await dropRunSchemas(url, run).catch(() => undefined); // no server: nothing to drop
  };
}
