import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../dialect-kind.ts';

/**
 * Hourly roll-ups of the query log (docs/architecture.md "Statistics"), maintained by the query-log
 * writer in the same transaction as the raw rows it inserts, so the dashboards and reports never scan
 * `query_log`:
 *
 * - `stats_hourly`: per customer, location (0 = none) and UTC hour (`hour`, epoch ms of the hour's
 *   start): requests and the count per action — `blocked`, `bypassed`, and `allowed` (every other
 *   action).
 * - `stats_hourly_top`: per customer, location, hour, dimension (`category` id, `domain` qname,
 *   `sourceip` client address, `policy` id), action (`allowed`, `blocked`, `bypassed`) and key: the
 *   number of queries. A day's unique domains are the distinct `domain` keys of its hours.
 *
 * Rows already logged are rolled up here once, in batches.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const bigint = dialect === 'postgres' ? 'bigint' : 'integer';
  await db.schema
    .createTable('stats_hourly')
    .addColumn('customer_id', 'integer', (c) => c.notNull())
    .addColumn('location_id', 'integer', (c) => c.notNull())
    .addColumn('hour', bigint, (c) => c.notNull())
    .addColumn('requests', bigint, (c) => c.notNull())
    .addColumn('allowed', bigint, (c) => c.notNull())
    .addColumn('blocked', bigint, (c) => c.notNull())
    .addColumn('bypassed', bigint, (c) => c.notNull())
    .addPrimaryKeyConstraint('stats_hourly_pk', ['customer_id', 'hour', 'location_id'])
    .execute();
  await db.schema.createIndex('stats_hourly_hour').on('stats_hourly').column('hour').execute();
  await db.schema
    .createTable('stats_hourly_top')
    .addColumn('customer_id', 'integer', (c) => c.notNull())
    .addColumn('location_id', 'integer', (c) => c.notNull())
    .addColumn('hour', bigint, (c) => c.notNull())
    .addColumn('dim', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('count', bigint, (c) => c.notNull())
    .addPrimaryKeyConstraint('stats_hourly_top_pk', ['customer_id', 'dim', 'hour', 'action', 'key', 'location_id'])
    .execute();
  await db.schema.createIndex('stats_hourly_top_hour').on('stats_hourly_top').column('hour').execute();

  // Backfill: the rows logged before this migration, folded into the same two tables in pages of
  // 5,000 rows; the folded counts are added to the tables whenever 100,000 keys wait (bounded memory).
  const HOUR = 3_600_000;
  const MALWARE = new Set(['1', '6']);
  const PHISHING = new Set(['5']);
  let hourly = new Map<string, [number, number, number, number, number, number, number]>();
  let top = new Map<string, [number, number, number, string, string, string, number]>();
  const chunk = <T>(all: T[], n: number): T[][] => {
    const out: T[][] = [];
    for (let i = 0; i < all.length; i += n) out.push(all.slice(i, i + n));
    return out;
  };
  const flush = async () => {
    for (const part of chunk([...hourly.values()], 500)) {
      await sql`insert into stats_hourly (customer_id, location_id, hour, requests, allowed, blocked, bypassed) values ${sql.join(
        part.map((v) => sql`(${sql.join(v)})`),
      )} on conflict (customer_id, hour, location_id) do update set requests = stats_hourly.requests + excluded.requests,
        allowed = stats_hourly.allowed + excluded.allowed, blocked = stats_hourly.blocked + excluded.blocked,
        bypassed = stats_hourly.bypassed + excluded.bypassed`.execute(db);
    }
    for (const part of chunk([...top.values()], 500)) {
      await sql`insert into stats_hourly_top (customer_id, location_id, hour, dim, action, key, count) values ${sql.join(
        part.map((v) => sql`(${sql.join(v)})`),
      )} on conflict (customer_id, dim, hour, action, key, location_id) do update set count = stats_hourly_top.count + excluded.count`.execute(
        db,
      );
    }
    hourly = new Map();
    top = new Map();
  };
  let lastId = 0;
  for (;;) {
    const rows = (
      await sql<{
        id: number;
        ts: number;
        customer_id: number;
        location_id: number | null;
        policy_id: number | null;
        client_ip: string;
        qname: string;
        action: string;
        categories: string;
      }>`select id, ts, customer_id, location_id, policy_id, client_ip, qname, action, categories
         from query_log where id > ${lastId} order by id limit 5000`.execute(db)
    ).rows;
    if (rows.length === 0) break;
    for (const r of rows) {
      lastId = Number(r.id);
      const ts = Number(r.ts);
      const hour = ts - (((ts % HOUR) + HOUR) % HOUR);
      const loc = r.location_id ?? 0;
      const action = r.action === 'blocked' || r.action === 'bypassed' ? r.action : 'allowed';
      const hk = `${r.customer_id}|${loc}|${hour}`;
      const h = hourly.get(hk) ?? [r.customer_id, loc, hour, 0, 0, 0, 0];
      h[3]++;
      h[action === 'allowed' ? 4 : action === 'blocked' ? 5 : 6]++;
      hourly.set(hk, h);
      const keys: Array<[string, string]> = [
        ['domain', r.qname],
        ['sourceip', r.client_ip],
      ];
      if (r.policy_id !== null) keys.push(['policy', String(r.policy_id)]);
      const cats = r.categories ? r.categories.split(',') : [];
      for (const c of cats) keys.push(['category', c]);
      if (cats.some((c) => MALWARE.has(c))) keys.push(['malware_domain', r.qname], ['malware_sourceip', r.client_ip]);
      if (cats.some((c) => PHISHING.has(c)))
        keys.push(['phishing_domain', r.qname], ['phishing_sourceip', r.client_ip]);
      for (const [dim, key] of keys) {
        const tk = `${hk}|${dim}|${action}|${key}`;
        const t = top.get(tk) ?? [r.customer_id, loc, hour, dim, action, key, 0];
        t[6]++;
        top.set(tk, t);
      }
    }
    if (top.size >= 100_000) await flush();
  }
  await flush();
}
