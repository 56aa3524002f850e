import { isDomainName, isIpAddress } from '@cordon/shared';

/** One line of a domain feed, classified. */
export type FeedEntry =
  | { kind: 'domain'; name: string }
  | { kind: 'ip' }
  | { kind: 'blank' }
  | { kind: 'invalid'; text: string };

/**
 * Classifies one line of a plain domain list (UT1 `domains` files, one name per line).
 * UT1 quirks handled: a leading `.` is stripped (dynamic-dns), literal IPv4 entries are reported
 * as `ip` (DNS filtering matches names, not addresses), `#` starts a comment.
 */
export function parseDomainLine(line: string): FeedEntry {
  let text = line;
  const hash = text.indexOf('#');
  if (hash >= 0) text = text.slice(0, hash);
  text = text.trim().toLowerCase();
  if (text === '') return { kind: 'blank' };
  while (text.startsWith('.')) text = text.slice(1);
  if (text.endsWith('.')) text = text.slice(0, -1);
  if (isIpAddress(text)) return { kind: 'ip' };
  // Single-label entries (a bare TLD) are valid in UT1's suffix semantics.
  if (isDomainName(text, { allowSingleLabel: true })) return { kind: 'domain', name: text };
  return { kind: 'invalid', text: line.trim() };
}
