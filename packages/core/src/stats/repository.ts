import type { Database } from '@cordon/db';
import type { StatsOverview, TimeRange } from '@cordon/shared';
import { type Expression, type Kysely, type SqlBool, sql } from 'kysely';
import { customerInScope, type TenantScope } from '../tenancy/index.ts';

/** One hour in ms: the roll-up bucket (migration 0019). */
export const HOUR_MS = 3_600_000;

/**
 * Whose traffic a stats read sums (docs/api.md "Stats"): one customer (optionally one of its
 * locations), the customers of one MSP, or every customer (`{}`), always within the caller's scope.
 */
export interface StatsSubject {
  customerId?: number;
  mspId?: number;
  locationId?: number;
}

/**
 * The roll-up hours of a range: `[floor(from), floor(to))` to the UTC hour. Exact for every time
 * zone whose offset is whole hours; a zone with a :30 or :45 offset has its days start at the UTC
 * hour holding its local midnight (docs/api.md "Stats").
 */
export function hourBounds(range: TimeRange): { from: number; to: number } {
  const floor = (t: number) => t - (((t % HOUR_MS) + HOUR_MS) % HOUR_MS);
  return { from: floor(range.from), to: floor(range.to) };
}

type RollupTable = 'stats_hourly' | 'stats_hourly_top' | 'stats_daily_top';

function subjectWhere(table: RollupTable, subject: StatsSubject, scope: TenantScope) {
  return (eb: import('kysely').ExpressionBuilder<Database, 'customers' | RollupTable>): Expression<SqlBool> => {
    const parts: Expression<SqlBool>[] = [customerInScope(scope)];
    if (subject.customerId !== undefined) parts.push(eb(`${table}.customer_id`, '=', subject.customerId));
    if (subject.mspId !== undefined) parts.push(eb('customers.msp_id', '=', subject.mspId));
    if (subject.locationId !== undefined && table !== 'stats_daily_top') {
      parts.push(eb(`${table}.location_id`, '=', subject.locationId));
    }
    return eb.and(parts);
  };
}

function hourly(db: Kysely<Database>, scope: TenantScope, subject: StatsSubject, range: TimeRange) {
  const h = hourBounds(range);
  return db
    .selectFrom('stats_hourly')
    .innerJoin('customers', 'customers.id', 'stats_hourly.customer_id')
    .where(subjectWhere('stats_hourly', subject, scope))
    .where('stats_hourly.hour', '>=', h.from)
    .where('stats_hourly.hour', '<', h.to);
}

const DAY_MS = 86_400_000;

/**
 * The whole UTC days of `[from, to)` (hour bounds) already compacted into `stats_daily_top`, as one
 * contiguous run `[start, end)` (the first run found), or null. A location's stats never use it (the
 * daily table has no location).
 */
async function dailyRun(
  db: Kysely<Database>,
  subject: StatsSubject,
  h: { from: number; to: number },
): Promise<{ start: number; end: number } | null> {
  if (subject.locationId !== undefined) return null;
  const firstDay = Math.ceil(h.from / DAY_MS) * DAY_MS;
  const lastEnd = Math.floor(h.to / DAY_MS) * DAY_MS;
  if (lastEnd - firstDay < DAY_MS) return null;
  const rows = await db
    .selectFrom('stats_daily_done')
    .select('day')
    .where('day', '>=', firstDay)
    .where('day', '<', lastEnd)
    .orderBy('day')
    .execute();
  if (rows.length === 0) return null;
  const start = Number(rows[0]!.day);
  let end = start + DAY_MS;
  for (const r of rows.slice(1)) {
    if (Number(r.day) !== end) break;
    end += DAY_MS;
  }
  return { start, end };
}

/**
 * The `(key, action, count)` rows of dimension `dim` over `range`: whole compacted UTC days from
 * `stats_daily_top`, the other hours from `stats_hourly_top` (migration 0022), as one UNION ALL
 * subquery `u` for the caller to sum. An MSP or the system (no customer) reads the per-MSP tables
 * instead ({@link mspTop}).
 */
