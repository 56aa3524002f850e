import { describe, expect, it } from 'vitest';
import { reportCsv, reportCsvName } from './csv.ts';

describe('report CSV', () => {
  const report = {
    code: 'r_blocked_category',
    type: 'blocked',
    dimension: 'category',
    start: '2026-11-16',
    end: '2026-11-22',
    timezone: 'UTC',
    total: 3,
    rows: [{ key: '6', name: 'Spyware, Malicious', requests: 3, allowed: 0, blocked: 3 }],
  };
  it('writes one row per key with quoted names', () => {
    expect(reportCsv(report)).toBe('key,name,requests,allowed,blocked\r\n6,"Spyware, Malicious",3,0,3\r\n');
  });
  it('names the file with DD-MM-YYYY (spec-notes §9)', () => {
    expect(reportCsvName(report, new Date(2026, 10, 2))).toBe('r_blocked_category-02-11-2026.csv');
  });
});
