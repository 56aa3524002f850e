import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type DatabaseHandle,
  executePrepared,
  PREPARED_MARK,
  PREPARED_STATEMENTS_MAX,
  prepared,
} from '../src/connection.ts';
import { createReadPool } from '../src/read-pool.ts';
import { createTestDatabase, testDialects } from '../src/testing.ts';

describe.each(testDialects())('prepared statements on %s', (dialect) => {
  let handle: DatabaseHandle | undefined;
  afterEach(async () => {
    await handle?.close();
    handle = undefined;
  });

  it('answers as the plain statement does, in and out of a transaction and through a read pool', async () => {
    handle = await createTestDatabase(dialect);
    const db = handle.db;
    await db
      .insertInto('msps')
      .values({ name: 'A', company_name: 'A Ltd', license: '', timezone: 'UTC', created_at: 'x', updated_at: 'x' })
      .execute();
    const query = db.selectFrom('msps').select(['id', 'name']).where('name', '=', 'A');
    const plain = await query.execute();
    expect(plain).toHaveLength(1);
    for (let i = 0; i < 7; i++) expect(await executePrepared(db, query)).toEqual(plain);
    expect(await db.transaction().execute((trx) => executePrepared(trx, query))).toEqual(plain);
    const pool = createReadPool(handle, { threads: false });
    expect((await pool.read([prepared(query.compile())]))[0]).toEqual(plain);
    await pool.close();
    expect(prepared(prepared(query.compile())).sql).toBe(`${PREPARED_MARK}${query.compile().sql}`);
  });

  it.runIf(dialect === 'postgres')(
    'names each text once per connection, planned generically after five runs, at most PREPARED_STATEMENTS_MAX texts',
    async () => {
      handle = await createTestDatabase(dialect);
      // One connection throughout: its named statements are what pg_prepared_statements lists.
      await handle.db.connection().execute(async (db) => {
        const named = async () =>
          (
            await sql<{ name: string; statement: string }>`select name, statement from pg_prepared_statements`.execute(
              db,
            )
          ).rows;
        const query = db.selectFrom('msps').select('id').where('id', '=', 1);
        for (let i = 0; i < 7; i++) await executePrepared(db, query);
        await query.execute(); // unmarked: unnamed
        const [first, ...others] = await named();
        expect(others).toEqual([]);
        expect(first?.name).toMatch(/^cordon_\d+$/);
        expect(first?.statement).toBe(`${PREPARED_MARK}${query.compile().sql}`);
        const plans = await sql<{ generic_plans: number; custom_plans: number }>`
          select generic_plans, custom_plans from pg_prepared_statements where name = ${first?.name}`.execute(db);
        expect(plans.rows[0]).toEqual({ generic_plans: 2, custom_plans: 5 });
        // Past the bound a new text still answers, unnamed.
        for (let i = 1; i <= PREPARED_STATEMENTS_MAX + 5; i++) {
          const rows = await executePrepared(db, db.selectFrom('msps').select(sql<number>`${sql.lit(i)}`.as('n')));
          expect(rows).toEqual([]);
        }
        expect(await named()).toHaveLength(PREPARED_STATEMENTS_MAX);
        // A schema change under a named statement: PostgreSQL plans it again.
        await sql`alter table msps add column extra_test integer`.execute(db);
        expect(await executePrepared(db, query)).toEqual([]);
      });
    },
  );
});
