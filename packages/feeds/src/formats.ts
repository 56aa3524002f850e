import type { DatabaseHandle } from '@cordon/db';
import { type FeedFormat, isDomainName, isIpAddress, normalizeDomain } from '@cordon/shared';
import { type FeedEntry, parseDomainLine, replaceSourceRows } from './entries.ts';

/*
 * The single-file feed formats (`FeedFormat`, docs/operations.md "Category feeds"):
 * - `domains`: one name per line, `#` comments (the UT1 `domains` file format);
 * - `hosts`: a hosts file, `0.0.0.0 name [name…]` (any address), `#` comments;
 * - `adblock`: AdBlock-style network rules, of which only whole-domain blocks `||name^` apply to DNS.
 */

/** A line that is valid in its format but says nothing a DNS filter can apply (a path rule, an exception, cosmetics). */
export type FeedLine = FeedEntry | { kind: 'unsupported'; text: string };

/** Names every hosts file lists for the machine itself; never categorised. */
const HOSTS_SELF = new Set([
  'localhost',
  'localhost.localdomain',
  'local',
  'broadcasthost',
  'ip6-localhost',
  'ip6-loopback',
  'ip6-localnet',
  'ip6-mcastprefix',
  'ip6-allnodes',
  'ip6-allrouters',
  'ip6-allhosts',
  '0.0.0.0',
]);

/** The names of one hosts-file line: the address, then one or more names (hosts(5)). */
function parseHostsLine(line: string): FeedLine[] {
  const hash = line.indexOf('#');
  const text = (hash >= 0 ? line.slice(0, hash) : line).trim();
  if (text === '') return [{ kind: 'blank' }];
  const [address, ...names] = text.split(/\s+/);
  if (address === undefined || !isIpAddress(address) || names.length === 0) {
    return [{ kind: 'invalid', text: line.trim() }];
  }
  const out: FeedLine[] = [];
  for (const raw of names) {
    const name = normalizeDomain(raw);
    if (HOSTS_SELF.has(name)) continue;
    out.push(isDomainName(name) ? { kind: 'domain', name } : { kind: 'invalid', text: raw });
  }
  return out.length > 0 ? out : [{ kind: 'blank' }];
}

/**
 * One AdBlock-style line. `||name^` blocks `name` and its subdomains: exactly Cordon's match, so it
 * becomes a categorised name. A `$` option list is accepted only when every option leaves the whole
 * domain blocked (`important`, `all`, `document`, `third-party`/`3p` and `popup` do not narrow a DNS
 * answer); anything else (`@@` exceptions, paths, wildcards, cosmetic `##` rules, other options) is
 * `unsupported`: a DNS filter cannot apply it, and applying it wider would block too much.
 */
function parseAdblockLine(line: string): FeedLine[] {
  const text = line.trim();
  if (text === '' || text.startsWith('!') || (text.startsWith('[') && text.endsWith(']'))) return [{ kind: 'blank' }];
  const match = /^\|\|([^/^$*|]+)\^(?:\|)?(?:\$(.*))?$/.exec(text);
  if (!match?.[1]) return [{ kind: 'unsupported', text }];
  const options = match[2]?.split(',').map((o) => o.trim().toLowerCase()) ?? [];
  const wholeDomain = new Set(['important', 'all', 'document', 'doc', 'third-party', '3p', 'popup']);
  if (!options.every((o) => wholeDomain.has(o))) return [{ kind: 'unsupported', text }];
  const name = normalizeDomain(match[1]);
  if (isIpAddress(name)) return [{ kind: 'ip' }];
  return [isDomainName(name) ? { kind: 'domain', name } : { kind: 'invalid', text }];
}

/**
 * Classifies one line of a feed in `format`; a hosts line can name several hosts.
 * @returns one entry per name (at least one entry per line)
 */
export function parseFeedLine(format: FeedFormat, line: string): FeedLine[] {
  if (format === 'hosts') return parseHostsLine(line);
  if (format === 'adblock') return parseAdblockLine(line);
  return [parseDomainLine(line)];
}

/** What a single-file feed import did. */
export interface FeedImportReport {
  /** The `category_domains.source` the rows are stored under. */
  readonly source: string;
  /** Distinct names now held for the source. */
  readonly rows: number;
  readonly ipEntries: number;
  readonly invalidEntries: number;
  readonly unsupportedEntries: number;
  /** Up to five refused lines, for the operator. */
  readonly examples: readonly string[];
  readonly durationMs: number;
}

/**
 * Imports one feed file's `lines` into `category_domains` as `categoryIds` under `source`,
 * replacing what that source held, in ONE transaction (idempotent, all or nothing; a failed write
 * leaves the previous rows). Addresses, invalid and unsupported lines are counted, not stored, like
 * UT1's odd lines (docs/decisions.md "Categories").
 * @param lines the file's lines (any iterable: a split string or a readline stream)
 * @throws Error when `categoryIds` is empty or the database write fails
 */
export async function importFeedLines(
  handle: DatabaseHandle,
  lines: Iterable<string> | AsyncIterable<string>,
  options: { format: FeedFormat; categoryIds: readonly number[]; source: string },
): Promise<FeedImportReport> {
  if (options.categoryIds.length === 0) throw new Error('A feed needs at least one category');
  const started = Date.now();
  const { source } = options;
  let ipEntries = 0;
  let invalidEntries = 0;
  let unsupportedEntries = 0;
  const examples: string[] = [];
  const seen = new Set<string>();
  await replaceSourceRows(handle, source, async (add) => {
    for await (const line of lines) {
      for (const entry of parseFeedLine(options.format, line)) {
        if (entry.kind === 'domain') {
          if (seen.has(entry.name)) continue;
          seen.add(entry.name);
          await add(entry.name, options.categoryIds);
        } else if (entry.kind === 'ip') ipEntries++;
        else if (entry.kind === 'invalid' || entry.kind === 'unsupported') {
          if (entry.kind === 'invalid') invalidEntries++;
          else unsupportedEntries++;
          if (examples.length < 5) examples.push(entry.text.slice(0, 200));
        }
      }
    }
  });
  return {
    source,
    rows: seen.size,
    ipEntries,
    invalidEntries,
    unsupportedEntries,
    examples,
    durationMs: Date.now() - started,
  };
}
