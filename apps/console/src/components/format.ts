import { useMemo, useSyncExternalStore } from 'react';
import { useTranslation } from 'react-i18next';
import { StorageKeys } from '../session/session.ts';

/**
 * The console's one way to show dates, times and numbers (issue 29 "One way to show dates and
 * numbers"; docs/architecture.md "Console"): every instant in the profile's time zone, else the
 * tenant's in scope, else the browser's; every date and number with the conventions of the
 * interface language (`en`, `fr`) through `Intl`. Pages call {@link useFormat}; code outside React
 * (chart options, CSV rows) calls the pure functions with a language and a zone.
 */

/** A value that names an instant: an ISO-8601 text, epoch ms, or a Date. */
export type Instant = string | number | Date;

/** True when `tz` is an IANA zone this browser knows. */
function knownZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/**
 * The user's time zone (spec-notes §3 "Browser-stored user preferences": `timezone`, set from the
 * profile): an IANA name, or undefined for "Use System Default".
 */
export function userTimeZone(storage: Pick<Storage, 'getItem'> = window.localStorage): string | undefined {
  const tz = storage.getItem(StorageKeys.timezone) ?? '';
  return tz !== '' && knownZone(tz) ? tz : undefined;
}

// The tenant in scope's zone (the customer's, else its MSP's), published by the header once read.
let tenantZone: string | undefined;
const zoneListeners = new Set<() => void>();

/**
 * Publishes the time zone of the tenant in scope (the selected customer's, else the MSP's; '' or
 * undefined: none), used when the profile names no zone. Components using {@link useFormat} re-render.
 */
export function setTenantTimeZone(tz: string | undefined): void {
  const next = tz && knownZone(tz) ? tz : undefined;
  if (next === tenantZone) return;
  tenantZone = next;
  for (const l of zoneListeners) l();
}

/**
 * The zone every instant is shown in: the profile's (`userTimeZone`), else the tenant's
 * ({@link setTenantTimeZone}), else undefined (the browser's).
 */
export function effectiveTimeZone(storage?: Pick<Storage, 'getItem'>): string | undefined {
  return userTimeZone(storage) ?? tenantZone;
}

function toDate(value: Instant): Date {
  return value instanceof Date ? value : new Date(value);
}

function zoned(timeZone: string | undefined): { timeZone?: string } {
  return timeZone ? { timeZone } : {};
}

/** Formats `value` with `options`, or gives the input back as text when it is not an instant (or the zone is unknown). */
function dateText(value: Instant, lang: string, timeZone: string | undefined, options: Intl.DateTimeFormatOptions) {
  const d = toDate(value);
  if (Number.isNaN(d.getTime())) return String(value);
  try {
    return new Intl.DateTimeFormat(lang, { ...options, ...zoned(timeZone) }).format(d);
  } catch {
    return String(value);
  }
}

/** A date ("27 Nov 2026", "27 nov. 2026") in `timeZone` with the conventions of `lang`. */
export function formatDate(value: Instant, lang = 'en', timeZone: string | undefined = effectiveTimeZone()): string {
  return dateText(value, lang, timeZone, { dateStyle: 'medium' });
}

/** A date and time to the minute in `timeZone` with the conventions of `lang`. */
export function formatDateTime(
  value: Instant,
  lang = 'en',
  timeZone: string | undefined = effectiveTimeZone(),
): string {
  return dateText(value, lang, timeZone, { dateStyle: 'medium', timeStyle: 'short' });
}

/** A logged query's time, to the second (short date), in `timeZone` with the conventions of `lang`. */
export function formatLogTime(value: Instant, lang = 'en', timeZone: string | undefined = effectiveTimeZone()): string {
  return dateText(value, lang, timeZone, { dateStyle: 'short', timeStyle: 'medium' });
}

