import type { HistoryQuery } from '@cordon/shared';

/** The history page's path (spec-notes §2 reporting: history). */
export const HISTORY_PATH = '/customer/reporting/history_reports';

/** The periods the history offers: the dashboard's four, or one day (`day`). */
export const HISTORY_PERIODS = ['today', 'yesterday', '7days', '30days', 'day'] as const;
export type HistoryPeriod = (typeof HISTORY_PERIODS)[number];

/** The action filter of the history. */
export const HISTORY_ACTIONS = ['all', 'allowed', 'blocked'] as const;
export type HistoryActionFilter = (typeof HISTORY_ACTIONS)[number];

/**
 * The history's exact filters as they stand in the address (issue 29 "History's filters live in
 * the URL"), the API's query names: `domain`, `category`, `location`, `device`, `user`, `client_ip`.
 */
export const DRILL_FILTERS = ['domain', 'category', 'location', 'device', 'user', 'client_ip'] as const;
export type DrillFilter = (typeof DRILL_FILTERS)[number];

/** The id filters, which carry a display name beside them (`category_name`…): the address is read by people too. */
const NAMED: ReadonlySet<DrillFilter> = new Set(['category', 'location', 'device']);

/** One exact filter with the text shown for it (the value itself, or the name the link carried). */
export interface DrillValue {
  key: DrillFilter;
  value: string;
  label: string;
}

/** A link into the history: what to narrow to, and the action and period. */
export interface DrillTarget {
  action?: HistoryActionFilter;
  period?: HistoryPeriod;
  filter?: { key: DrillFilter; value: string | number; name?: string };
}

/**
 * The address of the history narrowed to `target` (issue 29 "Drill-down"): `?action=&period=` and
 * one exact filter, with `<key>_name` for an id filter's display name.
 */
export function historyLink(target: DrillTarget): string {
  const p = new URLSearchParams();
  if (target.action && target.action !== 'all') p.set('action', target.action);
  if (target.period && target.period !== 'today') p.set('period', target.period);
  if (target.filter) {
    p.set(target.filter.key, String(target.filter.value));
    if (target.filter.name && NAMED.has(target.filter.key)) p.set(`${target.filter.key}_name`, target.filter.name);
  }
  const q = p.toString();
  return q ? `${HISTORY_PATH}?${q}` : HISTORY_PATH;
}

/**
 * The history filter of a dashboard `users` top-list key (docs/api.md "Stats": `u:<user name>`,
 * `d:<device id>` or `ip:<client address>`), or null for a key of another shape.
 */
export function userKeyFilter(key: string, name: string): DrillTarget['filter'] | null {
  if (key.startsWith('u:') && key.length > 2) return { key: 'user', value: key.slice(2) };
  if (key.startsWith('d:') && /^\d+$/.test(key.slice(2))) return { key: 'device', value: key.slice(2), name };
  if (key.startsWith('ip:') && key.length > 3) return { key: 'client_ip', value: key.slice(3) };
  return null;
}

/** The exact filters in `params`, in {@link DRILL_FILTERS} order; an id filter that is not a whole number is left out. */
export function readDrillFilters(params: URLSearchParams): DrillValue[] {
  const out: DrillValue[] = [];
  for (const key of DRILL_FILTERS) {
    const value = params.get(key)?.trim();
    if (!value) continue;
    if (NAMED.has(key) && !/^\d{1,9}$/.test(value)) continue;
    out.push({ key, value, label: (NAMED.has(key) && params.get(`${key}_name`)) || value });
  }
  return out;
}

/** The API query of the exact filters (ids as numbers). */
export function drillQuery(filters: readonly DrillValue[]): Partial<HistoryQuery> {
  const q: Record<string, string | number> = {};
  for (const f of filters) q[f.key] = NAMED.has(f.key) ? Number(f.value) : f.value;
  return q as Partial<HistoryQuery>;
}
