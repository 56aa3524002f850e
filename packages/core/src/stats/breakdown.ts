import type { Database } from '@cordon/db';
import { ApiError, type StatsBreakdown, type StatsBreakdownQuery, type TimeRange } from '@cordon/shared';
import { type Kysely, type SqlBool, sql } from 'kysely';
import type { Caller, CoreDeps } from '../context.ts';
import { getMsp } from '../msps/index.ts';
import { type ListSort, listPage } from '../paging/index.ts';
import { customerInScope, scopeOf, type TenantScope } from '../tenancy/index.ts';
import { dailyRun, hourBounds } from './repository.ts';
import { rangeIn } from './service.ts';

const DAY_MS = 86_400_000;

/** What a breakdown counts: one roll-up dimension (`domain` or `category`) and key, and the actions summed. */
interface BreakdownTarget {
  dim: 'domain' | 'category';
  key: string;
  actions: string[];
}

/**
 * The roll-up key of a breakdown query: exactly one of `domain` or `category`; the history's action
 * groups (docs/api.md "History": `allowed` counts bypassed answers too).
 * @throws ApiError ERR_VALIDATION when neither or both are given
 */
function targetOf(query: StatsBreakdownQuery): BreakdownTarget {
  const hasDomain = query.domain !== undefined;
  const hasCategory = query.category !== undefined;
  if (hasDomain === hasCategory) {
    const message = 'Give either domain or category (one of them).';
    throw new ApiError('ERR_VALIDATION', message, { domain: message, category: message });
  }
  const actions =
    query.action === 'blocked'
      ? ['blocked']
      : query.action === 'allowed'
        ? ['allowed', 'bypassed']
        : ['allowed', 'blocked', 'bypassed'];
  return hasDomain
    ? { dim: 'domain', key: query.domain!, actions }
    : { dim: 'category', key: String(query.category), actions };
}

/** The whole compacted UTC days of `range` (epoch ms, a list for an index seek per day) and the other hours as runs. */
async function periodsOf(db: Kysely<Database>, range: TimeRange) {
  const h = hourBounds(range);
  const run = await dailyRun(db, {}, h);
  const days: number[] = [];
  if (run) for (let d = run.start; d < run.end; d += DAY_MS) days.push(d);
  const hours = (run ? [[h.from, run.start] as const, [run.end, h.to] as const] : [[h.from, h.to] as const]).filter(
    ([from, to]) => to > from,
  );
  return { days, hours };
}

/** A breakdown's order: the derived table `s` of `{ id, name, count }` (docs/api.md "Conventions"). */
const SORT: ListSort<string> = { columns: { count: 's.count', name: 's.name' }, text: ['s.name'], tiebreak: 's.id' };

type Row = { id: number; name: string; count: number | string };

/** One page of the `(id, count)` rows of `grouped`, named from `names`, sorted and paged, and their totals. */
async function page(
  db: Kysely<Database>,
  grouped: ReturnType<typeof groupedOf>,
  named: (g: ReturnType<typeof groupedOf>) => ReturnType<typeof namedCustomers>,
  query: StatsBreakdownQuery,
): Promise<StatsBreakdown> {
  const base = db.selectFrom(named(grouped).as('s')).selectAll('s');
  const [{ rows, total }, sum] = await Promise.all([
    listPage(base, query, SORT),
    db
      .selectFrom(named(grouped).as('s'))
      .select(sql<number | string>`coalesce(sum(s.count), 0)`.as('n'))
      .executeTakeFirstOrThrow(),
  ]);
  return {
    data: (rows as Row[]).map((r) => ({ id: Number(r.id), name: r.name, count: Number(r.count) })),
    total,
    count: Number(sum.n),
  };
}

