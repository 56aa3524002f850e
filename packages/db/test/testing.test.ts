import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { type DatabaseHandle, openDatabase } from '../src/connection.ts';
import { MIGRATION_NAMES, migrateToLatest } from '../src/migrate.ts';
import { createTestDatabase, dropRunSchemas, TEST_TEMPLATE_ENV, testDialects } from '../src/testing.ts';
import { resetTestSchema } from '../src/testing-recycle.ts';

/**
 * Everything a migration leaves in a database — tables, columns, indexes, constraints, sequences,
 * partitions, rows — as sorted lines. The schema's own name, timestamps and the day-named query-log
 * partitions are written as placeholders: they differ between two migrations by design.
 */
async function contents(handle: DatabaseHandle): Promise<string[]> {
  const norm = (s: string, schema = '') =>
    (schema ? s.replaceAll(`${schema}.`, 'SCHEMA.') : s)
      .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g, 'TIME')
      .replace(/query_log_p\d{8}/g, 'query_log_pDAY')
      .replace(/'\d{13}'/g, "'DAY_MS'");
  const lines: string[] = [];
  if (handle.dialect === 'sqlite') {
    const db = handle.sqlite!;
    const objects = db.prepare('select type, name, tbl_name, sql from sqlite_master').all() as Array<{
      type: string;
      name: string;
      tbl_name: string;
      sql: string | null;
    }>;
    for (const o of objects) {
      lines.push(norm(`${o.type} ${o.name} on ${o.tbl_name}: ${o.sql}`));
      if (o.type !== 'table') continue;
      for (const row of db.prepare(`select * from "${o.name}"`).all())
        lines.push(norm(`row ${o.name} ${JSON.stringify(row)}`));
    }
    return lines.sort();
  }
  const schema = (await sql<{ s: string }>`select current_schema() as s`.execute(handle.db)).rows[0]!.s;
  const q = async (query: ReturnType<typeof sql>) =>
    (await query.execute(handle.db)).rows.map((r) => norm(JSON.stringify(r), schema));
  lines.push(
    ...(await q(sql`select table_name, column_name, ordinal_position, data_type, is_nullable, column_default,
      is_identity, is_generated from information_schema.columns where table_schema = ${schema}`)),
    ...(await q(sql`select tablename, indexname, indexdef from pg_indexes where schemaname = ${schema}`)),
    ...(await q(sql`select c.relname, k.conname, pg_get_constraintdef(k.oid) as def from pg_constraint k
      join pg_class c on c.oid = k.conrelid join pg_namespace n on n.oid = c.relnamespace where n.nspname = ${schema}`)),
    ...(await q(sql`select c.relname, c.relkind, pg_get_expr(c.relpartbound, c.oid) as bound, p.relname as parent
      from pg_class c join pg_namespace n on n.oid = c.relnamespace
      left join pg_inherits i on i.inhrelid = c.oid left join pg_class p on p.oid = i.inhparent
      where n.nspname = ${schema}`)),
    ...(await q(sql`select sequencename, last_value, increment_by from pg_sequences where schemaname = ${schema}`)),
  );
  const tables = await sql<{ t: string }>`select table_name as t from information_schema.tables
    where table_schema = ${schema} and table_type = 'BASE TABLE'`.execute(handle.db);
  for (const { t } of tables.rows) {
    for (const row of await q(sql`select * from ${sql.id(t)}`)) lines.push(`row ${norm(t)} ${row}`);
  }
  return lines.sort();
}

describe.each(testDialects())('test databases on %s', (dialect) => {
  it('copies the migrated template: the same schema and rows as a migration from empty', async () => {
    const fresh = await createTestDatabase(dialect, { fromEmpty: true });
    const copy = await createTestDatabase(dialect);
    try {
      expect(await migrateToLatest(copy)).toEqual([]);
      const expected = await contents(fresh);
      expect(expected.some((l) => l.startsWith('row categories'))).toBe(true);
      expect(expected.filter((l) => l.startsWith('row kysely_migration '))).toHaveLength(MIGRATION_NAMES.length);
      expect(await contents(copy)).toEqual(expected);
    } finally {
      await fresh.close();
      await copy.close();
    }
  });

  it('gives every test its own database: a row written in one is not in another', async () => {
    const a = await createTestDatabase(dialect);
    const b = await createTestDatabase(dialect);
    try {
      const now = new Date().toISOString();
      const row = { name: 'M', company_name: 'M Ltd', license: '', timezone: '', created_at: now, updated_at: now };
      const { id } = await a.db.insertInto('msps').values(row).returning('id').executeTakeFirstOrThrow();
      expect(await a.db.selectFrom('msps').select('id').execute()).toEqual([{ id }]);
      expect(await b.db.selectFrom('msps').select('id').execute()).toEqual([]);
      // Sequences are the copy's own too: b's first MSP gets the same id as a's.
      const second = await b.db.insertInto('msps').values(row).returning('id').executeTakeFirstOrThrow();
      expect(second.id).toBe(id);
    } finally {
      await a.close();
      await b.close();
    }
  });
});

