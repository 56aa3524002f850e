import type { Database } from '@cordon/db';
import {
  ApiError,
  calendarDay,
  type Report,
  type ReportCode,
  reportByCode,
  type TimeRange,
  zonedDate,
  zonedMidnight,
} from '@cordon/shared';
import { type Kysely, sql } from 'kysely';
import type { Caller, CoreDeps } from '../context.ts';
import { getCustomer } from '../customers/index.ts';
import { rangeIn, userKeyNames } from '../stats/index.ts';
import { customerInScope, scopeOf, type TenantScope } from '../tenancy/index.ts';

const HOUR_MS = 3_600_000;
/** The longest report span, days. */
export const REPORT_MAX_DAYS = 400;

/** A report's local days and their instants. */
export interface ReportPeriod {
  start: string;
  end: string;
  range: TimeRange;
}

/** The period of local days `start`–`end` in `timeZone` (both included). */
export function periodOf(timeZone: string, start: string, end: string): ReportPeriod {
  const [y1, m1, d1] = start.split('-').map(Number) as [number, number, number];
  const [y2, m2, d2] = end.split('-').map(Number) as [number, number, number];
  return {
    start,
    end,
    range: { from: zonedMidnight(timeZone, y1, m1, d1), to: zonedMidnight(timeZone, y2, m2, d2 + 1) },
  };
}

/** Today as `YYYY-MM-DD` in `timeZone`, shifted by `days`. */
export function localDay(timeZone: string, now: number, days = 0): string {
  const t = zonedDate(timeZone, now);
  return calendarDay(t.year, t.month, t.day + days);
}

/**
 * The period of a report request: `start`/`end` default to the 7 days up to today; both are
 * checked as stats dates (between 2000-01-01 and tomorrow), start ≤ end, at most
 * {@link REPORT_MAX_DAYS} days.
 * @throws ApiError ERR_VALIDATION naming `start` or `end`
 */
export function requestedPeriod(timeZone: string, now: number, start?: string, end?: string): ReportPeriod {
  const s = start ?? localDay(timeZone, now, -6);
  const e = end ?? localDay(timeZone, now);
  rangeIn(timeZone, s, now, 'start');
  rangeIn(timeZone, e, now, 'end');
  if (s > e)
    throw new ApiError('ERR_VALIDATION', 'start must not be after end.', { start: 'start must not be after end.' });
  const p = periodOf(timeZone, s, e);
  if (p.range.to - p.range.from > (REPORT_MAX_DAYS + 1) * 86_400_000) {
    const message = `start and end may be at most ${REPORT_MAX_DAYS} days apart.`;
    throw new ApiError('ERR_VALIDATION', message, { end: message });
  }
  return p;
}

const floorHour = (t: number) => t - (((t % HOUR_MS) + HOUR_MS) % HOUR_MS);

/**
 * The roll-up `dim` of a report dimension: a user is the internal user, else the device, else the
 * source address (docs/decisions.md "Query log identity"); a group counts the queries of users with one.
 */
const TOP_DIM: Record<string, string> = {
  user: 'user',
  group: 'group',
  sourceip: 'sourceip',
  category: 'category',
  domain: 'domain',
  url: 'domain',
  policy: 'policy',
  malware_sourceip: 'malware_sourceip',
  malware_domain: 'malware_domain',
  malware_user: 'malware_user',
  phishing_sourceip: 'phishing_sourceip',
  phishing_domain: 'phishing_domain',
  phishing_user: 'phishing_user',
};

const allowedSum = sql<number>`sum(case when stats_hourly_top.action <> 'blocked' then stats_hourly_top.count else 0 end)`;
const blockedSum = sql<number>`sum(case when stats_hourly_top.action = 'blocked' then stats_hourly_top.count else 0 end)`;

