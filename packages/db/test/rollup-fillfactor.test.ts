import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { ROLLUP_COUNTER_TABLES } from '../src/migrations/0042_rollup_fillfactor.ts';
import { createTestDatabase, testDialects } from '../src/testing.ts';

/*
 * Migration 0042 (docs/decisions.md "Roll-up pages keep room for their updates"): on PostgreSQL the
 * hourly roll-up tables leave 30 % of each page free, so the fold's second count of a key within its
 * hour is a heap-only (HOT) update. SQLite updates in place; it has nothing of the kind.
 */
describe.runIf(testDialects().includes('postgres'))('hourly roll-up pages on PostgreSQL', () => {
  it('are filled to 70 %, so counting 1,000 keys again leaves most of their index entries alone', async () => {
    const handle = await createTestDatabase('postgres');
    const { rows: options } = await sql<{ relname: string; reloptions: string[] | null }>`
      select relname, reloptions from pg_class
      where relnamespace = current_schema()::regnamespace and relname in (${sql.join([...ROLLUP_COUNTER_TABLES])})
      order by relname`.execute(handle.db);
    expect(options).toEqual(
      [...ROLLUP_COUNTER_TABLES].sort().map((relname) => ({ relname, reloptions: ['fillfactor=70'] })),
    );
    // Several pages of keys, then each counted again, as a fold of the same hour does. The
    // transaction's own statistics count the updates that needed no new index entry.
    const counts = await handle.db.transaction().execute(async (trx) => {
      await sql`insert into stats_hourly_top (customer_id, location_id, hour, dim, action, key, count)
        select 1, 0, 0, 'domain', 'allowed', 'host' || g || '.example.com', 1 from generate_series(1, 1000) g`.execute(
        trx,
      );
      await sql`update stats_hourly_top set count = count + 1`.execute(trx);
      const r = await sql<{ hot: string; updated: string; pages: string }>`
        select pg_stat_get_xact_tuples_hot_updated('stats_hourly_top'::regclass) as hot,
          pg_stat_get_xact_tuples_updated('stats_hourly_top'::regclass) as updated,
          pg_relation_size('stats_hourly_top'::regclass) / current_setting('block_size')::int as pages`.execute(trx);
      return r.rows[0]!;
    });
    expect(Number(counts.updated)).toBe(1_000);
    expect(Number(counts.pages)).toBeGreaterThan(5);
    // At 100 % only the last, half-empty page has room: a tenth of the rows at most.
    expect(Number(counts.hot)).toBeGreaterThan(300);
    await handle.close();
  });
});