async function top(db: Kysely<Database>, scope: TenantScope, subject: StatsSubject, range: TimeRange, dim: string) {
  const h = hourBounds(range);
  const run = await dailyRun(db, subject, h);
  if (subject.customerId === undefined && subject.locationId === undefined)
    return mspTop(db, scope, subject, h, run, dim);
  // Each part is one index range (customer, dim, hour/day): no OR over the hours.
  const hourly = (from: number, to: number) =>
    db
      .selectFrom('stats_hourly_top')
      .innerJoin('customers', 'customers.id', 'stats_hourly_top.customer_id')
      .where(subjectWhere('stats_hourly_top', subject, scope))
      .where('stats_hourly_top.dim', '=', dim)
      .where('stats_hourly_top.hour', '>=', from)
      .where('stats_hourly_top.hour', '<', to)
      .select(['stats_hourly_top.key as key', 'stats_hourly_top.action as action', 'stats_hourly_top.count as count']);
  if (run === null) return db.selectFrom(hourly(h.from, h.to).as('u'));
  const daily = db
    .selectFrom('stats_daily_top')
    .innerJoin('customers', 'customers.id', 'stats_daily_top.customer_id')
    .where(subjectWhere('stats_daily_top', subject, scope))
    .where('stats_daily_top.dim', '=', dim)
    .where('stats_daily_top.day', '>=', run.start)
    .where('stats_daily_top.day', '<', run.end)
    .select(['stats_daily_top.key as key', 'stats_daily_top.action as action', 'stats_daily_top.count as count']);
  return db.selectFrom(hourly(h.from, run.start).unionAll(hourly(run.end, h.to)).unionAll(daily).as('u'));
}

/**
 * {@link top} of an MSP or the system: the per-MSP sums, `stats_hourly_msp_top` for the hours
 * (migration 0033) and `stats_daily_msp_top` for whole compacted days, both with the MSP a
 * customer had when its rows were written (deleted customers included). An MSP admin sees its MSP's
 * rows, the system every MSP's (their sum), a customer login none.
 */
function mspTop(
  db: Kysely<Database>,
  scope: TenantScope,
  subject: StatsSubject,
  h: { from: number; to: number },
  run: { start: number; end: number } | null,
  dim: string,
) {
  const mspWhere =
    (table: 'stats_hourly_msp_top' | 'stats_daily_msp_top') =>
    (eb: import('kysely').ExpressionBuilder<Database, typeof table>): Expression<SqlBool> => {
      const parts: Expression<SqlBool>[] = [];
      if (scope.kind === 'msp') parts.push(eb(`${table}.msp_id`, '=', scope.mspId));
      else if (scope.kind !== 'all') parts.push(sql<SqlBool>`1 = 0`);
      if (subject.mspId !== undefined) parts.push(eb(`${table}.msp_id`, '=', subject.mspId));
      return eb.and(parts);
    };
  const hourly = (from: number, to: number) =>
    db
      .selectFrom('stats_hourly_msp_top')
      .where(mspWhere('stats_hourly_msp_top'))
      .where('stats_hourly_msp_top.dim', '=', dim)
      .where('stats_hourly_msp_top.hour', '>=', from)
      .where('stats_hourly_msp_top.hour', '<', to)
      .select([
        'stats_hourly_msp_top.key as key',
        'stats_hourly_msp_top.action as action',
        'stats_hourly_msp_top.count as count',
      ]);
  if (run === null) return db.selectFrom(hourly(h.from, h.to).as('u'));
  const daily = db
    .selectFrom('stats_daily_msp_top')
    .where(mspWhere('stats_daily_msp_top'))
    .where('stats_daily_msp_top.dim', '=', dim)
    .where('stats_daily_msp_top.day', '>=', run.start)
    .where('stats_daily_msp_top.day', '<', run.end)
    .select([
      'stats_daily_msp_top.key as key',
      'stats_daily_msp_top.action as action',
      'stats_daily_msp_top.count as count',
    ]);
  return db.selectFrom(hourly(h.from, run.start).unionAll(hourly(run.end, h.to)).unionAll(daily).as('u'));
}

/**
 * The overview over `range` from the roll-ups: requests, unique domains (distinct qnames over the
 * range's hours), blocked (action `blocked`) and allowed (the rest: a bypassed query was answered).
 */
export async function overview(
  db: Kysely<Database>,
  scope: TenantScope,
  subject: StatsSubject,
  range: TimeRange,
): Promise<StatsOverview> {
  const [counts, unique] = await Promise.all([
    hourly(db, scope, subject, range)
      .select([
        sql<number>`coalesce(sum(stats_hourly.requests), 0)`.as('requests'),
        sql<number>`coalesce(sum(stats_hourly.blocked), 0)`.as('blocked'),
      ])
      .executeTakeFirstOrThrow(),
    // The distinct keys counted over a GROUP BY: PostgreSQL hashes it, where `count(distinct)` sorts
    // every row first (2–3× slower over an MSP's millions of rows; bench/README.md "Traffic").
    top(db, scope, subject, range, 'domain').then((q) =>
      db
        .selectFrom(q.select('u.key').groupBy('u.key').as('g'))
        .select(sql<number>`count(*)`.as('n'))
        .executeTakeFirstOrThrow(),
    ),
  ]);
  const requests = Number(counts.requests);
  const blocked = Number(counts.blocked);
  return { requests, unique_domains: Number(unique.n), allowed: requests - blocked, blocked };
}