async function topRows(
  db: Kysely<Database>,
  scope: TenantScope,
  customerId: number,
  range: TimeRange,
  dim: string,
  blockedOnly: boolean,
  limit: number,
) {
  const base = db
    .selectFrom('stats_hourly_top')
    .innerJoin('customers', 'customers.id', 'stats_hourly_top.customer_id')
    .where(customerInScope(scope))
    .where('stats_hourly_top.customer_id', '=', customerId)
    .where('stats_hourly_top.dim', '=', dim)
    .where('stats_hourly_top.hour', '>=', floorHour(range.from))
    .where('stats_hourly_top.hour', '<', floorHour(range.to))
    .$if(blockedOnly, (q) => q.where('stats_hourly_top.action', '=', 'blocked'));
  const order = blockedOnly ? blockedSum : sql<number>`sum(stats_hourly_top.count)`;
  const [rows, total] = await Promise.all([
    base
      .select(['stats_hourly_top.key as key', allowedSum.as('allowed'), blockedSum.as('blocked')])
      .groupBy('stats_hourly_top.key')
      .orderBy(order, 'desc')
      .orderBy('stats_hourly_top.key')
      .limit(limit)
      .execute(),
    base.select(sql<number>`coalesce(sum(stats_hourly_top.count), 0)`.as('n')).executeTakeFirstOrThrow(),
  ]);
  return {
    total: Number(total.n),
    rows: rows.map((r) => ({ key: String(r.key), allowed: Number(r.allowed), blocked: Number(r.blocked) })),
  };
}

async function namesOf(
  db: Kysely<Database>,
  scope: TenantScope,
  dim: string,
  customerId: number,
  keys: string[],
): Promise<Map<string, string>> {
  if (dim === 'user' || dim === 'malware_user' || dim === 'phishing_user') return userKeyNames(db, scope, keys);
  const ids = keys.map(Number).filter((n) => Number.isInteger(n));
  const out = new Map<string, string>();
  if (ids.length === 0) return out;
  if (dim === 'group') {
    const rows = await db
      .selectFrom('user_groups')
      .select(['id', 'name'])
      .where('customer_id', '=', customerId)
      .where('id', 'in', ids)
      .execute();
    for (const g of rows) out.set(String(g.id), g.name);
  } else if (dim === 'category') {
    for (const c of await db.selectFrom('categories').select(['id', 'name']).where('id', 'in', ids).execute()) {
      out.set(String(c.id), c.name);
    }
  } else if (dim === 'policy') {
    const rows = await db
      .selectFrom('policies')
      .select(['id', 'name'])
      .where('customer_id', '=', customerId)
      .where('id', 'in', ids)
      .execute();
    for (const p of rows) out.set(String(p.id), p.name);
  } else if (dim === 'location') {
    const rows = await db
      .selectFrom('locations')
      .select(['id', 'name'])
      .where('customer_id', '=', customerId)
      .where('id', 'in', ids)
      .execute();
    for (const l of rows) out.set(String(l.id), l.name);
  }
  return out;
}

/**
 * Builds report `code` of customer `customerId` over `period` from the hourly roll-ups (spec-notes §3
 * "Report types"; docs/api.md "Reports"). Rows: at most `limit`, most queries first (blocked
 * reports: most blocked first), trend reports in time order with zeros. The `user` and `group`
 * reports read the identity the resolver logged (migration 0029; docs/decisions.md "Query log identity").
 * @throws ApiError ERR_NOT_FOUND (customer not visible), ERR_VALIDATION (unknown code)
 */
