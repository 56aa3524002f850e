import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { type DatabaseHandle, openDatabase } from './connection.ts';
import { migrateToLatest } from './migrate.ts';
import { resetTestSchema } from './testing-recycle.ts';

/**
 * The databases the integration suite runs on: SQLite always, PostgreSQL too when
 * `CORDON_TEST_DATABASE_URL` is set (docs/decisions.md; the project's test rules).
 */
export function testDialects(): Array<'sqlite' | 'postgres'> {
  return process.env.CORDON_TEST_DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'];
}

/**
 * The environment switches of the test databases (docs/contributing.md "Running the tests"):
 * `sqlite` and `postgres` name the template scripts the suite's global setup wrote
 * ({@link writeTestTemplates}); `run` is that run's id, which its PostgreSQL schemas are named with
 * (the setup's teardown drops what is left of them, {@link dropRunSchemas}); `fromEmpty` (`1`)
 * migrates every test database from empty instead; `pristine` names the run's untouched copy of the
 * PostgreSQL template, which closed test schemas are reset to and reused ({@link resetTestSchema}).
 */
export const TEST_TEMPLATE_ENV = {
  sqlite: 'CORDON_TEST_SQLITE_TEMPLATE',
  postgres: 'CORDON_TEST_PG_TEMPLATE',
  run: 'CORDON_TEST_RUN',
  fromEmpty: 'CORDON_TEST_MIGRATE_FROM_EMPTY',
  pristine: 'CORDON_TEST_PG_PRISTINE',
} as const;

/** Where the PostgreSQL template script names the test's schema. */
const SCHEMA_PLACEHOLDER = '__cordon_test_schema__';

/** Options of {@link createTestDatabase}. */
export interface TestDatabaseOptions {
  /** Run every migration on the empty database instead of copying the migrated template (default false). */
  fromEmpty?: boolean;
}

/**
 * A fresh, migrated database for one test: in-memory SQLite, or a new schema on the PostgreSQL
 * server of `CORDON_TEST_DATABASE_URL` that `close()` drops again (in a run with the global setup,
 * without waiting for the drop: the setup's teardown drops any schema of the run left behind). Both are copies of a database
 * migrated once ({@link sqliteTemplateScript}, {@link postgresTemplateScript}): the same tables,
 * indexes, seed rows and `kysely_migration` rows as a migration from empty gives, in a fraction of
 * the time (packages/db/test/testing.test.ts compares them; docs/contributing.md "Running the tests").
 * @throws Error for 'postgres' when `CORDON_TEST_DATABASE_URL` is unset
 */
export async function createTestDatabase(
  dialect: 'sqlite' | 'postgres' = 'sqlite',
  options: TestDatabaseOptions = {},
): Promise<DatabaseHandle> {
  const fromEmpty = options.fromEmpty === true || process.env[TEST_TEMPLATE_ENV.fromEmpty] === '1';
  if (dialect === 'sqlite') {
    const handle = openDatabase({ sqlitePath: ':memory:' });
    if (fromEmpty) await migrateToLatest(handle);
    else {
      handle.sqlite!.exec(await cachedSqliteScript());
      await settle(handle);
    }
    return handle;
  }
  const url = process.env.CORDON_TEST_DATABASE_URL;
  if (!url) throw new Error('CORDON_TEST_DATABASE_URL is not set');
  const run = process.env[TEST_TEMPLATE_ENV.run];
  const script = fromEmpty ? undefined : cachedPostgresScript();
  // A schema reset to the template's rows is reused only where a run's pristine copy exists.
  const pristine = script && run ? process.env[TEST_TEMPLATE_ENV.pristine] : undefined;
  let schema = pristine ? freeSchemas.pop() : undefined;
  if (schema === undefined) {
    schema = `cordon_test_${run ? `${run}_` : ''}${randomBytes(6).toString('hex')}`;
    const admin = openDatabase({ url, pgPoolSize: 1 });
    try {
      if (script) await admin.pgPool!.query(script.replaceAll(SCHEMA_PLACEHOLDER, schema));
      else await sql`create schema ${sql.id(schema)}`.execute(admin.db);
    } finally {
      await admin.close();
    }
  }
  const handle = openDatabase({ url, pgSchema: schema, pgPoolSize: 4 });
  await (script ? settle(handle) : migrateToLatest(handle));
  let closed: Promise<void> | undefined;
  return {
    ...handle,
    close: () => {
      closed ??= (async () => {
        await handle.close();
        const renamed = `cordon_test_${run}_${randomBytes(6).toString('hex')}`;
        if (pristine && (await resetForReuse(url, schema, pristine, renamed))) {
          freeSchemas.push(renamed);
          return;
        }
        const drop = dropSchema(url, schema);
        // The next test need not wait for the drop (a few hundred ms): whatever a worker's exit cuts
        // short, the teardown of the run drops. Without a run id nothing would, so it is awaited.
        if (run) drop.catch(() => undefined);
        else await drop;
      })();
      return closed;
    },
  };
}

