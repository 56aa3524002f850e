import { bumpCategoryStamp, type DatabaseHandle } from '@cordon/db';
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

/** Rows written per INSERT by {@link replaceSourceRows}. */
const BATCH_ROWS = 2000;

/**
 * Replaces every `category_domains` row of `source` with what `fill` adds, in ONE transaction
 * (docs/decisions.md "Categories": idempotent, all or nothing). `add(name, categoryIds)` queues a name
 * under each category (duplicates are ignored) and resolves true when it wrote a batch, so a caller
 * can report progress.
 * @throws whatever `fill` or the database throws; then the source keeps its previous rows
 */
export async function replaceSourceRows(
  handle: DatabaseHandle,
  source: string,
  fill: (add: (name: string, categoryIds: readonly number[]) => Promise<boolean>) => Promise<void>,
): Promise<void> {
  await handle.db.transaction().execute(async (trx) => {
    await trx.deleteFrom('category_domains').where('source', '=', source).execute();
    let batch: Array<{ domain: string; category_id: number; source: string }> = [];
    const flush = async () => {
      if (batch.length === 0) return;
      await trx
        .insertInto('category_domains')
        .values(batch)
        .onConflict((oc) => oc.doNothing())
        .execute();
      batch = [];
    };
    await fill(async (name, categoryIds) => {
      for (const id of categoryIds) batch.push({ domain: name, category_id: id, source });
      if (batch.length < BATCH_ROWS) return false;
      await flush();
      return true;
    });
    await flush();
    // The resolver's resync compares this stamp, not the rows (docs/architecture.md "Data plane").
    await bumpCategoryStamp(trx);
  });
}
