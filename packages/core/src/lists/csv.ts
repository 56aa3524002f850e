import {
  ApiError,
  Constants,
  controlCharactersMessage,
  csvText,
  DOMAIN_CSV_COLUMNS,
  type DomainAction,
  type DomainEntry,
  Messages,
  parseListDomain,
} from '@cordon/shared';
import { CsvError, parse } from 'csv-parse/sync';
import type { EntryFields } from './repository.ts';

/** `Line N: message` as the import's error and its `csv` field (the first bad line is named). */
function badLine(line: number, message: string): ApiError {
  const text = `Line ${line}: ${message}`;
  return new ApiError('ERR_VALIDATION', text, { csv: text });
}

const TRUE = new Set(['true', '1', 'yes', 'y', 'on']);
const FALSE = new Set(['false', '0', 'no', 'n', 'off']);

function flag(value: string | undefined, line: number, column: string): boolean {
  const v = (value ?? '').trim().toLowerCase();
  if (v === '') return true;
  if (TRUE.has(v)) return true;
  if (FALSE.has(v)) return false;
  throw badLine(line, `${column} must be true or false.`);
}

/**
 * Parses a domain-list CSV (spec-notes §9: CSV, at most 1 MB, one domain per line) for the `action` list.
 * Each line is a domain, optionally followed by `include_subdomains`, `comment` and `log_requests`;
 * a first line starting with `domain` is a header naming the columns (an export's
 * {@link DOMAIN_CSV_COLUMNS}), in any order. Flags take true/false, 1/0, yes/no and default to true;
 * an `object` column, when filled, must name `action`. Blank lines and lines starting with `#` are
 * skipped; a domain listed twice keeps its first line.
 * @returns the entries, in file order
 * @throws ApiError ERR_VALIDATION naming the first bad line (`Line N: …`, field `csv`), or for a file
 *   over 1 MB or without any domain
 */
export function parseDomainCsv(text: string, action: DomainAction): EntryFields[] {
  if (Buffer.byteLength(text, 'utf8') > Constants.maxUploadBytes) {
    throw new ApiError('ERR_VALIDATION', Messages.fileTooLarge, { csv: Messages.fileTooLarge });
  }
  let records: Array<{ record: string[]; info: { lines: number } }>;
  try {
    records = parse(text, {
      bom: true,
      comment: '#',
      skip_empty_lines: true,
      relax_column_count: true,
      trim: true,
      info: true,
    }) as unknown as Array<{ record: string[]; info: { lines: number } }>;
  } catch (e) {
    const line = e instanceof CsvError ? Number((e as CsvError & { lines?: number }).lines ?? 0) : 0;
    throw badLine(line, 'not valid CSV.');
  }
  let columns: readonly string[] = ['domain', 'include_subdomains', 'comment', 'log_requests'];
  const first = records[0];
  if (first && first.record[0]?.trim().toLowerCase() === 'domain') {
    columns = first.record.map((c) => c.trim().toLowerCase());
    records = records.slice(1);
  }
  const at = (name: string) => columns.indexOf(name);
  const [iDomain, iSub, iComment, iLog, iObject] = [
    at('domain'),
    at('include_subdomains'),
    at('comment'),
    at('log_requests'),
    at('object'),
  ];
  const seen = new Set<string>();
  const out: EntryFields[] = [];
  for (const { record, info } of records) {
    const line = info.lines;
    const raw = record[iDomain] ?? '';
    if (raw.trim() === '' && record.every((f) => f.trim() === '')) continue;
    const domain = parseListDomain(raw);
    if (domain === null) throw badLine(line, Messages.domainOnly);
    const object = iObject >= 0 ? (record[iObject] ?? '').trim().toLowerCase() : '';
    if (object !== '' && object !== action) throw badLine(line, `the entry is for the ${object} list, not ${action}.`);
    const comment = iComment >= 0 ? (record[iComment] ?? '').trim() : '';
    if (comment.length > Constants.textMax) throw badLine(line, Messages.max200);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
    if (/[\x00-\x1f\x7f]/.test(comment)) throw badLine(line, controlCharactersMessage);
    const entry: EntryFields = {
      domain,
      include_subdomains: flag(iSub >= 0 ? record[iSub] : undefined, line, 'include_subdomains'),
      comment,
      log_requests: flag(iLog >= 0 ? record[iLog] : undefined, line, 'log_requests'),
    };
    if (seen.has(domain)) continue;
    seen.add(domain);
    out.push(entry);
  }
  if (out.length === 0)
    throw new ApiError('ERR_VALIDATION', 'The file has no domains.', { csv: 'The file has no domains.' });
  return out;
}

/** The CSV export of entries: a {@link DOMAIN_CSV_COLUMNS} header, then one line per entry (CRLF, RFC 4180). */
export function formatDomainCsv(entries: readonly DomainEntry[]): string {
  return csvText(
    DOMAIN_CSV_COLUMNS,
    entries.map((e) => [e.domain, e.object, e.include_subdomains, e.comment, e.log_requests]),
  );
}