/** Schemas of this process that tests closed and {@link resetTestSchema} reset: the next tests' to take. */
const freeSchemas: string[] = [];

/** Resets `schema` to the pristine copy's rows and renames it `renamed`, on a connection of its own; false when it must be dropped. */
async function resetForReuse(url: string, schema: string, pristine: string, renamed: string): Promise<boolean> {
  const admin = openDatabase({ url, pgPoolSize: 1 });
  try {
    const client = await admin.pgPool!.connect();
    try {
      return await resetTestSchema(client, schema, pristine, renamed);
    } finally {
      client.release();
    }
  } catch {
    return false;
  } finally {
    await admin.close();
  }
}

/** Drops `schema` and everything in it. */
async function dropSchema(url: string, schema: string): Promise<void> {
  const cleanup = openDatabase({ url, pgPoolSize: 1 });
  try {
    await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(cleanup.db);
  } finally {
    await cleanup.close();
  }
}

/**
 * Drops every schema of test run `run` still on the server at `url` (the global setup's teardown):
 * the test schemas whose drop a worker's exit cut short, or a test never closed.
 * @returns how many were dropped
 */
export async function dropRunSchemas(url: string, run: string): Promise<number> {
  const admin = openDatabase({ url, pgPoolSize: 1 });
  try {
    const prefix = `cordon\\_test\\_${run}\\_%`;
    const { rows } = await sql<{
      name: string;
    }>`select nspname as name from pg_namespace where nspname like ${prefix}`.execute(admin.db);
    for (const { name } of rows) await sql`drop schema if exists ${sql.id(name)} cascade`.execute(admin.db);
    return rows.length;
  } finally {
    await admin.close();
  }
}

/**
 * One query through Kysely, as the migration made: it opens the driver (on PostgreSQL a pooled
 * connection), so that `close()` closes the SQLite connection too, which a driver never opened would
 * leave open (a test that writes after `close()` expects a failure).
 */
async function settle(handle: DatabaseHandle): Promise<void> {
  await sql`select 1`.execute(handle.db);
}

let sqliteScript: Promise<string> | undefined;

/** The SQLite template of this process: the global setup's file, else migrated here once. */
function cachedSqliteScript(): Promise<string> {
  const file = process.env[TEST_TEMPLATE_ENV.sqlite];
  sqliteScript ??= file ? Promise.resolve(readFileSync(file, 'utf8')) : sqliteTemplateScript();
  return sqliteScript;
}

let postgresScript: string | null | undefined;

/** The PostgreSQL template of the global setup; none (migrate per test) without it. */
function cachedPostgresScript(): string | undefined {
  if (postgresScript === undefined) {
    const file = process.env[TEST_TEMPLATE_ENV.postgres];
    postgresScript = file ? readFileSync(file, 'utf8') : null;
  }
  return postgresScript ?? undefined;
}

/**
 * Migrates an in-memory SQLite database from empty and returns the SQL that rebuilds it on another
 * empty connection, in one transaction: the tables as `sqlite_master` records them, their rows (as
 * SQLite's `quote()` writes each value), `sqlite_sequence`, then the indexes, views and triggers.
 * Foreign keys are checked at the commit (`defer_foreign_keys`), so the row order does not matter.
 * @throws Error naming the migration that failed
 */
export async function sqliteTemplateScript(): Promise<string> {
  const handle = openDatabase({ sqlitePath: ':memory:' });
  try {
    await migrateToLatest(handle);
    return dumpSqlite(handle.sqlite!);
  } finally {
    await handle.close();
  }
}

/** The rebuild script of {@link sqliteTemplateScript} for the database of `db`. */
function dumpSqlite(db: SQLite.Database): string {
  const ident = (name: string) => `"${name.replaceAll('"', '""')}"`;
  const objects = db
    .prepare(
      `select type, name, sql from sqlite_master where sql is not null and name not like 'sqlite\\_%' escape '\\' order by rowid`,
    )
    .all() as Array<{ type: 'table' | 'index' | 'view' | 'trigger'; name: string; sql: string }>;
  const out = ['begin;', 'pragma defer_foreign_keys = on;'];
  const tables = objects.filter((o) => o.type === 'table');
  for (const t of tables) out.push(`${t.sql};`);
  const rowsOf = (table: string) => {
    const columns = (db.pragma(`table_xinfo(${ident(table)})`) as Array<{ name: string; hidden: number }>)
      .filter((c) => c.hidden === 0)
      .map((c) => ident(c.name));
    const values = columns.map((c) => `quote(${c})`).join(` || ',' || `);
    const rows = db
      .prepare(`select ${values} as v from ${ident(table)}`)
      .pluck()
      .all() as string[];
    return rows.map((v) => `insert into ${ident(table)} (${columns.join(', ')}) values (${v});`);
  };
  for (const t of tables) out.push(...rowsOf(t.name));
  if (db.prepare(`select 1 from sqlite_master where name = 'sqlite_sequence'`).get()) {
    out.push('delete from sqlite_sequence;', ...rowsOf('sqlite_sequence'));
  }
  for (const type of ['index', 'view', 'trigger'] as const) {
    for (const o of objects) if (o.type === type) out.push(`${o.sql};`);
  }
  out.push('commit;');
  return out.join('\n');
}

