import { describe, expect, it } from 'vitest';
import { sparkPoints, sparkSeries, trendFor } from './trend.ts';

const history = {
  data: [
    { date: '2026-11-23', requests: 5, allowed: 5, blocked: 0 },
    { date: '2026-11-24', requests: 100, allowed: 80, blocked: 20 },
    { date: '2026-11-25', requests: 150, allowed: 140, blocked: 10 },
    { date: '2026-11-26', requests: 7, allowed: 7, blocked: 0 },
  ],
};

describe('trendFor', () => {
  it('compares yesterday with the day before', () => {
    expect(trendFor('yesterday', history, 'requests')).toEqual({ current: 150, previous: 100, ratio: 0.5 });
    expect(trendFor('yesterday', history, 'blocked')).toEqual({ current: 10, previous: 20, ratio: -0.5 });
  });
  it('has no ratio when the day before counted nothing', () => {
    const h = { data: [history.data[0]!, { ...history.data[1]!, blocked: 0 }, history.data[2]!, history.data[3]!] };
    expect(trendFor('yesterday', h, 'blocked')).toEqual({ current: 10, previous: 0, ratio: null });
  });
  it('gives no trend for periods without an equal previous period in the history', () => {
    for (const p of ['today', '7days', '30days'] as const) expect(trendFor(p, history, 'requests')).toBeNull();
    expect(trendFor('yesterday', { data: history.data.slice(2) }, 'requests')).toBeNull();
  });
});

describe('sparkline', () => {
  const traffic = {
    data: [
      { time: '2026-11-26T00:00:00Z', allowed: 1, blocked: 3 },
      { time: '2026-11-26T01:00:00Z', allowed: 4, blocked: 0 },
    ],
  };
  it('sums allowed and blocked for requests', () => {
    expect(sparkSeries(traffic, 'requests')).toEqual([4, 4]);
    expect(sparkSeries(traffic, 'blocked')).toEqual([3, 0]);
  });
  it('scales the points to the box, the largest value at the top', () => {
    expect(sparkPoints([0, 2, 1], 100, 22)).toBe('0.0,21.0 50.0,1.0 100.0,11.0');
    expect(sparkPoints([3], 100, 22)).toBe('');
  });
});
