import { StorageKeys } from '../session/session.ts';

/**
 * The user's time zone (spec §3 "Browser-stored user preferences": `timezone`, set from the
 * profile): an IANA name, or undefined for "Use System Default" (the browser's zone).
 */
export function userTimeZone(storage: Pick<Storage, 'getItem'> = window.localStorage): string | undefined {
  const tz = storage.getItem(StorageKeys.timezone) ?? '';
  if (tz === '') return undefined;
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
    return tz;
  } catch {
    return undefined;
  }
}

/** An ISO-8601 instant as a date in the user's time zone and language (issue 11 "dates in the user's time zone"). */
export function formatDate(iso: string, lang?: string, timeZone: string | undefined = userTimeZone()): string {
  return new Intl.DateTimeFormat(lang, { dateStyle: 'medium', ...(timeZone ? { timeZone } : {}) }).format(
    new Date(iso),
  );
}

/** An ISO-8601 instant as date and time in the user's time zone and language. */
export function formatDateTime(iso: string, lang?: string, timeZone: string | undefined = userTimeZone()): string {
  return new Intl.DateTimeFormat(lang, {
    dateStyle: 'medium',
    timeStyle: 'short',
    ...(timeZone ? { timeZone } : {}),
  }).format(new Date(iso));
}

/** An ISO-8601 instant to the second (a logged query's time), in the user's time zone and language. */
export function formatLogTime(iso: string, lang?: string, timeZone: string | undefined = userTimeZone()): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return new Intl.DateTimeFormat(lang, {
    dateStyle: 'short',
    timeStyle: 'medium',
    ...(timeZone ? { timeZone } : {}),
  }).format(d);
}

/**
 * An ISO-8601 hour as `HH:mm`, or `DD.MM HH:mm` with `withDate`, in `timeZone` (default the
 * browser's): the hour labels of the traffic charts and the hourly report rows. `:30` shows in a
 * half-hour zone. An unparsable time or an unknown zone gives the text back.
 */
export function formatHour(iso: string, withDate: boolean, timeZone?: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  try {
    const parts = new Intl.DateTimeFormat('en-GB', {
      ...(timeZone ? { timeZone } : {}),
      day: '2-digit',
      month: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    }).formatToParts(d);
    const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
    const time = `${part('hour')}:${part('minute')}`;
    return withDate ? `${part('day')}.${part('month')} ${time}` : time;
  } catch {
    return iso;
  }
}
