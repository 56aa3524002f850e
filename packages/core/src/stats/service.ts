import {
  ApiError,
  calendarDay,
  Role,
  type StatsAction,
  type StatsDimension,
  type StatsHistory,
  type StatsOverview,
  type StatsTop,
  type StatsTraffic,
  statsRange,
  type TimeRange,
  zonedDate,
  zonedMidnight,
} from '@cordon/shared';
import type { Caller, CoreDeps } from '../context.ts';
import { getCustomer } from '../customers/index.ts';
import { getMsp } from '../msps/index.ts';
import { EVERYTHING, scopeOf } from '../tenancy/index.ts';
import { cachedOverview, foldMark } from './overview-cache.ts';
import * as repo from './repository.ts';

/** The earliest `YYYY-MM-DD` a stats call accepts (nothing older can have been logged). */
export const STATS_FIRST_DAY = '2000-01-01';

/** The longest `start`–`end` span of the location stats, in days. */
export const LOCATION_STATS_MAX_DAYS = 400;

/** Whose stats: a customer, an MSP (its customers) or the system (every MSP). */
export type StatsOwner = { kind: 'customer'; id: number } | { kind: 'msp'; id: number } | { kind: 'system' };

/**
 * The time zone and roll-up subject of `owner` (docs/api.md "Stats"): the customer's or the MSP's
 * time zone ('UTC' when unset); the system reads UTC.
 * @throws ApiError ERR_NOT_FOUND when the caller cannot see the customer or MSP
 */
async function resolveOwner(
  deps: CoreDeps,
  caller: Caller,
  owner: StatsOwner,
): Promise<{ timeZone: string; subject: repo.StatsSubject }> {
  if (owner.kind === 'customer') {
    const customer = await getCustomer(deps, caller, owner.id);
    return { timeZone: customer.timezone || 'UTC', subject: { customerId: owner.id } };
  }
  if (owner.kind === 'msp') {
    const msp = await getMsp(deps, caller, owner.id);
    return { timeZone: msp.timezone || 'UTC', subject: { mspId: owner.id } };
  }
  return { timeZone: 'UTC', subject: {} };
}

/**
 * The range of a stats `{date}` in `timeZone` as of the app clock (docs/api.md "Stats"). A
 * `YYYY-MM-DD` must lie between {@link STATS_FIRST_DAY} and tomorrow in that time zone (docs/security.md:
 * dates limited to a sane range).
 * @param field the path parameter's name, for the field message (`date` or `day`)
 * @throws ApiError ERR_VALIDATION for an impossible date or one outside that range
 */
export function rangeIn(timeZone: string, date: string, now: number, field: string): TimeRange {
  let range: TimeRange;
  try {
    range = statsRange(date, timeZone, now);
  } catch {
    const message = `${field} must be today, yesterday, 7days, 30days or YYYY-MM-DD.`;
    throw new ApiError('ERR_VALIDATION', message, { [field]: message });
  }
  if (/^\d{4}-\d{2}-\d{2}$/.test(date)) {
    const tomorrow = statsRange('today', timeZone, now).to;
    // Plain text order is date order for YYYY-MM-DD; `tomorrow` is checked as an instant (any zone).
    if (date < STATS_FIRST_DAY || range.from > tomorrow) {
      const message = `${field} must be a day between ${STATS_FIRST_DAY} and tomorrow.`;
      throw new ApiError('ERR_VALIDATION', message, { [field]: message });
    }
  }
  return range;
}

/**
 * `GET …/stats/{date}`: requests, unique domains, allowed and blocked over the range (spec-notes §7
 * Stats). A customer's answer is reused while no logged query has reached the roll-ups since
 * (overview-cache.ts; at most a minute).
 */
export async function overview(
  deps: CoreDeps,
  caller: Caller,
  owner: StatsOwner,
  date: string,
): Promise<StatsOverview> {
  // The watermark is read before the overview is computed: a fold landing meanwhile leaves a newer one.
  const [{ timeZone, subject }, mark] = await Promise.all([
    resolveOwner(deps, caller, owner),
    owner.kind === 'customer' ? foldMark(deps.handle) : undefined,
  ]);
  const now = deps.now();
  const range = rangeIn(timeZone, date, now, 'date');
  // A sales admin reads every MSP's totals (spec-notes §2 Sales), once `getMsp` has let it see the MSP.
  const scope = caller.role === Role.Sales && owner.kind === 'msp' ? EVERYTHING : scopeOf(caller);
  const compute = () => repo.overview(deps.handle.db, scope, subject, range);
  // A customer's: reused until the fold moves (overview-cache.ts); an MSP's total also changes when a
  // customer moves to another MSP, which the fold does not see, and it reads sketches (cheap) anyway.
  if (mark === undefined) return compute();
  const key = JSON.stringify([scope, subject, range.from, range.to]);
  return cachedOverview(deps.handle, key, mark, now, compute);
}

/**
 * `GET …/stats/traffic/{day}`: allowed and blocked per hour from the range's local midnight, zeros
 * included (24 points a normal day, 23 or 25 on a DST day); `time` is the hour's start, ISO-8601 UTC.
 */
export async function traffic(deps: CoreDeps, caller: Caller, owner: StatsOwner, day: string): Promise<StatsTraffic> {
  const { timeZone, subject } = await resolveOwner(deps, caller, owner);
  const range = rangeIn(timeZone, day, deps.now(), 'day');
  const byHour = await repo.countsByHour(deps.handle.db, scopeOf(caller), subject, range);
  const h = repo.hourBounds(range);
  const data: StatsTraffic['data'] = [];
  for (let t = h.from; t < h.to; t += repo.HOUR_MS) {
    const c = byHour.get(t);
    const blocked = c?.blocked ?? 0;
    data.push({ time: new Date(t).toISOString(), allowed: (c?.requests ?? 0) - blocked, blocked });
  }
  return { data };
}

