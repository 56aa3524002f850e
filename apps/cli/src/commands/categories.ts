import { categories, OPERATOR } from '@cordon/core';
import { createChangeFeed, migrateToLatest } from '@cordon/db';
import type { ImportProgress } from '@cordon/feeds';
import cliProgress from 'cli-progress';
import type { ServeConfig } from '../config.ts';
import { openConfiguredDatabase } from '../database.ts';

/** Feed formats `cordon categories import` reads (docs/operations.md; more formats come with later issues). */
export const IMPORT_FORMATS = ['ut1'] as const;

/**
 * `cordon categories import --format ut1 DIR`: imports a feed into the category database with core's
 * `categories.importUt1Feed` (one transaction, then the audit row `categories.import` and the
 * `categories` topic that tells running resolvers, through the change feed, to reload their index).
 * Shows a progress bar on a terminal, a line per 10% otherwise.
 * @returns the lines of the summary
 * @throws Error for an unknown format, a directory that is not a UT1 directory, or a failed write
 */
export async function importCategories(
  config: Pick<ServeConfig, 'databaseUrl' | 'dataDir'>,
  format: string,
  dir: string,
  print: (line: string) => void,
  interactive: boolean,
): Promise<void> {
  if (!(IMPORT_FORMATS as readonly string[]).includes(format)) {
    throw new Error(`--format ${format} is not supported; supported: ${IMPORT_FORMATS.join(', ')}`);
  }
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
