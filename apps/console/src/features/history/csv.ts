import { csvText, type HistoryEntry } from '@cordon/shared';

/** A category's name in the interface language, by id and the API's (English) name (components/categoryName.ts). */
export type CategoryNamer = (id: number, fallback?: string) => string;

/**
 * The history rows as CSV (RFC 4180, CRLF): time (ISO-8601 UTC), qname, qtype, action, reason,
 * categories, client, location, RCODE, who asked: user, device, group (empty when unknown), and the
 * matched name: the answer's alias whose decision it was (docs/api.md "History"; empty when the
 * decision was made on the qname). New columns go last, so an export read by column position keeps
 * reading the same ones. The categories are named by `categoryName` (the interface language, issue 29
 * "French complete, category names included"); without it, as the API names them (English).
 */
export function historyCsv(rows: readonly HistoryEntry[], categoryName?: CategoryNamer): string {
  const head = [
    'time',
    'qname',
    'qtype',
    'action',
    'reason',
    'categories',
    'client_ip',
    'location',
    'rcode',
    'user',
    'device',
    'group',
    'matched_name',
  ];
  return csvText(
    head,
    rows.map((r) => [
      r.time,
      r.qname,
      r.qtype,
      r.action,
      r.reason,
      r.categories.map((c) => (categoryName ? categoryName(c.id, c.name) : c.name)).join('; '),
      r.client_ip,
      r.location,
      r.rcode,
      r.user,
      r.device,
      r.group,
      r.matched_name,
    ]),
  );
}
