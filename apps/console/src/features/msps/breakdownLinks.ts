import { STATS_BREAKDOWN_SORT_KEYS, type StatsBreakdownSortKey } from '@cordon/shared';
import { historyLink } from '../../components/historyLinks.ts';

/** The MSP area's breakdown page: which of the MSP's customers made a dashboard entry's queries (issue 29). */
export const MSP_BREAKDOWN_PATH = '/msp/overview/breakdown';
/** The system area's breakdown page: which MSPs made them. */
export const SYSTEM_BREAKDOWN_PATH = '/system/overview/breakdown';

/** The periods of a breakdown: the dashboard's four. */
export const BREAKDOWN_PERIODS = ['today', 'yesterday', '7days', '30days'] as const;
export type BreakdownPeriod = (typeof BREAKDOWN_PERIODS)[number];
/** The action filter of a breakdown, as the history's. */
export const BREAKDOWN_ACTIONS = ['all', 'allowed', 'blocked'] as const;
export type BreakdownAction = (typeof BREAKDOWN_ACTIONS)[number];
export { STATS_BREAKDOWN_SORT_KEYS, type StatsBreakdownSortKey };

/** What a breakdown counts: one domain or one category (its id, and its name as shown). */
export type BreakdownTarget = { kind: 'domain'; domain: string } | { kind: 'category'; id: number; name: string };

/** A breakdown's state as it stands in the address (besides `page`, `sort`, `dir`). */
export interface BreakdownState {
  target: BreakdownTarget;
  action: BreakdownAction;
  period: BreakdownPeriod;
}

/**
 * The address of a breakdown page under `base` (issue 29 drill-down): `domain=` or `category=` with
 * `category_name=` (the address is read by people too), `action=` unless all, `period=` unless today.
 */
export function breakdownLink(base: string, state: BreakdownState): string {
  const p = new URLSearchParams();
  if (state.target.kind === 'domain') p.set('domain', state.target.domain);
  else {
    p.set('category', String(state.target.id));
    p.set('category_name', state.target.name);
  }
  if (state.action !== 'all') p.set('action', state.action);
  if (state.period !== 'today') p.set('period', state.period);
  return `${base}?${p.toString()}`;
}

/**
 * The breakdown state in `params`, or null when it names neither a domain nor a whole-number
 * category (the page then says so). An unknown action or period reads as the default.
 */
export function readBreakdownState(params: URLSearchParams): BreakdownState | null {
  const domain = params.get('domain')?.trim().toLowerCase();
  const category = params.get('category')?.trim();
  let target: BreakdownTarget | null = null;
  if (domain) target = { kind: 'domain', domain };
  else if (category && /^\d{1,9}$/.test(category) && Number(category) > 0) {
    target = { kind: 'category', id: Number(category), name: params.get('category_name') || category };
  }
  if (!target) return null;
  const action = params.get('action') as BreakdownAction | null;
  const period = params.get('period') as BreakdownPeriod | null;
  return {
    target,
    action: action && BREAKDOWN_ACTIONS.includes(action) ? action : 'all',
    period: period && BREAKDOWN_PERIODS.includes(period) ? period : 'today',
  };
}

/** The link of a customer's row: its history narrowed to the same domain or category, action and period. */
export function customerHistoryLink(state: BreakdownState): string {
  const t = state.target;
  return historyLink({
    action: state.action,
    period: state.period,
    filter: t.kind === 'domain' ? { key: 'domain', value: t.domain } : { key: 'category', value: t.id, name: t.name },
  });
}

/**
 * The breakdown link of an MSP's or the system's dashboard top-list entry: domains and categories
 * (a users key belongs to one customer: no breakdown); null otherwise.
 */
export function topEntryBreakdownLink(
  base: string,
  entry: { dim: string; action: 'allowed' | 'blocked'; period: BreakdownPeriod; key: string; name: string },
): string | null {
  const { dim, action, period, key, name } = entry;
  if (dim === 'domains') return breakdownLink(base, { target: { kind: 'domain', domain: key }, action, period });
  if (dim === 'categories' && /^\d+$/.test(key)) {
    return breakdownLink(base, { target: { kind: 'category', id: Number(key), name }, action, period });
  }
  return null;
}
