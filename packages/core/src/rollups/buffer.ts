import type { Database, QueryLogTable } from '@cordon/db';
import { MALWARE_CATEGORY_IDS, PHISHING_CATEGORY_IDS } from '@cordon/shared';
import { type Kysely, sql, type Transaction } from 'kysely';

/**
 * The `query_log` columns a fold reads (migration 0001, identity columns of 0029): what the roll-ups
 * count. `device_id`, `user_name` and `group_id` may be left out (null, empty name).
 */
export type FoldRow = Pick<
  QueryLogTable,
  'ts' | 'customer_id' | 'location_id' | 'policy_id' | 'client_ip' | 'qname' | 'action' | 'categories'
> & {
  device_id?: number | null;
  user_name?: string | null;
  group_id?: number | null;
};

const MALWARE_IDS = new Set(MALWARE_CATEGORY_IDS.map(String));
const PHISHING_IDS = new Set(PHISHING_CATEGORY_IDS.map(String));

/** One hour in ms: the roll-up bucket (docs/architecture.md "Statistics"). */
export const ROLLUP_HOUR_MS = 3_600_000;

/** The roll-up action of a logged action: `blocked`, `bypassed`, or `allowed` for every other one. */
export function rollupAction(action: string): 'allowed' | 'blocked' | 'bypassed' {
  return action === 'blocked' || action === 'bypassed' ? action : 'allowed';
}

/**
 * The `user` roll-up key of a query (docs/decisions.md "Query log identity"): `u:<user name>` when the
 * agent reported a known user, else `d:<device id>` for a device, else `ip:<client address>`. The
 * prefixes keep a user named like an address apart from that address; readers name `d:` keys from
 * the devices table, so a renamed device keeps its counts.
 */
export function userKey(row: { user_name?: string | null; device_id?: number | null; client_ip: string }): string {
  if (row.user_name) return `u:${row.user_name}`;
  if (row.device_id !== null && row.device_id !== undefined) return `d:${row.device_id}`;
  return `ip:${row.client_ip}`;
}

/**
 * The deltas one batch adds to `stats_hourly` and `stats_hourly_top` (migration 0019); the writers
 * derive the `stats_hourly_msp_top` deltas (migration 0033) from `top` when they apply them.
 */
export interface RollupDeltas {
  hourly: Array<Database['stats_hourly']>;
  top: Array<Database['stats_hourly_top']>;
}

/** The roll-up dimensions, in the order the deltas come out within a bucket. */
const DIMS = [
  'category',
  'domain',
  'group',
  'malware_domain',
  'malware_sourceip',
  'malware_user',
  'phishing_domain',
  'phishing_sourceip',
  'phishing_user',
  'policy',
  'sourceip',
  'user',
] as const;
const [CATEGORY, DOMAIN, GROUP, MAL_DOMAIN, MAL_IP, MAL_USER, PHI_DOMAIN, PHI_IP, PHI_USER, POLICY, SOURCEIP, USER] =
  DIMS.map((_, i) => i) as number[] as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
const ACTIONS = ['allowed', 'blocked', 'bypassed'] as const;
const actionIndex = (action: string) => (action === 'blocked' ? 1 : action === 'bypassed' ? 2 : 0);

/** One (customer, hour, location) bucket: its hourly counts and, per dimension × action, key → count. */
interface Bucket {
  row: Database['stats_hourly'];
  /**
   * Index `dim * 3 + action`; a map is made on its first key. Keys are the stored text but for the
   * `group` and `policy` ids, kept as numbers until {@link RollupBuffer.take} (no string per row).
   */
  top: Array<Map<string | number, number> | undefined>;
}

/**
 * Roll-up deltas gathered over a run of query-log rows (docs/architecture.md "Statistics"): per
 * customer, location (0 = none) and UTC hour the requests and actions, and per dimension and action
 * the count of each key — `domain` qname, `sourceip` client address, `user` ({@link userKey}),
 * `group` id (queries with a group), `policy` id, each `category` id of the comma list, and for a
 * query in a malware or phishing category `malware_*`/`phishing_*` by domain, source address and user
 * (spec-notes §3 "Report types"). Buckets are found by one map probe per row and keys counted in
 * per-dimension maps keyed by the raw key, so a row costs no string building but the user key.
 *
 * The worker's fold (rollups/fold.ts) {@link add}s the rows it reads past the watermark and
 * {@link take}s the deltas to upsert in the same transaction: folding many rows first collapses
 * repeated keys (a popular qname, a client), so far fewer roll-up rows are upserted than rows logged.
 */
