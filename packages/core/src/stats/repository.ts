import type { Database } from '@cordon/db';
import type { StatsOverview, TimeRange } from '@cordon/shared';
import { type Expression, type Kysely, type SqlBool, sql } from 'kysely';
import { customerInScope, type TenantScope } from '../tenancy/index.ts';
import { hllAdd, hllCount, hllCreate, hllMerge } from './hll.ts';

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
export async function dailyRun(
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
 * subquery `u` for the caller to sum. A customer's or a location's only: an MSP or the system (no
 * customer) reads the per-MSP tables instead ({@link mspTopKeys}, {@link mspUniqueDomains}).
 */
async function top(db: Kysely<Database>, scope: TenantScope, subject: StatsSubject, range: TimeRange, dim: string) {
  const h = hourBounds(range);
  const run = await dailyRun(db, subject, h);
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

/** An MSP's or the system's read (no customer, no location): the per-MSP tables (migrations 0033, 0034). */
function isMspRead(subject: StatsSubject): boolean {
  return subject.customerId === undefined && subject.locationId === undefined;
}

type MspTable = 'stats_hourly_msp_top' | 'stats_daily_msp_top' | 'stats_msp_rank' | 'stats_msp_summary';

/**
 * The rows of a per-MSP table `scope` may read for `subject`: an MSP admin its MSP's, the system
 * (scope `all`) every MSP's, a customer login none (docs/api.md "Stats").
 */
function mspWhere(scope: TenantScope, subject: StatsSubject, table: MspTable) {
  return (eb: import('kysely').ExpressionBuilder<Database, MspTable>): Expression<SqlBool> => {
    const parts: Expression<SqlBool>[] = [];
    const col = `${table}.msp_id` as 'stats_msp_rank.msp_id';
    if (scope.kind === 'msp') parts.push(eb(col, '=', scope.mspId));
    else if (scope.kind !== 'all') parts.push(sql<SqlBool>`1 = 0`);
    if (subject.mspId !== undefined) parts.push(eb(col, '=', subject.mspId));
    return eb.and(parts);
  };
}

/** Sorted period starts `step` apart folded into contiguous `[from, to)` runs. */
function runsOf(starts: readonly number[], step: number): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (const s of starts) {
    const last = out[out.length - 1];
    if (last && last[1] === s) last[1] = s + step;
    else out.push([s, s + step]);
  }
  return out;
}

/**
 * How an MSP or system read over hour bounds `h` splits (migration 0034; docs/architecture.md
 * "Statistics"): the compacted days and ended hours summarized per MSP (`stats_msp_rank`,
 * `stats_msp_summary`), and the rest read row by row, as runs of days (`stats_daily_msp_top`) and of
 * hours (`stats_hourly_msp_top`).
 */
interface MspPlan {
  sumDays: number[];
  sumHours: number[];
  exactDays: Array<[number, number]>;
  exactHours: Array<[number, number]>;
}

async function mspPlan(
  db: Kysely<Database>,
  h: { from: number; to: number },
  run: { start: number; end: number } | null,
): Promise<MspPlan> {
  const days: number[] = [];
  if (run) for (let d = run.start; d < run.end; d += DAY_MS) days.push(d);
  const hours: number[] = [];
  for (const [from, to] of run ? [[h.from, run.start] as const, [run.end, h.to] as const] : [[h.from, h.to] as const])
    for (let t = from; t < to; t += HOUR_MS) hours.push(t);
  const done = await db
    .selectFrom('stats_msp_summary_done')
    .select(['hours', 'start'])
    .where((eb) =>
      eb.or([
        eb.and([eb('hours', '=', 24), eb('start', '>=', run?.start ?? 0), eb('start', '<', run?.end ?? 0)]),
        eb.and([eb('hours', '=', 1), eb('start', '>=', h.from), eb('start', '<', h.to)]),
      ]),
    )
    .execute();
  const isDone = new Set(done.map((r) => `${r.hours}:${Number(r.start)}`));
  return {
    sumDays: days.filter((d) => isDone.has(`24:${d}`)),
    sumHours: hours.filter((t) => isDone.has(`1:${t}`)),
    exactDays: runsOf(
      days.filter((d) => !isDone.has(`24:${d}`)),
      DAY_MS,
    ),
    exactHours: runsOf(
      hours.filter((t) => !isDone.has(`1:${t}`)),
      HOUR_MS,
    ),
  };
}

/** The per-MSP row tables (migrations 0022, 0033): the same columns but the period's, which is `hour` or `day`. */
type MspRowTable = 'stats_hourly_msp_top' | 'stats_daily_msp_top';

/** Each per-MSP row table's period column and period length in ms. */
const MSP_PERIOD: Record<MspRowTable, { column: 'hour' | 'day'; ms: number }> = {
  stats_hourly_msp_top: { column: 'hour', ms: HOUR_MS },
  stats_daily_msp_top: { column: 'day', ms: DAY_MS },
};

/**
 * The `(key, action, count)` rows of dimension `dim` of an MSP or the system in the run of periods
 * `[from, to)` (epoch ms, whole periods) of per-MSP table `table`, as one index range. `keys`
 * restricts the rows to those keys.
 */
function mspRunRows(
  db: Kysely<Database>,
  scope: TenantScope,
  subject: StatsSubject,
  table: MspRowTable,
  [from, to]: readonly [number, number],
  dim: string,
  keys?: readonly string[],
) {
  // Typed as the hourly table: the daily one has the same columns, `day` for `hour`.
  const t = table as 'stats_hourly_msp_top';
  const { column, ms } = MSP_PERIOD[table];
  const period = `${t}.${column}` as 'stats_hourly_msp_top.hour';
  let q = db
    .selectFrom(t)
    .where(mspWhere(scope, subject, t))
    .where(`${t}.dim`, '=', dim);
  // One period as an equality, so a key lookup seeks the whole primary key (action, key follow it).
  q = to - from === ms ? q.where(period, '=', from) : q.where(period, '>=', from).where(period, '<', to);
  if (keys) q = q.where(`${t}.key`, 'in', keys);
  return q.select([`${t}.key as key`, `${t}.action as action`, `${t}.count as count`]);
}

/**
 * The `(key, action, count)` rows of dimension `dim` of an MSP or the system over runs of days
 * (`stats_daily_msp_top`) and of hours (`stats_hourly_msp_top`, migration 0033), both with the MSP a
 * customer had when its rows were written (deleted customers included), as one UNION ALL subquery
 * `u` (each part one index range, {@link mspRunRows}), or null when both lists are empty. `keys`
 * restricts the rows to those keys.
 */
function mspRows(
  db: Kysely<Database>,
  scope: TenantScope,
  subject: StatsSubject,
  dayRuns: ReadonlyArray<readonly [number, number]>,
  hourRuns: ReadonlyArray<readonly [number, number]>,
  dim: string,
  keys?: readonly string[],
) {
  const parts = [
    ...hourRuns.map((r) => mspRunRows(db, scope, subject, 'stats_hourly_msp_top', r, dim, keys)),
    ...dayRuns.map((r) => mspRunRows(db, scope, subject, 'stats_daily_msp_top', r, dim, keys)),
  ];
  if (parts.length === 0) return null;
  let u = parts[0]!;
  for (const p of parts.slice(1)) u = u.unionAll(p);
  return db.selectFrom(u.as('u'));
}

/** The summarized periods of `plan` as a filter on a summary table's `(hours, start)`. */
function periodWhere(plan: MspPlan, table: 'stats_msp_rank' | 'stats_msp_summary') {
  return (eb: import('kysely').ExpressionBuilder<Database, typeof table>): Expression<SqlBool> => {
    const parts: Expression<SqlBool>[] = [];
    const hours = `${table}.hours` as 'stats_msp_rank.hours';
    const start = `${table}.start` as 'stats_msp_rank.start';
    for (const [from, to] of runsOf(plan.sumDays, DAY_MS))
      parts.push(eb.and([eb(hours, '=', 24), eb(start, '>=', from), eb(start, '<', to)]));
    for (const [from, to] of runsOf(plan.sumHours, HOUR_MS))
      parts.push(eb.and([eb(hours, '=', 1), eb(start, '>=', from), eb(start, '<', to)]));
    return parts.length > 0 ? eb.or(parts) : sql<SqlBool>`1 = 0`;
  };
}

/** Keys a top list may still have to count exactly before it falls back to summing every row. */
const MAX_CANDIDATES = 2000;
/** Key lookups (one per period and 500 keys it left out) before that fallback. */
const MAX_LOOKUPS = 400;
/** Keys of the periods not summarized (the current hour) a top list reads at once: as many as a summary ranks. */
const LIVE_KEYS = 200;

/**
 * The `limit` keys of dimension `dim` with the most queries of group `grp` for an MSP or the system,
 * exact (docs/decisions.md "MSP dashboards over many customers"). The summarized periods give each
 * key a lower bound (its counts where it is among a period's top keys) and an upper bound (plus the
 * largest count left out of each period's top keys where it is not); the other periods are read
 * whole. When the `limit`-th largest lower bound exceeds what a key absent from every top set can
 * reach, only the keys whose upper bound reaches it can be in the answer, and those are counted
 * exactly: their ranked counts plus a key lookup in the roll-ups of each period that left them out
 * (Fagin's threshold idea; R. Fagin, A. Lotem, M. Naor, "Optimal aggregation algorithms for
 * middleware", PODS 2001). Otherwise (or past {@link MAX_CANDIDATES} keys or {@link MAX_LOOKUPS}
 * lookups) every row of the range is summed as before.
 */
async function mspTopKeys(
  db: Kysely<Database>,
  scope: TenantScope,
  subject: StatsSubject,
  range: TimeRange,
  dim: string,
  grp: 'allowed' | 'blocked',
  limit: number,
): Promise<Array<{ key: string; count: number }>> {
  const h = hourBounds(range);
  const run = await dailyRun(db, subject, h);
  const plan = await mspPlan(db, h, run);
  const actions = grp === 'blocked' ? ['blocked'] : ['allowed', 'bypassed'];
  const total = sql<number>`sum(u.count)`;
  const order = (rows: Array<{ key: string; count: number }>) =>
    rows.sort((a, b) => b.count - a.count || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)).slice(0, limit);
  const whole = async () => {
    const days = runsOf(
      [...plan.sumDays, ...plan.exactDays.flatMap(([f, t]) => listOf(f, t, DAY_MS))].sort((a, b) => a - b),
      DAY_MS,
    );
    const hours = runsOf(
      [...plan.sumHours, ...plan.exactHours.flatMap(([f, t]) => listOf(f, t, HOUR_MS))].sort((a, b) => a - b),
      HOUR_MS,
    );
    const q = mspRows(db, scope, subject, days, hours, dim);
    if (!q) return [];
    const rows = await q
      .where('u.action', 'in', actions)
      .select(['u.key as key', total.as('count')])
      .groupBy('u.key')
      .orderBy(total, 'desc')
      .orderBy('u.key')
      .limit(limit)
      .execute();
    return rows.map((r) => ({ key: String(r.key), count: Number(r.count) }));
  };
  if (plan.sumDays.length + plan.sumHours.length === 0) return whole();
  const exact = new Map<string, number>();
  const exactQ = mspRows(db, scope, subject, plan.exactDays, plan.exactHours, dim);
  const [exactRows, summaries, ranked] = await Promise.all([
    exactQ
      ? exactQ
          .where('u.action', 'in', actions)
          .select(['u.key as key', total.as('count')])
          .groupBy('u.key')
          .orderBy(total, 'desc')
          .orderBy('u.key')
          .limit(LIVE_KEYS + 1)
          .execute()
      : Promise.resolve([]),
    db
      .selectFrom('stats_msp_summary')
      .where(mspWhere(scope, subject, 'stats_msp_summary'))
      .where(periodWhere(plan, 'stats_msp_summary'))
      .select(['msp_id', 'hours', 'start', 'rest_max'])
      .execute(),
    db
      .selectFrom('stats_msp_rank')
      .where(mspWhere(scope, subject, 'stats_msp_rank'))
      .where('stats_msp_rank.dim', '=', dim)
      .where('stats_msp_rank.grp', '=', grp)
      .where(periodWhere(plan, 'stats_msp_rank'))
      .select(['msp_id', 'hours', 'start', 'key', 'count'])
      .execute(),
  ]);
  // The periods not summarized (the current hour) are ranked the same way at read time: their top
  // keys, and the largest count left out as their bound.
  const liveRest = exactRows.length > LIVE_KEYS ? Number(exactRows[LIVE_KEYS]!.count) : 0;
  for (const r of exactRows.slice(0, LIVE_KEYS)) exact.set(String(r.key), Number(r.count));
  const part = `${dim}:${grp}`;
  const rest = new Map<string, number>();
  let unseen = liveRest;
  for (const s of summaries) {
    const m = Number((JSON.parse(s.rest_max) as Record<string, number>)[part] ?? 0);
    rest.set(`${s.msp_id}:${s.hours}:${Number(s.start)}`, m);
    unseen += m;
  }
  const lower = new Map(exact);
  const covered = new Map<string, number>();
  for (const k of exact.keys()) covered.set(k, liveRest);
  const rankedIn = new Map<string, Set<string>>();
  for (const r of ranked) {
    lower.set(r.key, (lower.get(r.key) ?? 0) + Number(r.count));
    const id = `${r.msp_id}:${r.hours}:${Number(r.start)}`;
    covered.set(r.key, (covered.get(r.key) ?? 0) + (rest.get(id) ?? 0));
    let set = rankedIn.get(id);
    if (!set) {
      set = new Set();
      rankedIn.set(id, set);
    }
    set.add(r.key);
  }
  if (unseen === 0) return order([...lower].map(([key, count]) => ({ key, count })));
  const lows = [...lower.values()].sort((a, b) => b - a);
  const bar = lows[limit - 1] ?? 0;
  if (unseen >= bar) return whole();
  const candidates = [...lower.keys()].filter((k) => lower.get(k)! + unseen - (covered.get(k) ?? 0) >= bar);
  if (candidates.length > MAX_CANDIDATES) return whole();
  // A candidate's count: its exact part and its counts where ranked (its lower bound), plus a key
  // lookup in each summarized period that left it out (a full primary-key seek per period).
  const counts = new Map<string, number>();
  for (const k of candidates) counts.set(k, lower.get(k)!);
  const lookups: Array<() => Promise<Array<{ key: string; count: number }>>> = [];
  for (const src of summaries) {
    const id = `${src.msp_id}:${src.hours}:${Number(src.start)}`;
    if ((rest.get(id) ?? 0) === 0) continue; // every key of that period is ranked
    const ranked = rankedIn.get(id);
    const missing = candidates.filter((k) => !ranked?.has(k));
    if (missing.length === 0) continue;
    const start = Number(src.start);
    const only: StatsSubject = { mspId: Number(src.msp_id) };
    for (let i = 0; i < missing.length; i += 500) {
      const q = mspRows(
        db,
        scope,
        only,
        src.hours === 24 ? [[start, start + DAY_MS]] : [],
        src.hours === 24 ? [] : [[start, start + HOUR_MS]],
        dim,
        missing.slice(i, i + 500),
      )!;
      lookups.push(() =>
        q
          .where('u.action', 'in', actions)
          .select(['u.key as key', total.as('count')])
          .groupBy('u.key')
          .execute()
          .then((rows) => rows.map((r) => ({ key: String(r.key), count: Number(r.count) }))),
      );
    }
  }
  const missingLive = liveRest === 0 ? [] : candidates.filter((k) => !exact.has(k));
  if (missingLive.length > 0) {
    const periods = [
      ...plan.exactDays.flatMap(([f, t]) =>
        listOf(f, t, DAY_MS).map((d) => ({ days: [[d, d + DAY_MS]] as const, hours: [] })),
      ),
      ...plan.exactHours.flatMap(([f, t]) =>
        listOf(f, t, HOUR_MS).map((h) => ({ days: [], hours: [[h, h + HOUR_MS]] as const })),
      ),
    ];
    for (const p of periods) {
      for (let i = 0; i < missingLive.length; i += 500) {
        const q = mspRows(db, scope, subject, p.days, p.hours, dim, missingLive.slice(i, i + 500))!;
        lookups.push(() =>
          q
            .where('u.action', 'in', actions)
            .select(['u.key as key', total.as('count')])
            .groupBy('u.key')
            .execute()
            .then((rows) => rows.map((r) => ({ key: String(r.key), count: Number(r.count) }))),
        );
      }
    }
  }
  if (lookups.length > MAX_LOOKUPS) return whole();
  for (const rows of await Promise.all(lookups.map((f) => f())))
    for (const r of rows) counts.set(r.key, counts.get(r.key)! + r.count);
  return order([...counts].map(([key, count]) => ({ key, count })));
}