describe.runIf(process.env.CORDON_TEST_DATABASE_URL)('test schemas on postgres', () => {
  const url = process.env.CORDON_TEST_DATABASE_URL!;
  const schemasLike = async (admin: DatabaseHandle, pattern: string) =>
    (
      await sql<{ n: string }>`select nspname as n from pg_namespace where nspname like ${pattern} order by 1`.execute(
        admin.db,
      )
    ).rows.map((r) => r.n);

  it('drops the schema of a closed test database', async () => {
    const handle = await createTestDatabase('postgres');
    const schema = (await sql<{ s: string }>`select current_schema() as s`.execute(handle.db)).rows[0]!.s;
    expect(schema).toMatch(/^cordon_test_/);
    await handle.close();
    const admin = openDatabase({ url, pgPoolSize: 1 });
    try {
      await expect.poll(() => schemasLike(admin, schema), { timeout: 20_000, interval: 50 }).toEqual([]);
    } finally {
      await admin.close();
    }
  });

  // The run's pristine copy exists when the suite's global setup made the PostgreSQL template.
  it.runIf(process.env[TEST_TEMPLATE_ENV.pristine])(
    'resets a closed schema to the template under a new name; one whose objects changed is not reused',
    async () => {
      const pristine = process.env[TEST_TEMPLATE_ENV.pristine]!;
      const used = await createTestDatabase('postgres');
      const fresh = await createTestDatabase('postgres');
      const admin = openDatabase({ url, pgPoolSize: 2 });
      const renamed = `cordon_test_reset_${randomBytes(6).toString('hex')}`;
      let reused: DatabaseHandle | undefined;
      try {
        const schema = (await sql<{ s: string }>`select current_schema() as s`.execute(used.db)).rows[0]!.s;
        const expected = await contents(fresh);
        // A test's writes: rows in a seeded and an empty table, sequences moved on, a seed row changed.
        const now = new Date().toISOString();
        const msp = { name: 'M', company_name: 'M Ltd', license: '', timezone: '', created_at: now, updated_at: now };
        await used.db
          .insertInto('msps')
          .values([msp, { ...msp, name: 'N' }])
          .execute();
        await used.db.updateTable('categories').set({ name: 'Changed' }).where('id', '=', 1).execute();
        await sql`insert into settings (key, value) values ('test.key', 'x')`.execute(used.db);
        expect(await contents(used)).not.toEqual(expected);
        // A connection the test left open, on the old name.
        const leaked = openDatabase({ url, pgSchema: schema, pgPoolSize: 1 });
        try {
          const client = await admin.pgPool!.connect();
          try {
            expect(await resetTestSchema(client, schema, pristine, renamed)).toBe(true);
          } finally {
            client.release();
          }
          await expect(leaked.db.selectFrom('msps').select('id').execute()).rejects.toThrow(/does not exist/);
        } finally {
          await leaked.close();
        }
        reused = openDatabase({ url, pgSchema: renamed, pgPoolSize: 1 });
        expect(await contents(reused)).toEqual(expected);
        // The first MSP of the reused schema gets the id a fresh one gives.
        const a = await reused.db.insertInto('msps').values(msp).returning('id').executeTakeFirstOrThrow();
        const b = await fresh.db.insertInto('msps').values(msp).returning('id').executeTakeFirstOrThrow();
        expect(a.id).toBe(b.id);
        // A schema with a table the template does not have is left to be dropped.
        await sql`create table ${sql.id(renamed)}.extra (id int)`.execute(admin.db);
        const client = await admin.pgPool!.connect();
        try {
          expect(await resetTestSchema(client, renamed, pristine, `${renamed}_again`)).toBe(false);
        } finally {
          client.release();
        }
        expect(await schemasLike(admin, renamed)).toEqual([renamed]);
      } finally {
        await reused?.close();
        await sql`drop schema if exists ${sql.id(renamed)} cascade`.execute(admin.db);
        await admin.close();
        await used.close();
        await fresh.close();
      }
    },
  );

  it("drops a run's schemas left behind at its end, and only that run's", async () => {
    const run = randomBytes(4).toString('hex');
    const other = randomBytes(4).toString('hex');
    const admin = openDatabase({ url, pgPoolSize: 1 });
    try {
      for (const name of [`cordon_test_${run}_a1`, `cordon_test_${run}_b2`, `cordon_test_${other}_a1`]) {
        await sql`create schema ${sql.id(name)}`.execute(admin.db);
      }
      await sql`create table ${sql.id(`cordon_test_${run}_a1`)}.t (id int)`.execute(admin.db);
      expect(await dropRunSchemas(url, run)).toBe(2);
      expect(await schemasLike(admin, `cordon_test_${run}%`)).toEqual([]);
      expect(await schemasLike(admin, `cordon_test_${other}%`)).toEqual([`cordon_test_${other}_a1`]);
    } finally {
      await sql`drop schema if exists ${sql.id(`cordon_test_${other}_a1`)} cascade`.execute(admin.db);
      await admin.close();
    }
  });
});