/** `(id, count)` summed per id over the union of roll-up parts (`u.id`, `u.count`). */
function groupedOf(db: Kysely<Database>, parts: ReadonlyArray<ReturnType<typeof customerPart>>) {
  let u = parts[0]!;
  for (const p of parts.slice(1)) u = u.unionAll(p);
  return db
    .selectFrom(u.as('u'))
    .select(['u.id as id', sql<number | string>`sum(u.count)`.as('count')])
    .groupBy('u.id');
}

function namedCustomers(db: Kysely<Database>, g: ReturnType<typeof groupedOf>) {
  return db
    .selectFrom(g.as('g'))
    .innerJoin('customers', 'customers.id', 'g.id')
    .select(['customers.id as id', 'customers.account_name as name', 'g.count as count']);
}

function namedMsps(db: Kysely<Database>, g: ReturnType<typeof groupedOf>) {
  return db
    .selectFrom(g.as('g'))
    .innerJoin('msps', 'msps.id', 'g.id')
    .select(['msps.id as id', 'msps.name as name', 'g.count as count']);
}

/**
 * The `(customer id, count)` rows of `target` of the customers of MSP `mspId` in `scope` whose
 * `customers.timezone` is `zone`: the hours of `hours` from `stats_hourly_top`, or the days of
 * `days` from `stats_daily_top` (migrations 0019, 0022). The customers come as an IN subquery so
 * each is a seek of the primary key (customer, dim, hour range; a day list: customer, dim, day,
 * action, key): as a join, SQLite drove a day list through the `day` index, every customer's rows.
 */
function customerPart(
  db: Kysely<Database>,
  scope: TenantScope,
  mspId: number,
  zone: string,
  target: BreakdownTarget,
  period: { hours: readonly [number, number] } | { days: readonly number[] },
) {
  const customers = db
    .selectFrom('customers')
    .where(customerInScope(scope))
    .where('customers.msp_id', '=', mspId)
    .where('customers.timezone', '=', zone)
    .select('customers.id');
  if ('hours' in period) {
    return db
      .selectFrom('stats_hourly_top')
      .where('stats_hourly_top.customer_id', 'in', customers)
      .where('stats_hourly_top.dim', '=', target.dim)
      .where('stats_hourly_top.hour', '>=', period.hours[0])
      .where('stats_hourly_top.hour', '<', period.hours[1])
      .where('stats_hourly_top.action', 'in', target.actions)
      .where('stats_hourly_top.key', '=', target.key)
      .select(['stats_hourly_top.customer_id as id', 'stats_hourly_top.count as count']);
  }
  return db
    .selectFrom('stats_daily_top')
    .where('stats_daily_top.customer_id', 'in', customers)
    .where('stats_daily_top.dim', '=', target.dim)
    .where('stats_daily_top.day', 'in', period.days)
    .where('stats_daily_top.action', 'in', target.actions)
    .where('stats_daily_top.key', '=', target.key)
    .select(['stats_daily_top.customer_id as id', 'stats_daily_top.count as count']);
}

/**
 * `GET /msp/{id}/stats/breakdown` (issue 29 drill-down; docs/api.md "Stats"): which of MSP `mspId`'s
 * customers made the queries of one domain or category (with `action`) over `date`, their counts
 * summed from the per-customer roll-ups (`stats_daily_top` for compacted days, `stats_hourly_top`
 * for the other hours: never the query log), one page sorted by count or name. Each customer's
 * period is read in its own time zone (else UTC), as its history reads it, so a row's count is the
 * total its history shows with the same filters; customers without such queries are left out.
 * @throws ApiError ERR_NOT_FOUND when the caller cannot see MSP `mspId`; ERR_VALIDATION when
 *   neither or both of domain and category are given, or for a date out of range
 */
