import { describe, expect, it } from 'vitest';
import { formatDate, formatDateTime, formatHour, formatLogTime, userTimeZone } from './dates.ts';

const storage = (tz: string | null) => ({ getItem: () => tz });

describe("dates in the user's time zone (spec §3 timezone)", () => {
  it('reads the stored zone; empty or unknown is the system default', () => {
    expect(userTimeZone(storage('Asia/Tokyo'))).toBe('Asia/Tokyo');
    expect(userTimeZone(storage(''))).toBeUndefined();
    expect(userTimeZone(storage(null))).toBeUndefined();
    expect(userTimeZone(storage('Mars/Olympus'))).toBeUndefined();
  });

  it('formats an instant in that zone: 23:30 UTC is already the next day in Tokyo', () => {
    const iso = '2026-03-01T23:30:00.000Z';
    expect(formatDate(iso, 'en-GB', 'UTC')).toBe('1 Mar 2026');
    expect(formatDate(iso, 'en-GB', 'Asia/Tokyo')).toBe('2 Mar 2026');
    expect(formatDateTime(iso, 'en-GB', 'Asia/Tokyo')).toBe('2 Mar 2026, 08:30');
  });

  it('gives a logged query its second, in that zone, and an unparsable time back as it came', () => {
    expect(formatLogTime('2026-03-01T23:30:07.000Z', 'en-GB', 'Asia/Tokyo')).toBe('02/03/2026, 08:30:07');
    expect(formatLogTime('not a time', 'en-GB', 'UTC')).toBe('not a time');
  });
});

describe('hour labels of the charts and hourly reports', () => {
  it('reads an ISO hour in the given zone, with or without the date', () => {
    expect(formatHour('2026-11-15T23:00:00.000Z', false, 'Europe/Berlin')).toBe('00:00');
    expect(formatHour('2026-11-15T23:00:00.000Z', true, 'Europe/Berlin')).toBe('16.11 00:00');
    expect(formatHour('2026-11-16T00:00:00.000Z', true, 'Asia/Kolkata')).toBe('16.11 05:30');
  });

  it('gives the text back for an unknown zone or an unparsable time', () => {
    expect(formatHour('2026-11-16T00:00:00.000Z', false, 'Mars/Olympus')).toBe('2026-11-16T00:00:00.000Z');
    expect(formatHour('soon', true, 'UTC')).toBe('soon');
  });
});
