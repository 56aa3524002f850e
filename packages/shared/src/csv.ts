/**
 * The one CSV writer of the exports (domain lists, audit log, history, reports): RFC 4180 fields and
 * lines, and the DD-MM-YYYY date of their file names (docs/spec-notes.md §9).
 */

/** A value of one CSV cell: numbers are written with `String`, null and undefined as an empty cell. */
export type CsvValue = string | number | boolean | null | undefined;

/**
 * One CSV field (RFC 4180 §2): quoted when it holds a comma, a double quote or a line break, quotes
 * doubled inside. A text starting with `=`, `+`, `-`, `@`, a tab or a carriage return gets a leading
 * `'` so a spreadsheet shows it as text instead of running it as a formula (OWASP "CSV Injection").
 */
export function csvField(value: CsvValue): string {
  if (value === null || value === undefined) return '';
  const text = String(value);
  const safe = /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

/**
 * A whole CSV document: the header line, then one line per row, each line ended by CRLF (RFC 4180 §2),
 * every cell through {@link csvField}.
 * @param header the column names, in order
 * @param rows the cells of each row, in the header's order
 */
export function csvText(header: readonly string[], rows: Iterable<readonly CsvValue[]>): string {
  const lines = [header.map(csvField).join(',')];
  for (const row of rows) lines.push(row.map(csvField).join(','));
  return `${lines.join('\r\n')}\r\n`;
}

/**
 * `DD-MM-YYYY` of a date, the form CSV download file names carry (docs/spec-notes.md §9).
 * @param zone `local`: the date in the running process's time zone (the browser's, in the console);
 *   `utc`: the date in UTC (the API's file names)
 */
export function ddmmyyyy(date: Date, zone: 'local' | 'utc' = 'local'): string {
  const [day, month, year] =
    zone === 'utc'
      ? [date.getUTCDate(), date.getUTCMonth() + 1, date.getUTCFullYear()]
      : [date.getDate(), date.getMonth() + 1, date.getFullYear()];
  return `${String(day).padStart(2, '0')}-${String(month).padStart(2, '0')}-${year}`;
}
