import { ApiError, type StatsOverview, type StatsTraffic, statsRange, type TimeRange } from '@cordon/shared';
import { scopeOf } from '../../lib/scope.ts';
import type { AppDeps, Tenant } from '../../types.ts';
import { getCustomer } from '../customers/repository.ts';
import * as repo from './repository.ts';

/**
 * The range of a stats `{date}` in the customer's time zone ('UTC' when unset), as of the app clock
 * (DESIGN.md §11).
 * @throws ApiError ERR_NOT_FOUND (customer not visible); ERR_VALIDATION for an impossible date
 */
async function rangeFor(deps: AppDeps, tenant: Tenant, customerId: number, date: string): Promise<TimeRange> {
  const customer = await getCustomer(deps.handle.db, scopeOf(tenant), customerId);
  if (!customer) throw new ApiError('ERR_NOT_FOUND');
  try {
    return statsRange(date, customer.timezone || 'UTC', deps.now());
  } catch {
    const message = 'date must be today, yesterday, 7days, 30days or YYYY-MM-DD.';
    throw new ApiError('ERR_VALIDATION', message, { date: message });
  }
}

/** `GET /users/{id}/stats/{date}`: requests, unique domains, allowed and blocked over the range. */
export async function customerOverview(
  deps: AppDeps,
  tenant: Tenant,
  customerId: number,
  date: string,
): Promise<StatsOverview> {
  const range = await rangeFor(deps, tenant, customerId, date);
  return repo.overview(deps.handle.db, scopeOf(tenant), customerId, range);
}

/** `GET /users/{id}/stats/traffic/{day}`: hourly allowed/blocked points (24 for a normal day). */
export async function customerTraffic(
  deps: AppDeps,
  tenant: Tenant,
  customerId: number,
  day: string,
): Promise<StatsTraffic> {
  const range = await rangeFor(deps, tenant, customerId, day);
  return { data: await repo.trafficByHour(deps.handle.db, scopeOf(tenant), customerId, range) };
}
