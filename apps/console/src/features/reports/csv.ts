import type { Report } from '@cordon/shared';

/** `DD-MM-YYYY` of a local date (spec §9: CSV file names carry the date as DD-MM-YYYY). */
export function ddmmyyyy(d: Date): string {
  return `${String(d.getDate()).padStart(2, '0')}-${String(d.getMonth() + 1).padStart(2, '0')}-${d.getFullYear()}`;
}

function field(value: string): string {
  const safe = /^[=+\-@]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** A report's rows as CSV (RFC 4180, CRLF): key, name, requests, allowed, blocked. */
export function reportCsv(report: Report): string {
  const lines = report.rows.map((r) =>
    [r.key, r.name, String(r.requests), String(r.allowed), String(r.blocked)].map(field).join(','),
  );
  return `${['key,name,requests,allowed,blocked', ...lines].join('\r\n')}\r\n`;
}

/** The CSV file name of a report: `r_blocked_category-22-11-2026.csv`. */
export function reportCsvName(report: Pick<Report, 'code'>, today: Date): string {
  return `${report.code}-${ddmmyyyy(today)}.csv`;
}