export async function mspBreakdown(
  deps: CoreDeps,
  caller: Caller,
  mspId: number,
  query: StatsBreakdownQuery,
): Promise<StatsBreakdown> {
  // The MSP first: a foreign MSP is a 404 whatever the query.
  const msp = await getMsp(deps, caller, mspId);
  const target = targetOf(query);
  const now = deps.now();
  // The date is checked once, in the MSP's zone: a bad one is a 400 whatever the customers.
  const fallback = rangeIn(msp.timezone || 'UTC', query.date, now, 'date');
  const scope = scopeOf(caller);
  const db = deps.handle.db;
  const zones = await db
    .selectFrom('customers')
    .where(customerInScope(scope))
    .where('customers.msp_id', '=', mspId)
    .select('customers.timezone')
    .distinct()
    .execute();
  const parts: Array<ReturnType<typeof customerPart>> = [];
  for (const { timezone } of zones) {
    let range: TimeRange;
    try {
      range = rangeIn(timezone || 'UTC', query.date, now, 'date');
    } catch {
      // A zone this runtime does not know: the MSP's (its customer's own stats would fail).
      range = fallback;
    }
    const { days, hours } = await periodsOf(db, range);
    for (const h of hours) parts.push(customerPart(db, scope, mspId, timezone, target, { hours: h }));
    if (days.length > 0) parts.push(customerPart(db, scope, mspId, timezone, target, { days }));
  }
  if (parts.length === 0) return { data: [], total: 0, count: 0 };
  return page(db, groupedOf(db, parts), (g) => namedCustomers(db, g), query);
}

/**
 * `GET /stats/breakdown` (issue 29 drill-down; docs/api.md "Stats"): which MSPs made the queries of
 * one domain or category over `date` in UTC (the system dashboard's days), summed from the per-MSP
 * roll-ups (`stats_daily_msp_top`, `stats_hourly_msp_top`, migrations 0022, 0033), one page sorted by
 * count or name. An MSP deleted since is left out. Only the whole deployment's scope reads rows.
 * @throws ApiError ERR_VALIDATION as {@link mspBreakdown}
 */
export async function systemBreakdown(
  deps: CoreDeps,
  caller: Caller,
  query: StatsBreakdownQuery,
): Promise<StatsBreakdown> {
  const target = targetOf(query);
  const range = rangeIn('UTC', query.date, deps.now(), 'date');
  const scope = scopeOf(caller);
  const db = deps.handle.db;
  const { days, hours } = await periodsOf(db, range);
  // The MSPs as an IN subquery: a primary-key seek per MSP (msp, dim, period…), as for customers.
  let msps = db.selectFrom('msps').select('msps.id');
  if (scope.kind === 'msp') msps = msps.where('msps.id', '=', scope.mspId);
  else if (scope.kind !== 'all') msps = msps.where(sql<SqlBool>`1 = 0`);
  const parts = [
    ...hours.map(([from, to]) =>
      db
        .selectFrom('stats_hourly_msp_top')
        .where('stats_hourly_msp_top.msp_id', 'in', msps)
        .where('stats_hourly_msp_top.dim', '=', target.dim)
        .where('stats_hourly_msp_top.hour', '>=', from)
        .where('stats_hourly_msp_top.hour', '<', to)
        .where('stats_hourly_msp_top.action', 'in', target.actions)
        .where('stats_hourly_msp_top.key', '=', target.key)
        .select(['stats_hourly_msp_top.msp_id as id', 'stats_hourly_msp_top.count as count']),
    ),
    ...(days.length > 0
      ? [
          db
            .selectFrom('stats_daily_msp_top')
            .where('stats_daily_msp_top.msp_id', 'in', msps)
            .where('stats_daily_msp_top.dim', '=', target.dim)
            .where('stats_daily_msp_top.day', 'in', days)
            .where('stats_daily_msp_top.action', 'in', target.actions)
            .where('stats_daily_msp_top.key', '=', target.key)
            .select(['stats_daily_msp_top.msp_id as id', 'stats_daily_msp_top.count as count']),
        ]
      : []),
  ] as unknown as Array<ReturnType<typeof customerPart>>;
  if (parts.length === 0) return { data: [], total: 0, count: 0 };
  return page(db, groupedOf(db, parts), (g) => namedMsps(db, g) as unknown as ReturnType<typeof namedCustomers>, query);
}
