import { type ImportOptions, type ImportReport, importUt1Directory } from '@cordon/feeds';
import type { Caller, CoreDeps } from '../context.ts';
import { mutate } from '../mutation/index.ts';

/**
 * `cordon categories import --format ut1 DIR` (docs/operations.md): imports a UT1 directory into the
 * category database (one transaction of its own, all-or-nothing: `@cordon/feeds`), then records the
 * import through the mutation path — audit row `categories.import` with the report's figures — and
 * publishes `categories` after commit, so running resolvers reload their category index. The audit
 * row follows the import's own transaction (the importer streams its batches on the handle).
 * @returns the importer's report
 * @throws Error when the directory is not a UT1 directory or a write fails (then nothing is recorded)
 */
export async function importUt1Feed(
  deps: CoreDeps,
  caller: Caller,
  dir: string,
  options: ImportOptions = {},
): Promise<ImportReport> {
  const report = await importUt1Directory(deps.handle, dir, options);
  await mutate(
    deps,
    caller,
    { topics: ['categories'], audit: { action: 'categories.import', entity: 'category_feed' } },
    async (_trx, note) => {
      note.after = {
        source: report.source,
        lists: report.lists,
        rows: report.rows,
        ipEntries: report.ipEntries,
        invalidEntries: report.invalidEntries,
        skipped: report.skipped.length,
      };
    },
  );
  return report;
}