function listOf(from: number, to: number, step: number): number[] {
  const out: number[] = [];
  for (let t = from; t < to; t += step) out.push(t);
  return out;
}

/**
 * The unique domains of an MSP or the system over `range`: the distinct `domain` keys counted
 * exactly while no period of the range is summarized, else estimated by the HyperLogLog sketches of
 * the summarized periods merged with the keys of the other periods (±1.15 % standard error; exact
 * in practice below a few hundred keys: {@link hllCount}).
 */
async function mspUniqueDomains(
  db: Kysely<Database>,
  scope: TenantScope,
  subject: StatsSubject,
  range: TimeRange,
): Promise<number> {
  const h = hourBounds(range);
  const run = await dailyRun(db, subject, h);
  const plan = await mspPlan(db, h, run);
  if (plan.sumDays.length + plan.sumHours.length === 0) {
    const q = mspRows(db, scope, subject, plan.exactDays, plan.exactHours, 'domain');
    if (!q) return 0;
    const n = await db
      .selectFrom(q.select('u.key').groupBy('u.key').as('g'))
      .select(sql<number>`count(*)`.as('n'))
      .executeTakeFirstOrThrow();
    return Number(n.n);
  }
  const exactQ = mspRows(db, scope, subject, plan.exactDays, plan.exactHours, 'domain');
  const [keys, sketches] = await Promise.all([
    exactQ ? exactQ.select('u.key as key').groupBy('u.key').execute() : Promise.resolve([]),
    db
      .selectFrom('stats_msp_summary')
      .where(mspWhere(scope, subject, 'stats_msp_summary'))
      .where(periodWhere(plan, 'stats_msp_summary'))
      .select('sketch')
      .execute(),
  ]);
  const sketch = hllCreate();
  for (const s of sketches) hllMerge(sketch, new Uint8Array(s.sketch));
  for (const k of keys) hllAdd(sketch, String(k.key));
  return hllCount(sketch);
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
    isMspRead(subject)
      ? mspUniqueDomains(db, scope, subject, range)
      : // The distinct keys counted over a GROUP BY: PostgreSQL hashes it, where `count(distinct)` sorts
        // every row first (2–3× slower over an MSP's millions of rows; bench/README.md "Traffic").
        top(db, scope, subject, range, 'domain').then(async (q) =>
          Number(
            (
              await db
                .selectFrom(q.select('u.key').groupBy('u.key').as('g'))
                .select(sql<number>`count(*)`.as('n'))
                .executeTakeFirstOrThrow()
            ).n,
          ),
        ),
  ]);
  const requests = Number(counts.requests);
  const blocked = Number(counts.blocked);
  return { requests, unique_domains: unique, allowed: requests - blocked, blocked };
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
  const rows = isMspRead(subject)
    ? await mspTopKeys(db, scope, subject, range, DIMENSION_OF[dim], action, limit)
    : await (await top(db, scope, subject, range, DIMENSION_OF[dim]))
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
