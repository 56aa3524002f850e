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
