import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../dialect-kind.ts';

const DAY_MS = 86_400_000;

/** `query_log_pYYYYMMDD`: the name of the daily partition of the UTC day starting at `dayStart` (epoch ms). */
export function queryLogPartitionName(dayStart: number): string {
  return `query_log_p${new Date(dayStart).toISOString().slice(0, 10).replace(/-/g, '')}`;
}

/**
 * Daily roll-ups of the top dimensions, and the PostgreSQL daily partitions of the query log.
 *
 * Both dialects: `stats_daily_top` holds `stats_hourly_top` summed per UTC day (`day`, epoch ms of its
 * start) without the location, and `stats_daily_msp_top` the same summed per MSP (the customer's MSP
 * at compaction time), written once a day has ended by the worker (`stats.daily`);
 * `stats_daily_done` lists the days compacted. Multi-day dashboards read whole compacted days there
 * and only the edge hours from `stats_hourly_top` (docs/architecture.md "Statistics").
 *
 * PostgreSQL only: `query_log` becomes a table partitioned by range of `ts`, one partition per UTC day
 * (`query_log_pYYYYMMDD`, created ahead by the worker; docs/architecture.md "Statistics") plus a
 * default partition for rows outside them, so retention drops whole days instead of deleting rows.
 * The primary key becomes (id, ts) (a partitioned table's keys must hold the partition key); ids keep
 * their sequence. Existing rows are copied into partitions of their days. SQLite keeps its table.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const bigint = dialect === 'postgres' ? 'bigint' : 'integer';
  await db.schema
    .createTable('stats_daily_top')
    .addColumn('customer_id', 'integer', (c) => c.notNull())
    .addColumn('day', bigint, (c) => c.notNull())
    .addColumn('dim', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('count', bigint, (c) => c.notNull())
    .addPrimaryKeyConstraint('stats_daily_top_pk', ['customer_id', 'dim', 'day', 'action', 'key'])
    .execute();
  await db.schema.createIndex('stats_daily_top_day').on('stats_daily_top').column('day').execute();
  await db.schema
    .createTable('stats_daily_msp_top')
    .addColumn('msp_id', 'integer', (c) => c.notNull())
    .addColumn('day', bigint, (c) => c.notNull())
    .addColumn('dim', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('count', bigint, (c) => c.notNull())
    .addPrimaryKeyConstraint('stats_daily_msp_top_pk', ['msp_id', 'dim', 'day', 'action', 'key'])
    .execute();
  await db.schema.createIndex('stats_daily_msp_top_day').on('stats_daily_msp_top').column('day').execute();
  await db.schema
    .createTable('stats_daily_done')
    .addColumn('day', bigint, (c) => c.primaryKey())
    .addColumn('done_at', bigint, (c) => c.notNull())
    .execute();
  if (dialect !== 'postgres') return;
  await sql`alter table query_log rename to query_log_old`.execute(db);
  await sql`alter table query_log_old rename constraint query_log_pkey to query_log_old_pkey`.execute(db);
  await sql`alter index query_log_customer_ts rename to query_log_old_customer_ts`.execute(db);
  await sql`create table query_log (
      id bigint not null default nextval('query_log_id_seq'),
      ts bigint not null,
      customer_id integer not null,
      location_id integer,
      policy_id integer,
      client_ip text not null,
      qname text not null,
      qtype text not null,
      protocol text not null,
      action text not null,
      reason text not null,
      categories text not null default '',
      rcode text not null,
      answer_source text not null,
      latency_us integer not null,
      primary key (id, ts)
    ) partition by range (ts)`.execute(db);
  await sql`alter sequence query_log_id_seq owned by query_log.id`.execute(db);
  await sql`create index query_log_customer_ts on query_log (customer_id, ts)`.execute(db);
  await sql`create table query_log_default partition of query_log default`.execute(db);
  const days = await sql<{ day: number }>`select distinct (ts - mod(ts, ${DAY_MS})) as day from query_log_old`.execute(
    db,
  );
  const today = Date.now() - (Date.now() % DAY_MS);
  const starts = new Set<number>(days.rows.map((r) => Number(r.day)));
  for (let i = -1; i <= 7; i++) starts.add(today + i * DAY_MS);
  for (const start of starts) {
    await sql`create table ${sql.id(queryLogPartitionName(start))} partition of query_log
      for values from (${sql.lit(start)}) to (${sql.lit(start + DAY_MS)})`.execute(db);
  }
  await sql`insert into query_log select id, ts, customer_id, location_id, policy_id, client_ip, qname, qtype, protocol,
      action, reason, categories, rcode, answer_source, latency_us from query_log_old`.execute(db);
  await sql`drop table query_log_old`.execute(db);
}
