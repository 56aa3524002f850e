import { csvText, ddmmyyyy, type Report } from '@cordon/shared';

/** A report's rows as CSV (RFC 4180, CRLF): key, name, requests, allowed, blocked. */
export function reportCsv(report: Report): string {
  return csvText(
    ['key', 'name', 'requests', 'allowed', 'blocked'],
    report.rows.map((r) => [r.key, r.name, r.requests, r.allowed, r.blocked]),
  );
}

/** The CSV file name of a report: `r_blocked_category-22-11-2026.csv` (the browser's local date). */
export function reportCsvName(report: Pick<Report, 'code'>, today: Date): string {
  return `${report.code}-${ddmmyyyy(today)}.csv`;
}
