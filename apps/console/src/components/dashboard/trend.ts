import type { StatsHistory, StatsTraffic } from '@cordon/shared';
import type { DashboardPeriod } from './api.ts';

/** A number beside the same number of the previous equal period. */
export interface Trend {
  current: number;
  previous: number;
  /** (current − previous) / previous; null when the previous period counted nothing. */
  ratio: number | null;
}

/** The overview numbers that have a daily series in the history response. */
export type TrendKey = 'requests' | 'allowed' | 'blocked';

/**
 * The trend of `key` against the previous equal period, from the history the dashboard already
 * fetched (daily counts, oldest first, today last: spec-notes §7 Stats history). Only "yesterday"
 * has an equal previous period there (the day before): today is partial and 7 or 30 days reach
 * beyond the 5-day history, so those periods get null (issue 29: no extra request for a trend).
 */
export function trendFor(period: DashboardPeriod, history: StatsHistory, key: TrendKey): Trend | null {
  if (period !== 'yesterday') return null;
  const days = history.data;
  if (days.length < 3) return null;
  const current = days[days.length - 2]?.[key] ?? 0;
  const previous = days[days.length - 3]?.[key] ?? 0;
  return { current, previous, ratio: previous === 0 ? null : (current - previous) / previous };
}

/** The period's series of `key` from the hourly traffic response (requests = allowed + blocked). */
export function sparkSeries(traffic: StatsTraffic, key: TrendKey): number[] {
  return traffic.data.map((p) =>
    key === 'allowed' ? p.allowed : key === 'blocked' ? p.blocked : p.allowed + p.blocked,
  );
}

/**
 * The SVG polyline points of `values` in a `width`×`height` box (y grows downwards, a 1-unit margin
 * so the stroke is not clipped); '' when there are fewer than two values.
 */
export function sparkPoints(values: readonly number[], width: number, height: number): string {
  if (values.length < 2) return '';
  const max = Math.max(...values, 1);
  const step = width / (values.length - 1);
  return values
    .map((v, i) => `${(i * step).toFixed(1)},${(height - 1 - (v / max) * (height - 2)).toFixed(1)}`)
    .join(' ');
}
