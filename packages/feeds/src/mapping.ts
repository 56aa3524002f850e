import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { categoryById } from '@cordon/shared';

/**
 * A feed's category mapping: feed category name → Cordon category ids. An empty array means the
 * feed category is deliberately skipped (white lists, bookkeeping lists). docs/architecture.md "Categories".
 */
export type FeedMapping = ReadonlyMap<string, readonly number[]>;

/**
 * Where the UT1 mapping data file lives in the repository, found through the package (not this
 * file's depth) so the path holds from sources and from the bundled CLI alike.
 */
export const UT1_MAPPING_PATH = join(
  dirname(createRequire(import.meta.url).resolve('@cordon/feeds/package.json')),
  'data/ut1-mapping.tsv',
);

/**
 * Parses a mapping file: `feed_category<TAB>ids<TAB>note` per line, `#` comments, ids
 * comma-separated or `-` to skip.
 * @throws Error naming the line for an unknown Cordon id, a malformed line or a duplicate category
 */
export function parseMapping(text: string): FeedMapping {
  const mapping = new Map<string, number[]>();
  text.split('\n').forEach((raw, index) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const [category, ids] = raw.split('\t');
    const where = `mapping line ${index + 1}`;
    if (!category || ids === undefined) throw new Error(`${where}: expected "category<TAB>ids<TAB>note"`);
    if (mapping.has(category)) throw new Error(`${where}: category ${category} is mapped twice`);
    if (ids.trim() === '-') {
      mapping.set(category, []);
      return;
    }
    const parsed = ids.split(',').map((s) => Number(s.trim()));
    for (const id of parsed) {
      if (!Number.isInteger(id) || !categoryById(id)) throw new Error(`${where}: ${ids} is not a Cordon category id`);
    }
    mapping.set(category, parsed);
  });
  return mapping;
}

/** Loads the UT1 mapping kept in the repository (`data/ut1-mapping.tsv`). */
export function loadUt1Mapping(path: string = UT1_MAPPING_PATH): FeedMapping {
  return parseMapping(readFileSync(path, 'utf8'));
}