export async function buildReport(
  deps: CoreDeps,
  caller: Caller,
  customerId: number,
  code: ReportCode,
  period: ReportPeriod,
  limit = 100,
): Promise<Report> {
  const entry = reportByCode(code);
  if (!entry)
    throw new ApiError('ERR_VALIDATION', 'Please select a report type.', { code: 'Please select a report type.' });
  const customer = await getCustomer(deps, caller, customerId);
  const timezone = customer.timezone || 'UTC';
  const db = deps.handle.db;
  const scope = scopeOf(caller);
  const head = { code, type: entry.type, dimension: entry.dimension, start: period.start, end: period.end, timezone };
  const blockedOnly = entry.type === 'blocked';

  if (entry.type === 'trend' || entry.dimension === 'location') {
    const q = db
      .selectFrom('stats_hourly')
      .innerJoin('customers', 'customers.id', 'stats_hourly.customer_id')
      .where(customerInScope(scope))
      .where('stats_hourly.customer_id', '=', customerId)
      .where('stats_hourly.hour', '>=', floorHour(period.range.from))
      .where('stats_hourly.hour', '<', floorHour(period.range.to));
    const sums = [
      sql<number>`sum(stats_hourly.requests)`.as('requests'),
      sql<number>`sum(stats_hourly.blocked)`.as('blocked'),
    ] as const;
    const totalRow = await q
      .select(sql<number>`coalesce(sum(stats_hourly.requests), 0)`.as('n'))
      .executeTakeFirstOrThrow();
    const total = Number(totalRow.n);
    if (entry.dimension === 'location') {
      const rows = await q
        .select(['stats_hourly.location_id as key', ...sums])
        .groupBy('stats_hourly.location_id')
        .execute();
      const names = await namesOf(
        db,
        scope,
        'location',
        customerId,
        rows.map((r) => String(r.key)),
      );
      const out = rows
        .map((r) => {
          const requests = Number(r.requests);
          const blocked = Number(r.blocked);
          const key = String(r.key);
          const name = key === '0' ? '(no location)' : (names.get(key) ?? key);
          return { key, name, requests: blockedOnly ? blocked : requests, allowed: requests - blocked, blocked };
        })
        .filter((r) => r.requests > 0)
        .sort((a, b) => b.requests - a.requests || a.key.localeCompare(b.key))
        .slice(0, limit);
      return { ...head, total, rows: out };
    }
    const byHour = await q
      .select(['stats_hourly.hour as hour', ...sums])
      .groupBy('stats_hourly.hour')
      .execute();
    const counts = new Map(
      byHour.map((r) => [Number(r.hour), { requests: Number(r.requests), blocked: Number(r.blocked) }]),
    );
    const rows: Report['rows'] = [];
    if (entry.dimension === 'hour') {
      for (let t = floorHour(period.range.from); t < floorHour(period.range.to); t += HOUR_MS) {
        const c = counts.get(t) ?? { requests: 0, blocked: 0 };
        const iso = new Date(t).toISOString();
        rows.push({ key: iso, name: iso, requests: c.requests, allowed: c.requests - c.blocked, blocked: c.blocked });
      }
    } else {
      const [y, m, d] = period.start.split('-').map(Number) as [number, number, number];
      for (let i = 0; ; i++) {
        const day = calendarDay(y, m, d + i);
        if (day > period.end) break;
        const p = periodOf(timezone, day, day);
        let requests = 0;
        let blocked = 0;
        for (let t = floorHour(p.range.from); t < floorHour(p.range.to); t += HOUR_MS) {
          const c = counts.get(t);
          if (c) {
            requests += c.requests;
            blocked += c.blocked;
          }
        }
        rows.push({ key: day, name: day, requests, allowed: requests - blocked, blocked });
      }
    }
    return { ...head, total, rows: rows.slice(0, Math.max(limit, rows.length)) };
  }

  const dim = TOP_DIM[entry.dimension];
  if (!dim) return { ...head, total: 0, rows: [] };
  const { total, rows } = await topRows(db, scope, customerId, period.range, dim, blockedOnly, limit);
  const names = await namesOf(
    db,
    scope,
    dim,
    customerId,
    rows.map((r) => r.key),
  );
  return {
    ...head,
    total,
    rows: rows.map((r) => ({
      key: r.key,
      name: names.get(r.key) ?? r.key,
      requests: r.allowed + r.blocked,
      allowed: r.allowed,
      blocked: r.blocked,
    })),
  };
}

/**
 * `GET /users/{id}/reports/{code}?start&end&limit` (docs/api.md "Reports"): the report over the
 * requested local days in the customer's time zone.
 */
export async function getReport(
  deps: CoreDeps,
  caller: Caller,
  customerId: number,
  code: ReportCode,
  query: { start?: string | undefined; end?: string | undefined; limit?: number | undefined },
): Promise<Report> {
  const customer = await getCustomer(deps, caller, customerId);
  const period = requestedPeriod(customer.timezone || 'UTC', deps.now(), query.start, query.end);
  return buildReport(deps, caller, customerId, code, period, query.limit ?? 100);
}