/** `GET …/stats/history/{days}`: requests, allowed and blocked per local day, the last `days` days up to today. */
export async function history(deps: CoreDeps, caller: Caller, owner: StatsOwner, days: number): Promise<StatsHistory> {
  const { timeZone, subject } = await resolveOwner(deps, caller, owner);
  const today = zonedDate(timeZone, deps.now());
  const dayList: Array<{ date: string; from: number; to: number }> = [];
  for (let i = days - 1; i >= 0; i--) {
    const date = calendarDay(today.year, today.month, today.day - i);
    const [y, m, dd] = date.split('-').map(Number) as [number, number, number];
    const b = repo.hourBounds({ from: zonedMidnight(timeZone, y, m, dd), to: zonedMidnight(timeZone, y, m, dd + 1) });
    dayList.push({ date, ...b });
  }
  const first = dayList[0]!;
  const last = dayList[dayList.length - 1]!;
  const byHour = await repo.countsByHour(deps.handle.db, scopeOf(caller), subject, { from: first.from, to: last.to });
  const data = dayList.map((d) => ({ date: d.date, requests: 0, allowed: 0, blocked: 0 }));
  for (const [hour, c] of byHour) {
    const i = dayList.findIndex((d) => hour >= d.from && hour < d.to);
    if (i < 0) continue;
    const row = data[i]!;
    row.requests += c.requests;
    row.blocked += c.blocked;
    row.allowed += c.requests - c.blocked;
  }
  return { data };
}

/** `GET …/stats/{categories|domains|users}/{allowed|blocked}/{date}`: the top `limit` (default 10). */
export async function topList(
  deps: CoreDeps,
  caller: Caller,
  owner: StatsOwner,
  dim: StatsDimension,
  action: StatsAction,
  date: string,
  limit = 10,
): Promise<StatsTop> {
  const { timeZone, subject } = await resolveOwner(deps, caller, owner);
  const range = rangeIn(timeZone, date, deps.now(), 'date');
  return { data: await repo.topKeys(deps.handle.db, scopeOf(caller), subject, range, dim, action, limit) };
}

/**
 * The range of the location stats' `start` and `end` (local days, both included; each defaults to
 * today) in the customer's time zone.
 * @throws ApiError ERR_VALIDATION for an impossible day, start after end, a span over
 *   {@link LOCATION_STATS_MAX_DAYS} days, or a day before {@link STATS_FIRST_DAY}
 */
function locationRange(timeZone: string, now: number, start?: string, end?: string): TimeRange {
  const from = rangeIn(timeZone, start ?? 'today', now, 'start');
  const to = rangeIn(timeZone, end ?? 'today', now, 'end');
  if (from.from > to.from) {
    throw new ApiError('ERR_VALIDATION', 'start must not be after end.', { start: 'start must not be after end.' });
  }
  if (to.to - from.from > (LOCATION_STATS_MAX_DAYS + 1) * 86_400_000) {
    const message = `start and end may be at most ${LOCATION_STATS_MAX_DAYS} days apart.`;
    throw new ApiError('ERR_VALIDATION', message, { end: message });
  }
  return { from: from.from, to: to.to };
}

async function locationSubject(deps: CoreDeps, caller: Caller, customerId: number, locationId: number) {
  const { timeZone } = await resolveOwner(deps, caller, { kind: 'customer', id: customerId });
  if (!(await repo.locationVisible(deps.handle.db, scopeOf(caller), customerId, locationId))) {
    throw new ApiError('ERR_NOT_FOUND');
  }
  return { timeZone, subject: { customerId, locationId } };
}

/**
 * `GET /users/{id}/locations/{locId}/stats?start&end` (spec-notes §7 Location stats): the overview of one location.
 * @throws ApiError ERR_NOT_FOUND (customer or location not visible), ERR_VALIDATION (see {@link locationRange})
 */
export async function locationOverview(
  deps: CoreDeps,
  caller: Caller,
  customerId: number,
  locationId: number,
  query: { start?: string | undefined; end?: string | undefined },
): Promise<StatsOverview> {
  const { timeZone, subject } = await locationSubject(deps, caller, customerId, locationId);
  const range = locationRange(timeZone, deps.now(), query.start, query.end);
  return repo.overview(deps.handle.db, scopeOf(caller), subject, range);
}

/** `GET /users/{id}/locations/{locId}/stats/{categories|domains}/{action}?start&end`: a location's top list. */
export async function locationTop(
  deps: CoreDeps,
  caller: Caller,
  customerId: number,
  locationId: number,
  dim: 'categories' | 'domains',
  action: StatsAction,
  query: { start?: string | undefined; end?: string | undefined; limit?: number | undefined },
): Promise<StatsTop> {
  const { timeZone, subject } = await locationSubject(deps, caller, customerId, locationId);
  const range = locationRange(timeZone, deps.now(), query.start, query.end);
  const data = await repo.topKeys(deps.handle.db, scopeOf(caller), subject, range, dim, action, query.limit ?? 10);
  return { data };
}

/** `GET /users/{id}/stats/{date}` (kept for callers of the first release). */
export function customerOverview(deps: CoreDeps, caller: Caller, customerId: number, date: string) {
  return overview(deps, caller, { kind: 'customer', id: customerId }, date);
}

/** `GET /users/{id}/stats/traffic/{day}` (kept for callers of the first release). */
export function customerTraffic(deps: CoreDeps, caller: Caller, customerId: number, day: string) {
  return traffic(deps, caller, { kind: 'customer', id: customerId }, day);
}
