import { type Kysely, type Migration, type MigrationProvider, Migrator, sql } from 'kysely';
import type { DatabaseHandle } from './connection.ts';
import type { Dialect } from './dialect-kind.ts';
import * as m0001 from './migrations/0001_initial.ts';
import * as m0002 from './migrations/0002_address_claims.ts';
import * as m0003 from './migrations/0003_login_throttle.ts';
import * as m0004 from './migrations/0004_audit_log.ts';

interface DialectMigration {
  up(db: Kysely<unknown>, dialect: Dialect): Promise<void>;
}

/** Migrations in order; one set for both dialects (DESIGN.md §2). */
const MIGRATIONS: Record<string, DialectMigration> = {
  '0001_initial': m0001,
  '0002_address_claims': m0002,
  '0003_login_throttle': m0003,
  '0004_audit_log': m0004,
};

class InCodeProvider implements MigrationProvider {
  constructor(private readonly dialect: Dialect) {}
  async getMigrations(): Promise<Record<string, Migration>> {
    const out: Record<string, Migration> = {};
    for (const [name, m] of Object.entries(MIGRATIONS)) {
      out[name] = { up: (db) => m.up(db, this.dialect) };
    }
    return out;
  }
}

/**
 * Brings the schema up to date. Idempotent; each migration runs in a transaction.
 * @returns the names of the migrations applied now (empty when already current)
 * @throws Error naming the failed migration; nothing of it is applied
 */
export async function migrateToLatest(handle: DatabaseHandle): Promise<string[]> {
  // On PostgreSQL, Kysely looks for its bookkeeping tables in every schema of the server unless told
  // which one: pin it to the connection's own schema, or another schema's tables (a parallel test, a
  // second deployment on the same server) make it skip creating ours and fail.
  const migrationTableSchema =
    handle.dialect === 'postgres'
      ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(handle.db)).rows[0]?.schema
      : undefined;
  const migrator = new Migrator({
    db: handle.db,
    provider: new InCodeProvider(handle.dialect),
    ...(migrationTableSchema ? { migrationTableSchema } : {}),
  });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error) {
    throw new Error(`Migration ${failed?.migrationName ?? '(unknown)'} failed: ${(error as Error).message ?? error}`);
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
