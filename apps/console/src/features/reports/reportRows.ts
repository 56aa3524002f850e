import type { Report } from '@cordon/shared';
import { formatHour } from '../../components/format.ts';

/** One row of a report as the API answers it. */
export type ReportRow = Report['rows'][number];

/** The columns a report table sorts by: the row's name (time rows: their time) or one of its counts. */
export type ReportSortKey = 'name' | 'requests' | 'allowed' | 'blocked';

/** Whether a report's rows are points in time (`hour`, `day`): kept in time order, not searched. */
export function isTimeDimension(dimension: string): boolean {
  return dimension === 'hour' || dimension === 'day';
}

/**
 * The default sort of a report table: time rows in time order, the others by requests, most
 * first — the order the API answers in (docs/api.md "Reports").
 */
export function defaultReportSort(dimension: string): { key: ReportSortKey; dir: 'asc' | 'desc' } {
  return isTimeDimension(dimension) ? { key: 'name', dir: 'asc' } : { key: 'requests', dir: 'desc' };
}

/**
 * The rows of one page of a report table, all in the browser: the report carries at most 1000 rows
 * (the API's `limit`), so filtering, sorting and paging need no further request.
 * @param filter case-insensitive text searched in each row's name and key; ignored for time rows
 * @param sort `name` sorts time rows by their ISO key (chronological), other rows by name
 *   (locale order); ties keep the API's order
 * @param page 1-based; a page past the end is clamped to the last one
 * @param pageSize rows per page (spec-notes §9: 10)
 * @returns the page's rows, the number of rows that match, and the page actually shown
 */
export function reportRowsPage(
  rows: readonly ReportRow[],
  dimension: string,
  opts: { filter: string; sort: { key: ReportSortKey; dir: 'asc' | 'desc' }; page: number; pageSize: number },
): { rows: ReportRow[]; total: number; page: number } {
  const time = isTimeDimension(dimension);
  const needle = time ? '' : opts.filter.trim().toLowerCase();
  const matching = needle
    ? rows.filter((r) => r.name.toLowerCase().includes(needle) || r.key.toLowerCase().includes(needle))
    : [...rows];
  const { key, dir } = opts.sort;
  const sign = dir === 'asc' ? 1 : -1;
  const indexed = matching.map((row, index) => ({ row, index }));
  indexed.sort((a, b) => {
    let c: number;
    if (key === 'name') {
      c = time ? (a.row.key < b.row.key ? -1 : a.row.key > b.row.key ? 1 : 0) : a.row.name.localeCompare(b.row.name);
    } else {
      c = a.row[key] - b.row[key];
    }
    return c !== 0 ? c * sign : a.index - b.index;
  });
  const pages = Math.max(1, Math.ceil(indexed.length / opts.pageSize));
  const page = Math.min(Math.max(1, opts.page), pages);
  const start = (page - 1) * opts.pageSize;
  return { rows: indexed.slice(start, start + opts.pageSize).map((x) => x.row), total: indexed.length, page };
}

/**
 * Day, month and `HH:mm` of an ISO hour in the report's time zone (the zone its days are counted
 * in, shown beside its period), in the order of `lang` (the console's formatter, `format.ts`), so
 * the rows and the chart read the same hours as the period above them.
 * @param timeZone an IANA zone; an unknown zone or an unparsable time gives the ISO text back
 */
export function reportHourName(iso: string, timeZone: string, lang = 'en'): string {
  return formatHour(iso, true, timeZone, lang);
}
