import {
  type BatchSubRequestInput,
  batchEndpoints,
  Constants,
  type EndpointDescriptor,
  ErrorTexts,
  type StatsHistory,
  type StatsOverview,
  type StatsTop,
  type StatsTraffic,
  statsEndpoints,
} from '@cordon/shared';
import { useQuery } from '@tanstack/react-query';
import { batchItem } from '../../api/batch.ts';
import { isApiErrorBody } from '../../api/client.ts';
import { useApi } from '../../api/context.ts';

/** Whose dashboard: a customer, an MSP (its customers summed) or the system (every MSP). */
export type DashboardOwner = { kind: 'customer'; id: number } | { kind: 'msp'; id: number } | { kind: 'system' };

/** A stats period of spec-notes §7 Stats offered on the dashboard. */
export type DashboardPeriod = 'today' | 'yesterday' | '7days' | '30days';

/** The top lists of a dashboard: dimension × action. */
export const TOP_LISTS = [
  { dim: 'categories', action: 'allowed' },
  { dim: 'categories', action: 'blocked' },
  { dim: 'domains', action: 'allowed' },
  { dim: 'domains', action: 'blocked' },
  { dim: 'users', action: 'allowed' },
  { dim: 'users', action: 'blocked' },
] as const;
export type TopListKey = `${(typeof TOP_LISTS)[number]['dim']}_${(typeof TOP_LISTS)[number]['action']}`;

/** Everything one dashboard shows. */
export interface DashboardData {
  overview: StatsOverview;
  traffic: StatsTraffic;
  history: StatsHistory;
  top: Record<TopListKey, StatsTop>;
}

/** The sub-requests of one dashboard, built from the endpoint descriptors (same paths as sent alone). */
function dashboardItems(owner: DashboardOwner, period: DashboardPeriod) {
  const e = statsEndpoints;
  const days = Constants.dashboardHistoryDays;
  const items: Array<[string, EndpointDescriptor, BatchSubRequestInput]> = [];
  if (owner.kind === 'customer') {
    const id = owner.id;
    items.push(['overview', e.customerOverview, batchItem(e.customerOverview, { params: { id, date: period } })]);
    items.push(['traffic', e.customerTraffic, batchItem(e.customerTraffic, { params: { id, day: period } })]);
    items.push(['history', e.customerHistory, batchItem(e.customerHistory, { params: { id, days } })]);
    for (const { dim, action } of TOP_LISTS) {
      const item = batchItem(e.customerTop, { params: { id, dim, action, date: period }, query: {} });
      items.push([`${dim}_${action}`, e.customerTop, item]);
    }
  } else if (owner.kind === 'msp') {
    const id = owner.id;
    items.push(['overview', e.mspOverview, batchItem(e.mspOverview, { params: { id, date: period } })]);
    items.push(['traffic', e.mspTraffic, batchItem(e.mspTraffic, { params: { id, day: period } })]);
    items.push(['history', e.mspHistory, batchItem(e.mspHistory, { params: { id, days } })]);
    for (const { dim, action } of TOP_LISTS) {
      const item = batchItem(e.mspTop, { params: { id, dim, action, date: period }, query: {} });
      items.push([`${dim}_${action}`, e.mspTop, item]);
    }
  } else {
    items.push(['overview', e.systemOverview, batchItem(e.systemOverview, { params: { date: period } })]);
    items.push(['traffic', e.systemTraffic, batchItem(e.systemTraffic, { params: { day: period } })]);
    items.push(['history', e.systemHistory, batchItem(e.systemHistory, { params: { days } })]);
    for (const { dim, action } of TOP_LISTS) {
      const item = batchItem(e.systemTop, { params: { dim, action, date: period }, query: {} });
      items.push([`${dim}_${action}`, e.systemTop, item]);
    }
  }
  return items;
}

/**
 * The dashboard's stats in one `POST /batch` (spec-notes §7 Batch: "dashboard stats"): overview, hourly
 * traffic, the 5-day history (spec-notes §9) and the six top lists, each answer parsed with its endpoint's
 * response schema. A failed sub-request fails the whole read with the server's error text.
 */
export function useDashboardQuery(owner: DashboardOwner, period: DashboardPeriod) {
  const api = useApi();
  return useQuery({
    queryKey: ['stats', 'dashboard', owner, period],
    queryFn: async (): Promise<DashboardData> => {
      const items = dashboardItems(owner, period);
      const body = Object.fromEntries(items.map(([id, , item]) => [id, item]));
      const answer = await api.call(batchEndpoints.run, { body });
      const parsed: Record<string, unknown> = {};
      for (const [id, endpoint] of items) {
        const r = answer[id];
        if (!r || r.status < 200 || r.status >= 300) {
          throw new Error(r && isApiErrorBody(r.body) ? r.body.error : ErrorTexts.somethingWentWrong);
        }
        parsed[id] = endpoint.response.parse(r.body);
      }
      const top = Object.fromEntries(
        TOP_LISTS.map(({ dim, action }) => [`${dim}_${action}`, parsed[`${dim}_${action}`]]),
      );
      return {
        overview: parsed.overview as StatsOverview,
        traffic: parsed.traffic as StatsTraffic,
        history: parsed.history as StatsHistory,
        top: top as Record<TopListKey, StatsTop>,
      };
    },
  });
}