export class RollupBuffer {
  /** customer → hour → location → bucket. */
  private buckets = new Map<number, Map<number, Map<number, Bucket>>>();

  /** Adds rows. */
  add(batch: readonly FoldRow[]): void {
    for (let i = 0; i < batch.length; i++) this.addRow(batch[i]!);
  }

  private bucket(customer: number, hour: number, loc: number): Bucket {
    let byHour = this.buckets.get(customer);
    if (byHour === undefined) {
      byHour = new Map();
      this.buckets.set(customer, byHour);
    }
    let byLoc = byHour.get(hour);
    if (byLoc === undefined) {
      byLoc = new Map();
      byHour.set(hour, byLoc);
    }
    let b = byLoc.get(loc);
    if (b === undefined) {
      b = {
        row: { customer_id: customer, location_id: loc, hour, requests: 0, allowed: 0, blocked: 0, bypassed: 0 },
        top: new Array(DIMS.length * 3),
      };
      byLoc.set(loc, b);
    }
    return b;
  }

  /** Counts `key` once in `top[i]` (`i` = dim × 3 + action). */
  private bump(top: Bucket['top'], i: number, key: string | number): void {
    let m = top[i];
    if (m === undefined) {
      m = new Map();
      top[i] = m;
    }
    m.set(key, (m.get(key) ?? 0) + 1);
  }

  private addRow(r: FoldRow): void {
    const ts = r.ts;
    const hour = ts - (((ts % ROLLUP_HOUR_MS) + ROLLUP_HOUR_MS) % ROLLUP_HOUR_MS);
    const b = this.bucket(r.customer_id, hour, r.location_id ?? 0);
    const a = actionIndex(r.action);
    const h = b.row;
    h.requests++;
    if (a === 0) h.allowed++;
    else if (a === 1) h.blocked++;
    else h.bypassed++;
    const top = b.top;
    this.bump(top, DOMAIN * 3 + a, r.qname);
    this.bump(top, SOURCEIP * 3 + a, r.client_ip);
    const user = userKey(r);
    this.bump(top, USER * 3 + a, user);
    if (r.group_id !== null && r.group_id !== undefined) this.bump(top, GROUP * 3 + a, r.group_id);
    if (r.policy_id !== null) this.bump(top, POLICY * 3 + a, r.policy_id);
    const cats = r.categories;
    if (cats !== '') {
      let malware = false;
      let phishing = false;
      if (cats.indexOf(',') < 0) {
        this.bump(top, CATEGORY * 3 + a, cats);
        malware = MALWARE_IDS.has(cats);
        phishing = PHISHING_IDS.has(cats);
      } else {
        for (const c of cats.split(',')) {
          this.bump(top, CATEGORY * 3 + a, c);
          if (MALWARE_IDS.has(c)) malware = true;
          if (PHISHING_IDS.has(c)) phishing = true;
        }
      }
      if (malware) {
        this.bump(top, MAL_DOMAIN * 3 + a, r.qname);
        this.bump(top, MAL_IP * 3 + a, r.client_ip);
        this.bump(top, MAL_USER * 3 + a, user);
      }
      if (phishing) {
        this.bump(top, PHI_DOMAIN * 3 + a, r.qname);
        this.bump(top, PHI_IP * 3 + a, r.client_ip);
        this.bump(top, PHI_USER * 3 + a, user);
      }
    }
  }

  /**
   * Takes the gathered deltas and empties the buffer. Rows come out in primary-key order
   * (`stats_hourly`: customer, hour, location; `stats_hourly_top`: customer, dim, hour, action, key,
   * location), so concurrent folds upsert in the same order (no deadlock on PostgreSQL).
   */
  take(): RollupDeltas {
    const hourly: Array<Database['stats_hourly']> = [];
    const top: Array<Database['stats_hourly_top']> = [];
    for (const customer of [...this.buckets.keys()].sort((x, y) => x - y)) {
      const byHour = this.buckets.get(customer)!;
      const hours = [...byHour.keys()].sort((x, y) => x - y);
      const buckets: Bucket[] = [];
      for (const hour of hours) {
        const byLoc = byHour.get(hour)!;
        for (const loc of [...byLoc.keys()].sort((x, y) => x - y)) {
          const b = byLoc.get(loc)!;
          hourly.push(b.row);
          buckets.push(b);
        }
      }
      // Per customer: dim, then hour, action, key, location (the buckets are in hour, location order).
      for (let d = 0; d < DIMS.length; d++) {
        const dim = DIMS[d]!;
        let i = 0;
        while (i < buckets.length) {
          const hour = buckets[i]!.row.hour;
          let j = i;
          while (j < buckets.length && buckets[j]!.row.hour === hour) j++;
          for (let a = 0; a < 3; a++) {
            const rows: Array<Database['stats_hourly_top']> = [];
            for (let k = i; k < j; k++) {
              const m = buckets[k]!.top[d * 3 + a];
              if (m === undefined) continue;
              const loc = buckets[k]!.row.location_id;
              for (const [key, count] of m)
                rows.push({
                  customer_id: customer,
                  location_id: loc,
                  hour,
                  dim,
                  action: ACTIONS[a]!,
                  key: typeof key === 'number' ? String(key) : key,
                  count,
                });
            }
            rows.sort((x, y) => (x.key < y.key ? -1 : x.key > y.key ? 1 : x.location_id - y.location_id));
            for (const t of rows) top.push(t);
          }
          i = j;
        }
      }
    }
    this.buckets = new Map();
    return { hourly, top };
  }
}

