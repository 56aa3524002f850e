import { afterEach, describe, expect, it } from 'vitest';
import {
  createFormatter,
  effectiveTimeZone,
  formatCount,
  formatDate,
  formatDateTime,
  formatDay,
  formatHour,
  formatLogTime,
  formatNumber,
  formatPercent,
  setTenantTimeZone,
  userTimeZone,
} from './format.ts';

const storage = (tz: string | null) => ({ getItem: () => tz });

afterEach(() => setTenantTimeZone(undefined));

describe('the time zone: the profile, else the tenant, else the browser (issue 29)', () => {
  it('reads the stored zone; empty or unknown is the system default', () => {
    expect(userTimeZone(storage('Asia/Tokyo'))).toBe('Asia/Tokyo');
    expect(userTimeZone(storage(''))).toBeUndefined();
    expect(userTimeZone(storage(null))).toBeUndefined();
    expect(userTimeZone(storage('Mars/Olympus'))).toBeUndefined();
  });

  it("falls back to the tenant's zone only when the profile names none", () => {
    setTenantTimeZone('America/New_York');
    expect(effectiveTimeZone(storage(''))).toBe('America/New_York');
    expect(effectiveTimeZone(storage('Asia/Tokyo'))).toBe('Asia/Tokyo');
    setTenantTimeZone('Mars/Olympus');
    expect(effectiveTimeZone(storage(''))).toBeUndefined();
  });

  it('formats an instant in that zone: 23:30 UTC is already the next day in Tokyo', () => {
    const iso = '2026-03-01T23:30:00.000Z';
    expect(formatDate(iso, 'en-GB', 'UTC')).toBe('1 Mar 2026');
    expect(formatDate(iso, 'en-GB', 'Asia/Tokyo')).toBe('2 Mar 2026');
    expect(formatDateTime(iso, 'en-GB', 'Asia/Tokyo')).toBe('2 Mar 2026, 08:30');
    expect(formatDate(Date.parse(iso), 'en-GB', 'Asia/Tokyo')).toBe('2 Mar 2026');
  });

  it('gives a logged query its second, in that zone, and an unparsable time back as it came', () => {
    expect(formatLogTime('2026-03-01T23:30:07.000Z', 'en-GB', 'Asia/Tokyo')).toBe('02/03/2026, 08:30:07');
    expect(formatLogTime('not a time', 'en-GB', 'UTC')).toBe('not a time');
  });
});

describe("the language's conventions (en, fr)", () => {
  const iso = '2026-11-27T15:05:00.000Z';

  it('writes dates in English and in French', () => {
    expect(formatDate(iso, 'en', 'Europe/Paris')).toBe('Nov 27, 2026');
    expect(formatDate(iso, 'fr', 'Europe/Paris')).toBe('27 nov. 2026');
    expect(formatDateTime(iso, 'fr', 'Europe/Paris')).toBe('27 nov. 2026, 16:05');
    expect(formatDateTime(iso, 'en', 'Europe/Paris')).toBe('Nov 27, 2026, 4:05 PM');
    expect(formatDay('2026-11-27', 'fr')).toBe('27 nov.');
    expect(formatDay('2026-11-27', 'en')).toBe('Nov 27');
  });

  it('groups numbers and writes counts and shares the way each language does', () => {
    expect(formatNumber(1234567, 'en')).toBe('1,234,567');
    expect(formatNumber(1234567, 'fr')).toBe('1\u202f234\u202f567');
    expect(formatCount(999, 'en')).toBe('999');
    expect(formatCount(1234, 'en')).toBe('1.2k');
    expect(formatCount(1234, 'fr')).toBe('1,2\u202fk');
    expect(formatPercent(0.42, 'en')).toBe('42%');
    expect(formatPercent(0.42, 'fr')).toBe('42\u00a0%');
  });

  it('binds one language and zone in a formatter', () => {
    const f = createFormatter('fr', 'Asia/Tokyo');
    expect(f.date('2026-03-01T23:30:00.000Z')).toBe('2 mars 2026');
    expect(f.number(12345)).toBe('12\u202f345');
    expect(f.hour('2026-03-01T23:30:00.000Z', true)).toBe('02/03 08:30');
  });
});

describe('daylight saving time edges', () => {
  it('shows the repeated hour of the autumn change twice, with the right offset', () => {
    // Europe/Paris left summer time on 2026-10-25 at 03:00 local (01:00 UTC): 02:30 happens twice.
    expect(formatHour('2026-10-25T00:30:00.000Z', false, 'Europe/Paris')).toBe('02:30');
    expect(formatHour('2026-10-25T01:30:00.000Z', false, 'Europe/Paris')).toBe('02:30');
    expect(formatHour('2026-10-25T02:30:00.000Z', false, 'Europe/Paris')).toBe('03:30');
  });

  it('skips the missing hour of the spring change', () => {
    // Europe/Paris entered summer time on 2026-03-29 at 02:00 local (01:00 UTC): 02:xx never shows.
    expect(formatHour('2026-03-29T00:59:00.000Z', false, 'Europe/Paris')).toBe('01:59');
    expect(formatHour('2026-03-29T01:00:00.000Z', false, 'Europe/Paris')).toBe('03:00');
    expect(formatDateTime('2026-03-29T01:00:00.000Z', 'fr', 'Europe/Paris')).toBe('29 mars 2026, 03:00');
  });

  it('keeps the date right across a late-evening DST change in America/New_York', () => {
    // 2026-11-01 05:30 UTC: 01:30 EDT became 01:30 EST an hour later; both are 1 November.
    expect(formatDate('2026-11-01T05:30:00.000Z', 'en', 'America/New_York')).toBe('Nov 1, 2026');
    expect(formatDate('2026-11-01T06:30:00.000Z', 'en', 'America/New_York')).toBe('Nov 1, 2026');
  });
});

describe('hour labels of the charts and hourly reports', () => {
  it('reads an ISO hour in the given zone, with or without the date', () => {
    expect(formatHour('2026-11-15T23:00:00.000Z', false, 'Europe/Berlin')).toBe('00:00');
    expect(formatHour('2026-11-15T23:00:00.000Z', true, 'Europe/Berlin')).toBe('11/16 00:00');
    expect(formatHour('2026-11-16T00:00:00.000Z', true, 'Asia/Kolkata', 'fr')).toBe('16/11 05:30');
  });

  it('gives the text back for an unknown zone or an unparsable time', () => {
    expect(formatHour('2026-11-16T00:00:00.000Z', false, 'Mars/Olympus')).toBe('2026-11-16T00:00:00.000Z');
    expect(formatHour('soon', true, 'UTC')).toBe('soon');
  });
});
