/**
 * Stats date parameters (docs/architecture.md "Statistics"): `today`, `yesterday`, `7days`, `30days` or `YYYY-MM-DD`,
 * read in the tenant's IANA time zone. A range is half-open `[from, to)` in epoch milliseconds.
 */
export interface TimeRange {
  from: number;
  to: number;
}

export const STATS_DATE_PATTERN = /^(today|yesterday|7days|30days|\d{4}-\d{2}-\d{2})$/;

/**
 * One formatter per time zone: building an `Intl.DateTimeFormat` costs ≈ 0.1 ms, and a stats call
 * asks several offsets (bench/README.md "API reads"). An unknown zone throws (RangeError) and is not kept.
 */
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterOf(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (f === undefined) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    // Bounded by the zones Intl knows (≈ 600 names, more with aliases); a flood of spellings is cut.
    if (formatters.size >= 2_000) formatters.clear();
    formatters.set(timeZone, f);
  }
  return f;
}

/**
 * The offset of `timeZone` from UTC at instant `at`, in ms (positive east of Greenwich).
 * @throws RangeError for a time zone Intl does not know
 */
export function timeZoneOffsetMs(timeZone: string, at: number): number {
  // UTC has no offset: no formatting (≈ 20 µs a call, several a stats request; bench/README.md "API reads").
  if (timeZone === 'UTC') return 0;
  const parts = formatterOf(timeZone).formatToParts(new Date(at));
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  const asUtc = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'));
  return asUtc - Math.floor(at / 1000) * 1000;
}

/** The instant of local midnight starting the calendar day y-m-d in `timeZone`. */
export function zonedMidnight(timeZone: string, year: number, month: number, day: number): number {
  const guess = Date.UTC(year, month - 1, day);
  let result = guess - timeZoneOffsetMs(timeZone, guess);
  // A DST change between the guess and the result moves the offset once more.
  result = guess - timeZoneOffsetMs(timeZone, result);
  return result;
}

/** The local calendar date (year, month 1–12, day) of instant `at` in `timeZone`. */
export function zonedDate(timeZone: string, at: number): { year: number; month: number; day: number } {
  const local = new Date(at + timeZoneOffsetMs(timeZone, at));
  return { year: local.getUTCFullYear(), month: local.getUTCMonth() + 1, day: local.getUTCDate() };
}

/**
 * `YYYY-MM-DD` of the calendar day `year`-`month`-`day`, with out-of-range parts carried like
 * `Date.UTC` does: day 0 is the last day of the month before, day 32 of January is 1 February,
 * month 13 is January of the next year. The one day-text helper of the statistics and reports.
 * @param month 1–12 (or beyond, carried)
 */
export function calendarDay(year: number, month: number, day: number): string {
  const d = new Date(Date.UTC(year, month - 1, day));
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
}

/** True for a time zone name Intl knows. */
export function isValidTimeZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
    return true;
  } catch {
    return false;
  }
}

/**
 * The range a stats `{date}` parameter covers in `timeZone`, as of `now` (ms).
 * `today` runs from local midnight to the next; `7days`/`30days` end at the end of today.
 * @throws RangeError for a value outside {@link STATS_DATE_PATTERN} or an impossible date.
 */
export function statsRange(date: string, timeZone: string, now: number): TimeRange {
  if (!STATS_DATE_PATTERN.test(date)) throw new RangeError(`Unknown stats date: ${date}`);
  const { year, month, day } = zonedDate(timeZone, now);
  const dayStart = (offsetDays: number) => {
    const d = new Date(Date.UTC(year, month - 1, day + offsetDays));
    return zonedMidnight(timeZone, d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate());
  };
  switch (date) {
    case 'today':
      return { from: dayStart(0), to: dayStart(1) };
    case 'yesterday':
      return { from: dayStart(-1), to: dayStart(0) };
    case '7days':
      return { from: dayStart(-6), to: dayStart(1) };
    case '30days':
      return { from: dayStart(-29), to: dayStart(1) };
    default: {
      const [y, m, d] = date.split('-').map(Number) as [number, number, number];
      const check = new Date(Date.UTC(y, m - 1, d));
      if (check.getUTCMonth() !== m - 1 || check.getUTCDate() !== d) throw new RangeError(`Impossible date: ${date}`);
      return { from: zonedMidnight(timeZone, y, m, d), to: zonedMidnight(timeZone, y, m, d + 1) };
    }
  }
}
