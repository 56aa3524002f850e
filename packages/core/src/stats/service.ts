import { ApiError, type StatsOverview, type StatsTraffic, statsRange, type TimeRange } from '@cordon/shared';
import type { Caller, CoreDeps } from '../context.ts';
import { getCustomer } from '../customers/index.ts';
import { scopeOf } from '../tenancy/index.ts';
import * as repo from './repository.ts';

/** The earliest `YYYY-MM-DD` a stats call accepts (nothing older can have been logged). */
export const STATS_FIRST_DAY = '2000-01-01';

/**
 * The range of a stats `{date}` in the customer's time zone ('UTC' when unset), as of the app clock
 * (docs/api.md "Stats"). A `YYYY-MM-DD` must lie between {@link STATS_FIRST_DAY} and tomorrow in that time
 * zone (docs/security.md: dates limited to a sane range).
 * @param field the path parameter's name, for the field message (`date` or `day`)
 * @throws ApiError ERR_NOT_FOUND (customer not visible); ERR_VALIDATION for an impossible date or one
 *   outside that range
 */
async function rangeFor(
  deps: CoreDeps,
  caller: Caller,
  customerId: number,
  date: string,
  field: 'date' | 'day',
): Promise<TimeRange> {
  const customer = await getCustomer(deps, caller, customerId);
  const timeZone = customer.timezone || 'UTC';
  let range: TimeRange;
  try {
    range = statsRange(date, timeZone, deps.now());
  } catch {
    const message = `${field} must be today, yesterday, 7days, 30days or YYYY-MM-DD.`;
    throw new ApiError('ERR_VALIDATION', message, { [field]: message });
  }
  if (/^\d{4}-\d{2}-\d{2}$/.test(date)) {
    const tomorrow = statsRange('today', timeZone, deps.now()).to;
    // Plain text order is date order for YYYY-MM-DD; `tomorrow` is checked as an instant (any zone).
    if (date < STATS_FIRST_DAY || range.from > tomorrow) {
      const message = `${field} must be a day between ${STATS_FIRST_DAY} and tomorrow.`;
      throw new ApiError('ERR_VALIDATION', message, { [field]: message });
    }
  }
  return range;
}

/** `GET /users/{id}/stats/{date}`: requests, unique domains, allowed and blocked over the range. */
export async function customerOverview(
  deps: CoreDeps,
  caller: Caller,
  customerId: number,
  date: string,
): Promise<StatsOverview> {
  const range = await rangeFor(deps, caller, customerId, date, 'date');
  return repo.overview(deps.handle.db, scopeOf(caller), customerId, range);
}

/** `GET /users/{id}/stats/traffic/{day}`: hourly allowed/blocked points (24 for a normal day). */
export async function customerTraffic(
  deps: CoreDeps,
  caller: Caller,
  customerId: number,
  day: string,
): Promise<StatsTraffic> {
  const range = await rangeFor(deps, caller, customerId, day, 'day');
  return { data: await repo.trafficByHour(deps.handle.db, scopeOf(caller), customerId, range) };
}