/**
 * Migrates a new schema of the PostgreSQL server at `url` from empty, dumps it with `pg_dump`
 * (schema, seed rows and sequence values, as plain SQL) and drops it again. The script creates the
 * schema it names {@link SCHEMA_PLACEHOLDER}, in one transaction.
 * @returns the script, or undefined when `pg_dump` is missing or cannot dump this server (older
 *   than the server): the tests then migrate each schema from empty
 * @throws what the server throws when the schema cannot be created or migrated
 */
export async function postgresTemplateScript(url: string): Promise<string | undefined> {
  const schema = `cordon_test_template_${randomBytes(6).toString('hex')}`;
  const admin = openDatabase({ url, pgPoolSize: 1 });
  try {
    await sql`create schema ${sql.id(schema)}`.execute(admin.db);
    const handle = openDatabase({ url, pgSchema: schema, pgPoolSize: 1 });
    try {
      await migrateToLatest(handle);
    } finally {
      await handle.close();
    }
    const dump = await new Promise<string | undefined>((resolve) => {
      execFile(
        'pg_dump',
        ['--dbname', url, '--schema', schema, '--no-owner', '--no-privileges', '--inserts'],
        // Without the sanitizer run's LD_PRELOAD (packages/udp-batch/test/sanitize.sh): pg_dump under a
        // preloaded libasan hangs; a 60 s bound turns any other hang into "no template".
        { maxBuffer: 64 * 1024 * 1024, timeout: 60_000, env: { ...process.env, LD_PRELOAD: '' } },
        (err, stdout) => resolve(err ? undefined : stdout),
      );
    });
    if (dump === undefined) return undefined;
    // psql's own commands (\restrict of newer pg_dump builds) are not SQL; the schema's name is a
    // random identifier of lower-case letters, digits and underscores, so pg_dump leaves it unquoted.
    const body = dump
      .split('\n')
      .filter((line) => !line.startsWith('\\'))
      .join('\n')
      .replace(new RegExp(`\\b${schema}\\b`, 'g'), SCHEMA_PLACEHOLDER);
    return `begin;\n${body}\ncommit;\n`;
  } finally {
    await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(admin.db);
    await admin.close();
  }
}

/**
 * The suite's global setup (vitest.config.ts, once per run): writes the SQLite template script, and
 * the PostgreSQL one when `CORDON_TEST_DATABASE_URL` is set and `pg_dump` can dump that server, to
 * files in `dir` and names them in `process.env` ({@link TEST_TEMPLATE_ENV}), which the test workers
 * inherit.
 * @returns what was written: `postgres` false when the PostgreSQL tests migrate each schema from empty
 *   (no `pg_dump` that can dump the server, or no server answering)
 */
export async function writeTestTemplates(dir: string): Promise<{ sqlite: boolean; postgres: boolean }> {
  process.env[TEST_TEMPLATE_ENV.run] ??= randomBytes(4).toString('hex');
  const sqliteFile = join(dir, 'sqlite-template.sql');
  writeFileSync(sqliteFile, await sqliteTemplateScript());
  process.env[TEST_TEMPLATE_ENV.sqlite] = sqliteFile;
  const url = process.env.CORDON_TEST_DATABASE_URL;
  // A server that does not answer fails the PostgreSQL tests themselves, as it did before; the
  // SQLite ones still run.
  const script = url ? await postgresTemplateScript(url).catch(() => undefined) : undefined;
  if (script === undefined) return { sqlite: true, postgres: false };
  const pgFile = join(dir, 'postgres-template.sql');
  writeFileSync(pgFile, script);
  process.env[TEST_TEMPLATE_ENV.postgres] = pgFile;
  // The run's pristine copy: what a closed test schema is compared with and reset to. Named like the
  // run's test schemas, so the teardown drops it with them.
  const pristine = `cordon_test_${process.env[TEST_TEMPLATE_ENV.run]}_pristine`;
  const admin = openDatabase({ url: url!, pgPoolSize: 1 });
  try {
    await admin.pgPool!.query(script.replaceAll(SCHEMA_PLACEHOLDER, pristine));
    process.env[TEST_TEMPLATE_ENV.pristine] = pristine;
  } catch {
    // Without it every test schema is created from the script and dropped, as before.
  } finally {
    await admin.close();
  }
  return { sqlite: true, postgres: true };
}
