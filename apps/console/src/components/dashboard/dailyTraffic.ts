import type { StatsTraffic } from '@cordon/shared';

/** One day of traffic: its local date `YYYY-MM-DD` and the requests allowed and blocked that day. */
export interface DailyTraffic {
  date: string;
  allowed: number;
  blocked: number;
}

/**
 * The hourly traffic of a 7- or 30-day period summed per day (issue 29: "charts over 7 and 30 days
 * use daily bars"), each hour counted on its date in `timeZone` (the formatter's: the profile's,
 * else the tenant's; undefined: the browser's), so the bars' days match every other date shown.
 * Days come out in time order; a day with no hour in the series is absent (the API lists every hour).
 * @param traffic the API's hourly series (`time` an ISO instant of the hour's start)
 * @throws RangeError when `timeZone` is not a zone Intl knows
 */
export function dailyTraffic(traffic: StatsTraffic, timeZone: string | undefined): DailyTraffic[] {
  // en-CA writes dates as YYYY-MM-DD, the form the history series and fmt.day use.
  const dayOf = new Intl.DateTimeFormat('en-CA', {
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    ...(timeZone ? { timeZone } : {}),
  });
  const days = new Map<string, DailyTraffic>();
  for (const p of traffic.data) {
    const date = dayOf.format(new Date(p.time));
    const day = days.get(date) ?? { date, allowed: 0, blocked: 0 };
    day.allowed += p.allowed;
    day.blocked += p.blocked;
    days.set(date, day);
  }
  return [...days.values()].sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
}