/** Requests and blocked per roll-up hour over `range` (only the hours with traffic), keyed by the hour's epoch ms. */
export async function countsByHour(
  db: Kysely<Database>,
  scope: TenantScope,
  subject: StatsSubject,
  range: TimeRange,
): Promise<Map<number, { requests: number; blocked: number }>> {
  const rows = await hourly(db, scope, subject, range)
    .select([
      'stats_hourly.hour as hour',
      sql<number>`sum(stats_hourly.requests)`.as('requests'),
      sql<number>`sum(stats_hourly.blocked)`.as('blocked'),
    ])
    .groupBy('stats_hourly.hour')
    .execute();
  return new Map(rows.map((r) => [Number(r.hour), { requests: Number(r.requests), blocked: Number(r.blocked) }]));
}

/**
 * The roll-up dimension of a top list: `categories` → `category`, `domains` → `domain`, `users` →
 * `user` (the user name when known, else the device, else the client address: docs/decisions.md
 * "Query log identity").
 */
export const DIMENSION_OF = { categories: 'category', domains: 'domain', users: 'user' } as const;

/**
 * The display names of `user` roll-up keys (migration 0029): `u:<name>` → the name, `ip:<address>` →
 * the address, `d:<device id>` → the device's name, read from the devices of customers `scope` may
 * see (a device deleted, or out of scope, keeps `device <id>`).
 */
export async function userKeyNames(
  db: Kysely<Database>,
  scope: TenantScope,
  keys: readonly string[],
): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const deviceIds: number[] = [];
  for (const key of keys) {
    if (key.startsWith('u:')) out.set(key, key.slice(2));
    else if (key.startsWith('ip:')) out.set(key, key.slice(3));
    else if (key.startsWith('d:')) {
      const id = Number(key.slice(2));
      out.set(key, `device ${key.slice(2)}`);
      if (Number.isSafeInteger(id)) deviceIds.push(id);
    }
  }
  if (deviceIds.length > 0) {
    const rows = await db
      .selectFrom('devices')
      .innerJoin('customers', 'customers.id', 'devices.customer_id')
      .where(customerInScope(scope))
      .where('devices.id', 'in', deviceIds)
      .select(['devices.id', 'devices.name'])
      .execute();
    for (const d of rows) out.set(`d:${d.id}`, d.name);
  }
  return out;
}

/**
 * The `limit` keys of dimension `dim` with the most queries of `action` over `range`, most first
 * (ties by key); `allowed` counts `allowed` and `bypassed` rows. Category keys carry their names.
 */
export async function topKeys(
  db: Kysely<Database>,
  scope: TenantScope,
  subject: StatsSubject,
  range: TimeRange,
  dim: keyof typeof DIMENSION_OF,
  action: 'allowed' | 'blocked',
  limit: number,
): Promise<Array<{ key: string; name: string; count: number }>> {
  const total = sql<number>`sum(u.count)`;
  const rows = await (await top(db, scope, subject, range, DIMENSION_OF[dim]))
    .where('u.action', 'in', action === 'blocked' ? ['blocked'] : ['allowed', 'bypassed'])
    .select(['u.key as key', total.as('count')])
    .groupBy('u.key')
    .orderBy(total, 'desc')
    .orderBy('u.key')
    .limit(limit)
    .execute();
  let names = new Map<string, string>();
  if (dim === 'users' && rows.length > 0) {
    names = await userKeyNames(
      db,
      scope,
      rows.map((r) => String(r.key)),
    );
  }
  if (dim === 'categories' && rows.length > 0) {
    const ids = rows.map((r) => Number(r.key)).filter((n) => Number.isInteger(n));
    if (ids.length > 0) {
      const cats = await db.selectFrom('categories').select(['id', 'name']).where('id', 'in', ids).execute();
      for (const c of cats) names.set(String(c.id), c.name);
    }
  }
  return rows.map((r) => ({
    key: String(r.key),
    name: names.get(String(r.key)) ?? String(r.key),
    count: Number(r.count),
  }));
}

/** The location `locationId` of customer `customerId`, when `scope` may see that customer. */
export async function locationVisible(
  db: Kysely<Database>,
  scope: TenantScope,
  customerId: number,
  locationId: number,
): Promise<boolean> {
  const row = await db
    .selectFrom('locations')
    .innerJoin('customers', 'customers.id', 'locations.customer_id')
    .select('locations.id')
    .where(customerInScope(scope))
    .where('locations.customer_id', '=', customerId)
    .where('locations.id', '=', locationId)
    .executeTakeFirst();
  return row !== undefined;
}