/** Folds a batch of query-log rows into hourly roll-up deltas (see {@link RollupBuffer}), keys in primary-key order. */
export function foldRollups(rows: readonly FoldRow[]): RollupDeltas {
  const b = new RollupBuffer();
  b.add(rows);
  return b.take();
}

/** Primary-key order of `stats_hourly_msp_top`: msp, dim, hour, action, key. */
function compareMspTop(x: Database['stats_hourly_msp_top'], y: Database['stats_hourly_msp_top']): number {
  if (x.msp_id !== y.msp_id) return x.msp_id - y.msp_id;
  if (x.dim !== y.dim) return x.dim < y.dim ? -1 : 1;
  if (x.hour !== y.hour) return x.hour - y.hour;
  if (x.action !== y.action) return x.action < y.action ? -1 : 1;
  return x.key < y.key ? -1 : x.key > y.key ? 1 : 0;
}

/**
 * The per-MSP hourly deltas of `top` (migration 0033 `stats_hourly_msp_top`): counts summed per MSP,
 * dimension, hour, action and key, the customer's MSP taken from `mspOf` (a customer missing there,
 * deleted meanwhile, is left out). Rows in primary-key order (msp, dim, hour, action, key), so
 * concurrent folds upsert in the same order. `top` in {@link RollupBuffer.take}'s order is one sorted
 * run per customer, which the sort merges; equal keys are then adjacent and summed in one pass.
 */
export function mspTopDeltas(
  top: readonly Database['stats_hourly_top'][],
  mspOf: ReadonlyMap<number, number>,
): Array<Database['stats_hourly_msp_top']> {
  const rows: Array<Database['stats_hourly_msp_top']> = [];
  for (const t of top) {
    const msp = mspOf.get(t.customer_id);
    if (msp !== undefined)
      rows.push({ msp_id: msp, hour: t.hour, dim: t.dim, action: t.action, key: t.key, count: t.count });
  }
  rows.sort(compareMspTop);
  let n = 0;
  for (const r of rows) {
    const last = n > 0 ? rows[n - 1]! : undefined;
    if (last !== undefined && compareMspTop(last, r) === 0) last.count += r.count;
    else rows[n++] = r;
  }
  rows.length = n;
  return rows;
}

/** The distinct customer ids of `top`, for the MSP lookup of {@link mspTopDeltas}. */
export function customersOf(top: readonly Database['stats_hourly_top'][]): number[] {
  const ids = new Set<number>();
  for (const t of top) ids.add(t.customer_id);
  return [...ids];
}

/** Rows per upsert statement on SQLite: 7 columns × 500 stays under its bind-parameter limit. */
const UPSERT_CHUNK = 500;

/**
 * Adds `deltas` to the roll-up tables (insert, or add to the existing counts). Each table's keys must
 * be unique within `deltas` (as {@link RollupBuffer.take} gives them): an upsert may not touch a row
 * twice. PostgreSQL: one statement per table, the columns passed as arrays and `unnest`ed (a handful
 * of parameters whatever the row count). SQLite: multi-row upserts of 500 rows.
 */
