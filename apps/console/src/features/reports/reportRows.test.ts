import { describe, expect, it } from 'vitest';
import { defaultReportSort, type ReportRow, reportHourName, reportRowsPage } from './reportRows.ts';

const row = (name: string, requests: number, blocked = 0, key = name): ReportRow => ({
  key,
  name,
  requests,
  allowed: requests - blocked,
  blocked,
});

describe('report table rows', () => {
  const domains = [
    row('news.example', 50, 0),
    row('ads.tracker.example', 30, 30),
    row('mail.example', 30, 1),
    row('Alpha.example', 5, 5),
  ];

  it('keeps the API order by default (requests, most first; ties as answered)', () => {
    const page = reportRowsPage(domains, 'domain', {
      filter: '',
      sort: defaultReportSort('domain'),
      page: 1,
      pageSize: 10,
    });
    expect(page.rows.map((r) => r.name)).toEqual([
      'news.example',
      'ads.tracker.example',
      'mail.example',
      'Alpha.example',
    ]);
    expect(page.total).toBe(4);
  });

  it('sorts by name (locale order) and by a count in both directions', () => {
    const byName = reportRowsPage(domains, 'domain', {
      filter: '',
      sort: { key: 'name', dir: 'asc' },
      page: 1,
      pageSize: 10,
    });
    expect(byName.rows.map((r) => r.name)).toEqual([
      'ads.tracker.example',
      'Alpha.example',
      'mail.example',
      'news.example',
    ]);
    const byBlocked = reportRowsPage(domains, 'domain', {
      filter: '',
      sort: { key: 'blocked', dir: 'asc' },
      page: 1,
      pageSize: 10,
    });
    expect(byBlocked.rows.map((r) => r.blocked)).toEqual([0, 1, 5, 30]);
  });

  it('searches names case-insensitively and pages the matches', () => {
    const found = reportRowsPage(domains, 'domain', {
      filter: '  ALPHA ',
      sort: defaultReportSort('domain'),
      page: 1,
      pageSize: 10,
    });
    expect(found.rows.map((r) => r.name)).toEqual(['Alpha.example']);
    const many = Array.from({ length: 23 }, (_, i) => row(`site${i}.example`, 100 - i));
    const third = reportRowsPage(many, 'domain', {
      filter: '',
      sort: defaultReportSort('domain'),
      page: 3,
      pageSize: 10,
    });
    expect(third).toMatchObject({ total: 23, page: 3 });
    expect(third.rows.map((r) => r.name)).toEqual(['site20.example', 'site21.example', 'site22.example']);
  });

  it('clamps a page past the end to the last page (after a search shrinks the list)', () => {
    const many = Array.from({ length: 23 }, (_, i) => row(`site${i}.example`, 100 - i));
    const page = reportRowsPage(many, 'domain', {
      filter: 'site1',
      sort: defaultReportSort('domain'),
      page: 3,
      pageSize: 10,
    });
    expect(page.total).toBe(11);
    expect(page.page).toBe(2);
    expect(page.rows.map((r) => r.name)).toEqual(['site19.example']);
  });

  it('keeps time rows in time order by key and ignores the search text for them', () => {
    const hours = [
      row('2026-11-16T01:00:00.000Z', 3),
      row('2026-11-15T23:00:00.000Z', 9),
      row('2026-11-16T00:00:00.000Z', 1),
    ];
    expect(defaultReportSort('hour')).toEqual({ key: 'name', dir: 'asc' });
    const page = reportRowsPage(hours, 'hour', {
      filter: 'zzz',
      sort: defaultReportSort('hour'),
      page: 1,
      pageSize: 10,
    });
    expect(page.rows.map((r) => r.key)).toEqual([
      '2026-11-15T23:00:00.000Z',
      '2026-11-16T00:00:00.000Z',
      '2026-11-16T01:00:00.000Z',
    ]);
  });
});

describe('report hour names', () => {
  it("reads an ISO hour in the report's time zone", () => {
    expect(reportHourName('2026-11-15T23:00:00.000Z', 'Europe/Berlin', 'fr')).toBe('16/11 00:00');
    expect(reportHourName('2026-07-01T10:00:00.000Z', 'America/New_York')).toBe('07/01 06:00');
    expect(reportHourName('2026-11-16T00:00:00.000Z', 'Asia/Kolkata', 'fr')).toBe('16/11 05:30');
  });

  it('gives the text back for an unknown zone or time', () => {
    expect(reportHourName('2026-11-16T00:00:00.000Z', 'Not/AZone')).toBe('2026-11-16T00:00:00.000Z');
    expect(reportHourName('yesterday', 'Europe/Berlin')).toBe('yesterday');
  });
});
