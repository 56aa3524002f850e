import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { type DatabaseHandle, openDatabase } from './connection.ts';
import { migrateToLatest } from './migrate.ts';

/**
 * The databases the integration suite runs on: SQLite always, PostgreSQL too when
 * `CORDON_TEST_DATABASE_URL` is set (docs/decisions.md; the project's test rules).
 */
export function testDialects(): Array<'sqlite' | 'postgres'> {
  return process.env.CORDON_TEST_DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'];
}

/**
 * A fresh, migrated database for one test: in-memory SQLite, or a new schema on the
 * PostgreSQL server of `CORDON_TEST_DATABASE_URL` that `close()` drops again.
 * @throws Error for 'postgres' when `CORDON_TEST_DATABASE_URL` is unset
 */
export async function createTestDatabase(dialect: 'sqlite' | 'postgres' = 'sqlite'): Promise<DatabaseHandle> {
  if (dialect === 'sqlite') {
    const handle = openDatabase({ sqlitePath: ':memory:' });
    await migrateToLatest(handle);
    return handle;
  }
  const url = process.env.CORDON_TEST_DATABASE_URL;
  if (!url) throw new Error('CORDON_TEST_DATABASE_URL is not set');
  const schema = `cordon_test_${randomBytes(6).toString('hex')}`;
  const admin = openDatabase({ url, pgPoolSize: 1 });
  await sql`create schema ${sql.id(schema)}`.execute(admin.db);
  await admin.close();
  const handle = openDatabase({ url, pgSchema: schema, pgPoolSize: 4 });
  await migrateToLatest(handle);
  return {
    ...handle,
    close: async () => {
      await handle.close();
      const cleanup = openDatabase({ url, pgPoolSize: 1 });
      await sql`drop schema ${sql.id(schema)} cascade`.execute(cleanup.db);
      await cleanup.close();
    },
  };
}