export async function applyRollups(
  db: Kysely<Database> | Transaction<Database>,
  deltas: RollupDeltas,
  dialect: 'sqlite' | 'postgres' = 'sqlite',
): Promise<void> {
  if (dialect === 'postgres') {
    const h = deltas.hourly;
    if (h.length > 0) {
      await sql`insert into stats_hourly (customer_id, location_id, hour, requests, allowed, blocked, bypassed)
        select * from unnest(${h.map((r) => r.customer_id)}::int[], ${h.map((r) => r.location_id)}::int[],
          ${h.map((r) => r.hour)}::bigint[], ${h.map((r) => r.requests)}::bigint[], ${h.map((r) => r.allowed)}::bigint[],
          ${h.map((r) => r.blocked)}::bigint[], ${h.map((r) => r.bypassed)}::bigint[])
        on conflict (customer_id, hour, location_id) do update set requests = stats_hourly.requests + excluded.requests,
          allowed = stats_hourly.allowed + excluded.allowed, blocked = stats_hourly.blocked + excluded.blocked,
          bypassed = stats_hourly.bypassed + excluded.bypassed`.execute(db);
    }
    const t = deltas.top;
    if (t.length > 0) {
      await sql`insert into stats_hourly_top (customer_id, location_id, hour, dim, action, key, count)
        select * from unnest(${t.map((r) => r.customer_id)}::int[], ${t.map((r) => r.location_id)}::int[],
          ${t.map((r) => r.hour)}::bigint[], ${t.map((r) => r.dim)}::text[], ${t.map((r) => r.action)}::text[],
          ${t.map((r) => r.key)}::text[], ${t.map((r) => r.count)}::bigint[])
        on conflict (customer_id, dim, hour, action, key, location_id)
        do update set count = stats_hourly_top.count + excluded.count`.execute(db);
      const m = mspTopDeltas(t, await mspsOf(db, customersOf(t)));
      if (m.length > 0) {
        await sql`insert into stats_hourly_msp_top (msp_id, hour, dim, action, key, count)
          select * from unnest(${m.map((r) => r.msp_id)}::int[], ${m.map((r) => r.hour)}::bigint[],
            ${m.map((r) => r.dim)}::text[], ${m.map((r) => r.action)}::text[], ${m.map((r) => r.key)}::text[],
            ${m.map((r) => r.count)}::bigint[])
          on conflict (msp_id, dim, hour, action, key)
          do update set count = stats_hourly_msp_top.count + excluded.count`.execute(db);
      }
    }
    return;
  }
  for (let i = 0; i < deltas.hourly.length; i += UPSERT_CHUNK) {
    await db
      .insertInto('stats_hourly')
      .values(deltas.hourly.slice(i, i + UPSERT_CHUNK))
      .onConflict((oc) =>
        oc.columns(['customer_id', 'hour', 'location_id']).doUpdateSet((eb) => ({
          requests: eb('stats_hourly.requests', '+', eb.ref('excluded.requests')),
          allowed: eb('stats_hourly.allowed', '+', eb.ref('excluded.allowed')),
          blocked: eb('stats_hourly.blocked', '+', eb.ref('excluded.blocked')),
          bypassed: eb('stats_hourly.bypassed', '+', eb.ref('excluded.bypassed')),
        })),
      )
      .execute();
  }
  for (let i = 0; i < deltas.top.length; i += UPSERT_CHUNK) {
    await db
      .insertInto('stats_hourly_top')
      .values(deltas.top.slice(i, i + UPSERT_CHUNK))
      .onConflict((oc) =>
        oc
          .columns(['customer_id', 'dim', 'hour', 'action', 'key', 'location_id'])
          .doUpdateSet((eb) => ({ count: eb('stats_hourly_top.count', '+', eb.ref('excluded.count')) })),
      )
      .execute();
  }
  const m = deltas.top.length > 0 ? mspTopDeltas(deltas.top, await mspsOf(db, customersOf(deltas.top))) : [];
  for (let i = 0; i < m.length; i += UPSERT_CHUNK) {
    await db
      .insertInto('stats_hourly_msp_top')
      .values(m.slice(i, i + UPSERT_CHUNK))
      .onConflict((oc) =>
        oc
          .columns(['msp_id', 'dim', 'hour', 'action', 'key'])
          .doUpdateSet((eb) => ({ count: eb('stats_hourly_msp_top.count', '+', eb.ref('excluded.count')) })),
      )
      .execute();
  }
}

/** customer id → MSP id of the customers `ids` (those that still exist). */
async function mspsOf(
  db: Kysely<Database> | Transaction<Database>,
  ids: readonly number[],
): Promise<Map<number, number>> {
  const out = new Map<number, number>();
  for (let i = 0; i < ids.length; i += UPSERT_CHUNK) {
    const rows = await db
      .selectFrom('customers')
      .select(['id', 'msp_id'])
      .where('id', 'in', ids.slice(i, i + UPSERT_CHUNK))
      .execute();
    for (const r of rows) out.set(Number(r.id), Number(r.msp_id));
  }
  return out;
}
