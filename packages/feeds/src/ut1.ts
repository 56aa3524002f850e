import { createReadStream, existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { DatabaseHandle } from '@cordon/db';
import { parseDomainLine, replaceSourceRows } from './entries.ts';
import { type FeedMapping, loadUt1Mapping } from './mapping.ts';

/** A UT1 list the import will read. */
export interface Ut1List {
  category: string;
  path: string;
  categoryIds: readonly number[];
  bytes: number;
}

/** The lists of a UT1 directory that the mapping takes, and the ones it leaves out (with why). */
export interface Ut1Scan {
  lists: Ut1List[];
  skipped: Array<{ category: string; why: string }>;
}

/**
 * Finds the `<category>/domains` files of a UT1 blacklists directory (docs/architecture.md "Categories").
 * @throws Error when `dir` does not exist or holds no `<category>/domains` file
 */
export function scanUt1Directory(dir: string, mapping: FeedMapping): Ut1Scan {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new Error(`${dir} is not a directory`);
  const lists: Ut1List[] = [];
  const skipped: Ut1Scan['skipped'] = [];
  for (const category of readdirSync(dir).sort()) {
    const path = join(dir, category, 'domains');
    if (!existsSync(path)) continue;
    const ids = mapping.get(category);
    if (ids === undefined) skipped.push({ category, why: 'not in the mapping' });
    else if (ids.length === 0) skipped.push({ category, why: 'skipped by the mapping' });
    else lists.push({ category, path, categoryIds: ids, bytes: statSync(path).size });
  }
  if (lists.length === 0 && skipped.length === 0)
    throw new Error(`${dir} has no <category>/domains files: not a UT1 directory`);
  return { lists, skipped };
}

/** Progress of an import, for a progress bar: bytes read of all lists. */
export interface ImportProgress {
  bytesDone: number;
  bytesTotal: number;
  category: string;
}

/** What an import did. `rows` counts distinct (domain, category) facts now held for the source. */
export interface ImportReport {
  source: string;
  lists: number;
  rows: number;
  ipEntries: number;
  invalidEntries: number;
  invalidExamples: string[];
  skipped: Ut1Scan['skipped'];
  perCategory: Record<string, number>;
  durationMs: number;
}

export interface ImportOptions {
  /** Feed category mapping; default the repository's UT1 mapping. */
  mapping?: FeedMapping;
  /** Source name the rows are stored under; a re-import replaces exactly these rows. Default `ut1`. */
  source?: string;
  /** Called as bytes are read. */
  onProgress?: (p: ImportProgress) => void;
}

/**
 * Imports a UT1 blacklists directory into `category_domains` under one source, replacing what that
 * source held before, in ONE transaction: the import is idempotent and all-or-nothing (a failure
 * leaves the previous data as it was). IPv4 entries and invalid lines are counted, not stored.
 * A name listed in several UT1 lists mapping to the same Cordon category is stored once.
 * @throws Error when the directory is not a UT1 directory or the database write fails
 */
export async function importUt1Directory(
  handle: DatabaseHandle,
  dir: string,
  options: ImportOptions = {},
): Promise<ImportReport> {
  const started = Date.now();
  const mapping = options.mapping ?? loadUt1Mapping();
  const source = options.source ?? 'ut1';
  const scan = scanUt1Directory(dir, mapping);
  const bytesTotal = scan.lists.reduce((n, l) => n + l.bytes, 0);
  let bytesDone = 0;
  let ipEntries = 0;
  let invalidEntries = 0;
  const invalidExamples: string[] = [];
  const perCategory: Record<string, number> = {};

  await replaceSourceRows(handle, source, async (add) => {
    for (const list of scan.lists) {
      let count = 0;
      const lines = createInterface({ input: createReadStream(list.path), crlfDelay: Number.POSITIVE_INFINITY });
      for await (const line of lines) {
        bytesDone += line.length + 1;
        const entry = parseDomainLine(line);
        if (entry.kind === 'domain') {
          count++;
          if (await add(entry.name, list.categoryIds)) {
            options.onProgress?.({ bytesDone, bytesTotal, category: list.category });
          }
        } else if (entry.kind === 'ip') ipEntries++;
        else if (entry.kind === 'invalid') {
          invalidEntries++;
          if (invalidExamples.length < 5) invalidExamples.push(`${list.category}: ${entry.text}`);
        }
      }
      perCategory[list.category] = count;
      options.onProgress?.({ bytesDone: Math.min(bytesDone, bytesTotal), bytesTotal, category: list.category });
    }
  });

  const { rows } = await handle.db
    .selectFrom('category_domains')
    .select((eb) => eb.fn.countAll<number | string>().as('rows'))
    .where('source', '=', source)
    .executeTakeFirstOrThrow();
  return {
    source,
    lists: scan.lists.length,
    rows: Number(rows),
    ipEntries,
    invalidEntries,
    invalidExamples,
    skipped: scan.skipped,
    perCategory,
    durationMs: Date.now() - started,
  };
}
