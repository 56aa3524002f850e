import { type Kysely, type Migration, type MigrationProvider, Migrator, sql } from 'kysely';
import type { DatabaseHandle } from './connection.ts';
import type { Dialect } from './dialect-kind.ts';
import * as m0001 from './migrations/0001_initial.ts';
import * as m0002 from './migrations/0002_address_claims.ts';
import * as m0003 from './migrations/0003_login_throttle.ts';
import * as m0004 from './migrations/0004_audit_log.ts';
import * as m0005 from './migrations/0005_domain_lists.ts';
import * as m0006 from './migrations/0006_static_routes.ts';
import * as m0007 from './migrations/0007_cloud_keys.ts';
import * as m0008 from './migrations/0008_default_policies.ts';
import * as m0009 from './migrations/0009_root_ca.ts';
import * as m0010 from './migrations/0010_blockpage_branding.ts';
import * as m0011 from './migrations/0011_mail_settings.ts';
import * as m0012 from './migrations/0012_accounts.ts';
import * as m0015 from './migrations/0015_location_types.ts';
import * as m0016 from './migrations/0016_devices.ts';
import * as m0017 from './migrations/0017_groups_users.ts';
import * as m0019 from './migrations/0019_stats_rollups.ts';
import * as m0020 from './migrations/0020_worker_jobs.ts';
import * as m0021 from './migrations/0021_scheduled_reports.ts';
import * as m0022 from './migrations/0022_partitions_daily_rollups.ts';
import * as m0023 from './migrations/0023_ui_branding.ts';
import * as m0024 from './migrations/0024_recategorize.ts';
import * as m0026 from './migrations/0026_blockpage_logo.ts';
import * as m0027 from './migrations/0027_category_feeds.ts';
import * as m0028 from './migrations/0028_policy_notifications.ts';
import * as m0029 from './migrations/0029_query_log_identity.ts';
import * as m0030 from './migrations/0030_rollup_identity_dims.ts';
import * as m0032 from './migrations/0032_read_indexes.ts';
import * as m0033 from './migrations/0033_hourly_msp_rollups.ts';
import * as m0034 from './migrations/0034_msp_summaries.ts';
import * as m0035 from './migrations/0035_query_log_fold.ts';
import * as m0036 from './migrations/0036_query_log_matched_name.ts';
import * as m0037 from './migrations/0037_device_users.ts';
import * as m0038 from './migrations/0038_api_tokens.ts';
import * as m0039 from './migrations/0039_webhooks.ts';
import * as m0040 from './migrations/0040_msp_log_streams.ts';
import * as m0041 from './migrations/0041_device_contact_hours.ts';
import * as m0042 from './migrations/0042_rollup_fillfactor.ts';

interface DialectMigration {
  up(db: Kysely<unknown>, dialect: Dialect): Promise<void>;
}

/** Migrations in order; one set for both dialects (docs/decisions.md). */
const MIGRATIONS: Record<string, DialectMigration> = {
  '0001_initial': m0001,
  '0002_address_claims': m0002,
  '0003_login_throttle': m0003,
  '0004_audit_log': m0004,
  '0005_domain_lists': m0005,
  '0006_static_routes': m0006,
  '0007_cloud_keys': m0007,
  '0008_default_policies': m0008,
  '0009_root_ca': m0009,
  '0010_blockpage_branding': m0010,
  '0011_mail_settings': m0011,
  '0012_accounts': m0012,
  '0015_location_types': m0015,
  '0016_devices': m0016,
  '0017_groups_users': m0017,
  '0019_stats_rollups': m0019,
  '0020_worker_jobs': m0020,
  '0021_scheduled_reports': m0021,
  '0022_partitions_daily_rollups': m0022,
  '0023_ui_branding': m0023,
  '0024_recategorize': m0024,
  '0026_blockpage_logo': m0026,
  '0027_category_feeds': m0027,
  '0028_policy_notifications': m0028,
  '0029_query_log_identity': m0029,
  '0030_rollup_identity_dims': m0030,
  '0032_read_indexes': m0032,
  '0033_hourly_msp_rollups': m0033,
  '0034_msp_summaries': m0034,
  '0035_query_log_fold': m0035,
  '0036_query_log_matched_name': m0036,
  '0037_device_users': m0037,
  '0038_api_tokens': m0038,
  '0039_webhooks': m0039,
  '0040_msp_log_streams': m0040,
  '0041_device_contact_hours': m0041,
  '0042_rollup_fillfactor': m0042,
};

/**
 * Every migration's name, in the order they apply (names sort by their number). The CLI test checks a
 * fresh `cordon migrate` applies exactly these.
 */
export const MIGRATION_NAMES: readonly string[] = Object.keys(MIGRATIONS).sort();

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
  if (await allApplied(handle)) return [];
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
  for (let attempt = 1; ; attempt++) {
    const { error, results } = await migrator.migrateToLatest();
    const failed = results?.find((r) => r.status === 'Error');
    if (error && !failed && attempt < 5 && isOtherSchemaDropped(error, migrationTableSchema)) continue;
    if (error) {
      throw new Error(`Migration ${failed?.migrationName ?? '(unknown)'} failed: ${(error as Error).message ?? error}`);
    }
    return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
  }
}

/**
 * The migrations of this build not yet applied to the database, in the order they would apply
 * (`cordon migrate --dry-run`; docs/operations.md "Upgrades"). Applies nothing.
 * @returns `pending` (every name on a fresh database) and `unknown`: migrations the database records
 *   that this build does not have — a database of a newer release, which this one must not open
 * @throws what the database throws when it cannot be read
 */
export async function pendingMigrations(handle: DatabaseHandle): Promise<{ pending: string[]; unknown: string[] }> {
  let done: Set<string>;
  try {
    const rows = await sql<{ name: string }>`select name from kysely_migration`.execute(handle.db);
    done = new Set(rows.rows.map((r) => r.name));
  } catch (err) {
    // No bookkeeping table: a fresh database (anything else, such as an unreachable server, is thrown).
    if (!/kysely_migration/.test(String((err as Error)?.message ?? err))) throw err;
    done = new Set();
  }
  return {
    pending: MIGRATION_NAMES.filter((name) => !done.has(name)),
    unknown: [...done].filter((name) => !(name in MIGRATIONS)).sort(),
  };
}

/**
 * True when every migration of this build is recorded as applied: the common start needs no
 * catalogue introspection then (Kysely's Migrator lists every table of the server, which is slow on
 * a shared PostgreSQL and races with other schemas being dropped).
 */
async function allApplied(handle: DatabaseHandle): Promise<boolean> {
  try {
    const rows = await sql<{ name: string }>`select name from kysely_migration`.execute(handle.db);
    const done = new Set(rows.rows.map((r) => r.name));
    return Object.keys(MIGRATIONS).every((name) => done.has(name));
  } catch {
    return false; // no bookkeeping table yet: a fresh database
  }
}

/**
 * True for PostgreSQL's "schema … does not exist" or "relation "schema.table" does not exist" about a
 * schema other than ours: the Migrator's server-wide introspection met another schema, or one of its
 * tables, being dropped at that moment (seen in CI: `relation "cordon_test_….revoked_tokens" does not
 * exist`). Nothing of ours ran; trying again is safe.
 */
export function isOtherSchemaDropped(error: unknown, ours: string | undefined): boolean {
  const message = String((error as Error)?.message ?? error);
  const m =
    /schema "([^"]+)" does not exist/.exec(message) ?? /relation "([^".]+)\.[^"]+" does not exist/.exec(message);
  return m !== null && m[1] !== ours;
}
