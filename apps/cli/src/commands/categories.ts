import { createReadStream } from 'node:fs';
import { basename } from 'node:path';
import { createInterface } from 'node:readline';
import { categories, mutate, OPERATOR } from '@cordon/core';
import { createChangeFeed, migrateToLatest } from '@cordon/db';
import { type ImportProgress, importFeedLines } from '@cordon/feeds';
import { CATEGORIES, categoryById, FEED_FORMATS, type FeedFormat } from '@cordon/shared';
import cliProgress from 'cli-progress';
import type { ServeConfig } from '../config.ts';
import { openConfiguredDatabase } from '../database.ts';

/** Feed formats `cordon categories import` reads (docs/operations.md "Category feeds"): a UT1 directory or one file. */
export const IMPORT_FORMATS = ['ut1', ...FEED_FORMATS] as const;

/**
 * `cordon categories import --format domains|hosts|adblock --category N FILE`: one feed file into the
 * category database as category `N`, under source `file:<file name>` (a re-import of the same file name
 * replaces its rows), all or nothing; then the audit row `categories.import` and the `categories` topic.
 * @throws Error for an unknown category, an unreadable file or a failed write
 */
async function importFeedFile(
  config: Pick<ServeConfig, 'databaseUrl' | 'dataDir'>,
  format: FeedFormat,
  file: string,
  categoryText: string | undefined,
  print: (line: string) => void,
): Promise<void> {
  const categoryId = Number(categoryText);
  if (!Number.isInteger(categoryId) || !categoryById(categoryId)) {
    throw new Error(`--category must be a Cordon category id (1-${CATEGORIES.length}) for --format ${format}`);
  }
  const handle = openConfiguredDatabase(config);
  const changes = createChangeFeed(handle);
  try {
    await migrateToLatest(handle);
    const lines = createInterface({ input: createReadStream(file), crlfDelay: Number.POSITIVE_INFINITY });
    const report = await importFeedLines(handle, lines, {
      format,
      categoryIds: [categoryId],
      source: `file:${basename(file)}`,
    });
    await mutate(
      { handle, changes, now: Date.now },
      OPERATOR,
      { topics: ['categories'], audit: { action: 'categories.import', entity: 'category_feed' } },
      async (_trx, note) => {
        note.after = { source: report.source, format, category: categoryId, rows: report.rows };
      },
    );
    const skipped = report.ipEntries + report.invalidEntries + report.unsupportedEntries;
    print(
      `imported ${report.rows} names as ${categoryById(categoryId)?.name} from ${basename(file)} in ${(report.durationMs / 1000).toFixed(1)} s ` +
        `(source ${report.source}; ${skipped} lines not stored)`,
    );
    if (report.examples.length > 0) print(`lines not stored, first ones: ${report.examples.join('; ')}`);
  } finally {
    await changes.close();
    await handle.close();
  }
}

/**
 * `cordon categories import --format ut1 DIR` (or a single file, see {@link importFeedFile}): imports a feed into the category database with core's
 * `categories.importUt1Feed` (one transaction, then the audit row `categories.import` and the
 * `categories` topic that tells running resolvers, through the change feed, to reload their index).
 * Shows a progress bar on a terminal, a line per 10% otherwise.
 * @returns the lines of the summary
 * @throws Error for an unknown format, a directory that is not a UT1 directory, a missing --category, or a failed write
 */
export async function importCategories(
  config: Pick<ServeConfig, 'databaseUrl' | 'dataDir'>,
  format: string,
  dir: string,
  print: (line: string) => void,
  interactive: boolean,
  category?: string,
): Promise<void> {
  if (!(IMPORT_FORMATS as readonly string[]).includes(format)) {
    throw new Error(`--format ${format} is not supported; supported: ${IMPORT_FORMATS.join(', ')}`);
  }
  if (format !== 'ut1') return importFeedFile(config, format as FeedFormat, dir, category, print);
  const handle = openConfiguredDatabase(config);
  try {
    await migrateToLatest(handle);
    const bar = interactive
      ? new cliProgress.SingleBar(
          {
            format: 'importing {category} [{bar}] {percentage}% | {eta_formatted} left',
            hideCursor: true,
            etaBuffer: 50,
          },
          cliProgress.Presets.shades_classic,
        )
      : undefined;
    let lastTenth = -1;
    let started = false;
    const onProgress = (p: ImportProgress) => {
      if (bar) {
        if (!started) bar.start(p.bytesTotal, 0, { category: p.category });
        started = true;
        bar.update(p.bytesDone, { category: p.category });
        return;
      }
      const tenth = Math.floor((p.bytesDone / Math.max(1, p.bytesTotal)) * 10);
      if (tenth !== lastTenth) {
        lastTenth = tenth;
        print(`importing: ${tenth * 10}% (${p.category})`);
      }
    };
    const changes = createChangeFeed(handle);
    const deps = { handle, changes, now: Date.now };
    const report = await categories.importUt1Feed(deps, OPERATOR, dir, { onProgress }).finally(async () => {
      bar?.stop();
      await changes.close();
    });
    print(
      `imported ${report.rows} domain categorisations from ${report.lists} UT1 lists in ${(report.durationMs / 1000).toFixed(1)} s ` +
        `(source ${report.source}; ${report.ipEntries} IP entries and ${report.invalidEntries} invalid lines not stored)`,
    );
    if (report.skipped.length > 0) {
      print(`skipped lists: ${report.skipped.map((s) => `${s.category} (${s.why})`).join(', ')}`);
    }
    if (report.invalidExamples.length > 0) print(`invalid lines, first ones: ${report.invalidExamples.join('; ')}`);
  } finally {
    await handle.close();
  }
}
