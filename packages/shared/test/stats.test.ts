import { describe, expect, it } from 'vitest';
import { statsRange, timeZoneOffsetMs, zonedMidnight } from '../src/stats.ts';

const at = (iso: string) => Date.parse(iso);

describe('statsRange (docs/architecture.md "Statistics")', () => {
  it('reads today and yesterday in the tenant time zone', () => {
    // 2026-03-10 02:00 UTC is still 2026-03-09 in New York (UTC-4 after the DST change on 03-08).
    const now = at('2026-03-10T02:00:00Z');
    expect(statsRange('today', 'America/New_York', now)).toEqual({
      from: at('2026-03-09T04:00:00Z'),
      to: at('2026-03-10T04:00:00Z'),
    });
    expect(statsRange('yesterday', 'America/New_York', now)).toEqual({
      from: at('2026-03-08T05:00:00Z'),
      to: at('2026-03-09T04:00:00Z'),
    });
    expect(statsRange('today', 'UTC', now)).toEqual({
      from: at('2026-03-10T00:00:00Z'),
      to: at('2026-03-11T00:00:00Z'),
    });
  });

  it('covers 7 and 30 days ending with today, and a given date', () => {
    const now = at('2026-11-21T12:00:00Z');
    expect(statsRange('7days', 'UTC', now)).toEqual({
      from: at('2026-11-15T00:00:00Z'),
      to: at('2026-11-22T00:00:00Z'),
    });
    expect(statsRange('30days', 'UTC', now).from).toBe(at('2026-10-23T00:00:00Z'));
    expect(statsRange('2026-01-31', 'Europe/Paris', now)).toEqual({
      from: at('2026-01-30T23:00:00Z'),
      to: at('2026-01-31T23:00:00Z'),
    });
  });

  it('refuses unknown and impossible dates', () => {
    expect(() => statsRange('tomorrow', 'UTC', 0)).toThrow(RangeError);
    expect(() => statsRange('2026-02-30', 'UTC', 0)).toThrow(/Impossible/);
  });

  it('knows offsets and midnights across DST', () => {
    expect(timeZoneOffsetMs('Europe/Paris', at('2026-07-01T00:00:00Z'))).toBe(2 * 3600_000);
    expect(zonedMidnight('Europe/Paris', 2026, 3, 29)).toBe(at('2026-03-28T23:00:00Z'));
  });
});
