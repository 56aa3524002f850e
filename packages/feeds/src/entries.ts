import { isDomainName, isIpAddress, normalizeDomain } from '@cordon/shared';

/** One line of a domain feed, classified. */
export type FeedEntry =
  | { kind: 'domain'; name: string }
  | { kind: 'ip' }
  | { kind: 'blank' }
  | { kind: 'invalid'; text: string };

/**
 * Classifies one line of a plain domain list (UT1 `domains` files, one name per line).
 * UT1 quirks handled: leading `.`s are stripped (dynamic-dns), non-ASCII names become their IDNA
 * A-labels, literal IPv4 entries are reported
 * as `ip` (DNS filtering matches names, not addresses), `#` starts a comment.
 */
export function parseDomainLine(line: string): FeedEntry {
  let text = line;
  const hash = text.indexOf('#');
  if (hash >= 0) text = text.slice(0, hash);
  text = text.trim();
  if (text === '') return { kind: 'blank' };
  // The one name normalisation (lower case, no outer dots, IDNA A-labels), as the resolver matches.
  text = normalizeDomain(text.replace(/^\.+/, ''));
  if (isIpAddress(text)) return { kind: 'ip' };
  // Single-label entries (a bare TLD) are valid in UT1's suffix semantics.
  if (isDomainName(text, { allowSingleLabel: true })) return { kind: 'domain', name: text };
  return { kind: 'invalid', text: line.trim() };
}
