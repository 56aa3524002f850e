import { describe, expect, it } from 'vitest';
import { dailyTraffic } from './dailyTraffic.ts';

/** `n` hourly points from `start` (UTC), each with `allowed` = its hour index and 1 blocked. */
function hours(start: string, n: number) {
  const t0 = Date.parse(start);
  return {
    data: Array.from({ length: n }, (_, i) => ({
      time: new Date(t0 + i * 3_600_000).toISOString(),
      allowed: i,
      blocked: 1,
    })),
  };
}

describe('dailyTraffic (issue 29: daily bars over 7 and 30 days)', () => {
  it('sums 7 × 24 hours into 7 days in UTC', () => {
    const days = dailyTraffic(hours('2026-11-21T00:00:00Z', 168), 'UTC');
    expect(days.map((d) => d.date)).toEqual([
      '2026-11-21',
      '2026-11-22',
      '2026-11-23',
      '2026-11-24',
      '2026-11-25',
      '2026-11-26',
      '2026-11-27',
    ]);
    // Day k holds hours 24k … 24k+23: allowed sums to 24·24k + 276.
    expect(days.map((d) => d.allowed)).toEqual([0, 1, 2, 3, 4, 5, 6].map((k) => 576 * k + 276));
    expect(days.every((d) => d.blocked === 24)).toBe(true);
  });

  it('counts each hour on its date in the given zone', () => {
    // Paris is UTC+1 in November: 23:00Z is already the next day there.
    const paris = dailyTraffic(hours('2026-11-26T22:00:00Z', 3), 'Europe/Paris');
    expect(paris).toEqual([
      { date: '2026-11-26', allowed: 0, blocked: 1 },
      { date: '2026-11-27', allowed: 3, blocked: 2 },
    ]);
    // Los Angeles is UTC−8: the same hours are all on the 26th.
    expect(dailyTraffic(hours('2026-11-26T22:00:00Z', 3), 'America/Los_Angeles')).toEqual([
      { date: '2026-11-26', allowed: 3, blocked: 3 },
    ]);
  });

  it('keeps the total of the hours', () => {
    const traffic = hours('2026-10-28T00:00:00Z', 720);
    const days = dailyTraffic(traffic, 'Pacific/Auckland');
    const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
    expect(sum(days.map((d) => d.allowed))).toBe(sum(traffic.data.map((p) => p.allowed)));
    expect(sum(days.map((d) => d.blocked))).toBe(720);
    // 30 UTC days seen from UTC+13 straddle 31 local dates.
    expect(days).toHaveLength(31);
  });
});
