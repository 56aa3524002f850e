import { describe, expect, it } from 'vitest';
import { calendarDay } from '../src/stats.ts';

describe('calendarDay', () => {
  it('writes YYYY-MM-DD with padded month and day', () => {
    expect(calendarDay(2026, 3, 9)).toBe('2026-03-09');
  });
  it('carries days and months across month and year ends, as Date.UTC does', () => {
    expect(calendarDay(2026, 3, 0)).toBe('2026-02-28');
    expect(calendarDay(2024, 3, 0)).toBe('2024-02-29');
    expect(calendarDay(2026, 1, 32)).toBe('2026-02-01');
    expect(calendarDay(2026, 13, 1)).toBe('2027-01-01');
    expect(calendarDay(2026, 1, -6)).toBe('2025-12-25');
    expect(calendarDay(2026, 0, 1)).toBe('2025-12-01');
  });
});
