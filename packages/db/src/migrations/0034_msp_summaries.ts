import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../dialect-kind.ts';

/**
 * Summaries of the per-MSP roll-ups for MSP and system dashboards over many customers
 * (docs/architecture.md "Statistics"; docs/decisions.md "MSP dashboards over many customers"), one
 * per MSP and period, a period being a compacted UTC day (`hours` 24, from `stats_daily_msp_top`) or
 * an ended UTC hour not yet compacted (`hours` 1, from `stats_hourly_msp_top`), written by the worker's
 * `stats.daily` job:
 *
 * - `stats_msp_rank`: the top keys of the `category`, `domain` and `user` dimensions per group
 *   (`allowed` = actions allowed and bypassed, `blocked`), at most 200 per (MSP, period, dimension,
 *   group), with their exact counts.
 * - `stats_msp_summary`: per MSP and period, the HyperLogLog sketch of its `domain` keys (`sketch`,
 *   8,192 bytes) and, as a JSON object `"<dim>:<group>" → count`, the largest count of a key left out
 *   of `stats_msp_rank` (0 when every key is there), which bounds what a missing key can add.
 * - `stats_msp_summary_done`: the periods summarized for every MSP (an MSP without a row had no traffic).
 *
 * Hourly summaries go when their day is compacted; retention removes the daily ones with the roll-ups.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const bigint = dialect === 'postgres' ? 'bigint' : 'integer';
  const bytes = dialect === 'postgres' ? 'bytea' : 'blob';
  await db.schema
    .createTable('stats_msp_rank')
    .addColumn('msp_id', 'integer', (c) => c.notNull())
    .addColumn('hours', 'integer', (c) => c.notNull())
    .addColumn('start', bigint, (c) => c.notNull())
    .addColumn('dim', 'text', (c) => c.notNull())
    .addColumn('grp', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('count', bigint, (c) => c.notNull())
    .addPrimaryKeyConstraint('stats_msp_rank_pk', ['msp_id', 'dim', 'grp', 'hours', 'start', 'key'])
    .execute();
  await sql`create index stats_msp_rank_dim on stats_msp_rank (dim, grp, hours, start)`.execute(db);
  await db.schema
    .createTable('stats_msp_summary')
    .addColumn('msp_id', 'integer', (c) => c.notNull())
    .addColumn('hours', 'integer', (c) => c.notNull())
    .addColumn('start', bigint, (c) => c.notNull())
    .addColumn('sketch', bytes, (c) => c.notNull())
    .addColumn('rest_max', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('stats_msp_summary_pk', ['msp_id', 'hours', 'start'])
    .execute();
  await sql`create index stats_msp_summary_period on stats_msp_summary (hours, start)`.execute(db);
  await db.schema
    .createTable('stats_msp_summary_done')
    .addColumn('hours', 'integer', (c) => c.notNull())
    .addColumn('start', bigint, (c) => c.notNull())
    .addColumn('done_at', bigint, (c) => c.notNull())
    .addPrimaryKeyConstraint('stats_msp_summary_done_pk', ['hours', 'start'])
    .execute();
}
