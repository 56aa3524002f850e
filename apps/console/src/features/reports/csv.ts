import { csvText, ddmmyyyy, type Report } from '@cordon/shared';

/**
 * A report's rows as CSV (RFC 4180, CRLF): key, name, requests, allowed, blocked. A category
 * report's names are `categoryName(id, API name)` (the interface language, issue 29 "French
 * complete, category names included": its key is the category id); without it, the API's (English).
 */
export function reportCsv(report: Report, categoryName?: (id: number, fallback?: string) => string): string {
  const name = (r: Report['rows'][number]) =>
    categoryName && report.dimension === 'category' ? categoryName(Number(r.key), r.name) : r.name;
  return csvText(
    ['key', 'name', 'requests', 'allowed', 'blocked'],
    report.rows.map((r) => [r.key, name(r), r.requests, r.allowed, r.blocked]),
  );
}

/** The CSV file name of a report: `r_blocked_category-22-11-2026.csv` (the browser's local date). */
export function reportCsvName(report: Pick<Report, 'code'>, today: Date): string {
  return `${report.code}-${ddmmyyyy(today)}.csv`;
}
