import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../dialect-kind.ts';

/**
 * `stats_hourly_msp_top`: `stats_hourly_top` summed per MSP (the customer's MSP when the row was
 * written) and hour, without customer or location, keyed by (msp_id, dim, hour, action, key). The
 * query-log writers add to it with the per-customer rows; MSP and system dashboards read its hours
 * instead of every customer's rows, and the daily job folds it into `stats_daily_msp_top`
 * (docs/architecture.md "Statistics"; bench/README.md "Traffic"). The `(dim, hour)` index serves the
 * system scope (every MSP of one dimension). The hours already rolled up are filled from
 * `stats_hourly_top` grouped by each customer's MSP now.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const bigint = dialect === 'postgres' ? 'bigint' : 'integer';
  await db.schema
    .createTable('stats_hourly_msp_top')
    .addColumn('msp_id', 'integer', (c) => c.notNull())
    .addColumn('hour', bigint, (c) => c.notNull())
    .addColumn('dim', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('count', bigint, (c) => c.notNull())
    .addPrimaryKeyConstraint('stats_hourly_msp_top_pk', ['msp_id', 'dim', 'hour', 'action', 'key'])
    .execute();
  await sql`create index stats_hourly_msp_top_dim_hour on stats_hourly_msp_top (dim, hour)`.execute(db);
  await sql`insert into stats_hourly_msp_top (msp_id, hour, dim, action, key, count)
    select c.msp_id, t.hour, t.dim, t.action, t.key, sum(t.count) from stats_hourly_top t
    join customers c on c.id = t.customer_id
    group by c.msp_id, t.hour, t.dim, t.action, t.key`.execute(db);
}