/**
 * A chart's or an hourly report's hour label in `timeZone`, on the 24-hour clock in both languages
 * (a chart axis reads "00:00", not "12:00 AM"), with `withDate` the day and month in the
 * language's order ("11/16 00:00", "16/11 00:00"). An unparsable time or unknown zone gives the
 * text back.
 */
export function formatHour(value: Instant, withDate: boolean, timeZone?: string, lang = 'en'): string {
  return dateText(value, lang, timeZone, {
    ...(withDate ? { day: '2-digit', month: '2-digit' } : {}),
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).replace(',', '');
}

/** A calendar day `YYYY-MM-DD` (no zone: it is already a local day) as a short day and month ("27 Nov", "27 nov."). */
export function formatDay(day: string, lang = 'en'): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!m) return day;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return new Intl.DateTimeFormat(lang, { day: 'numeric', month: 'short', timeZone: 'UTC' }).format(d);
}

/** A whole or decimal number with the grouping of `lang` ("12,345", "12 345"). */
export function formatNumber(value: number, lang = 'en', options?: Intl.NumberFormatOptions): string {
  return new Intl.NumberFormat(lang, options).format(value);
}

/**
 * A count for dashboards (spec-notes §9 count formatter): up to 999 as is, above with one decimal and a
 * `k` in the language's conventions ("1.2k", "1,2 k").
 */
export function formatCount(value: number, lang = 'en'): string {
  if (value <= 999) return formatNumber(value, lang);
  const k = formatNumber(value / 1000, lang, { minimumFractionDigits: 1, maximumFractionDigits: 1 });
  return lang === 'fr' ? `${k}\u202fk` : `${k}k`;
}

/** A share 0–1 as a whole percentage in the language's conventions ("42%", "42 %"). */
export function formatPercent(ratio: number, lang = 'en'): string {
  return new Intl.NumberFormat(lang, { style: 'percent', maximumFractionDigits: 0 }).format(ratio);
}

/** The formatting functions bound to one language and zone, as {@link useFormat} gives them. */
export interface Formatter {
  lang: string;
  /** undefined: the browser's zone. */
  timeZone: string | undefined;
  date(value: Instant): string;
  dateTime(value: Instant): string;
  logTime(value: Instant): string;
  hour(value: Instant, withDate: boolean): string;
  day(day: string): string;
  number(value: number, options?: Intl.NumberFormatOptions): string;
  count(value: number): string;
  percent(ratio: number): string;
}

/** A {@link Formatter} for `lang` in `timeZone`. */
export function createFormatter(lang: string, timeZone: string | undefined): Formatter {
  return {
    lang,
    timeZone,
    date: (v) => formatDate(v, lang, timeZone),
    dateTime: (v) => formatDateTime(v, lang, timeZone),
    logTime: (v) => formatLogTime(v, lang, timeZone),
    hour: (v, withDate) => formatHour(v, withDate, timeZone, lang),
    day: (d) => formatDay(d, lang),
    number: (v, o) => formatNumber(v, lang, o),
    count: (v) => formatCount(v, lang),
    percent: (r) => formatPercent(r, lang),
  };
}

function subscribe(listener: () => void) {
  zoneListeners.add(listener);
  // The profile page writes the zone to local storage: another tab's change arrives as an event.
  window.addEventListener('storage', listener);
  return () => {
    zoneListeners.delete(listener);
    window.removeEventListener('storage', listener);
  };
}

/**
 * The formatter of the interface language and the effective zone ({@link effectiveTimeZone});
 * re-renders when either changes.
 */
export function useFormat(): Formatter {
  const { i18n } = useTranslation();
  // Rendered to a string (tests, no window): the tenant's zone only, there is no profile storage.
  const timeZone = useSyncExternalStore(
    subscribe,
    () => effectiveTimeZone(),
    () => tenantZone,
  );
  const lang = i18n.language || 'en';
  return useMemo(() => createFormatter(lang, timeZone), [lang, timeZone]);
}
