import { rollups } from '@cordon/core';
import type { DatabaseHandle, QueryLogRow } from '@cordon/db';

/** Rows per INSERT: 19 columns × 50 rows stays under SQLite's historic limit of 999 parameters. */
const ROWS_PER_INSERT = 50;

/**
 * Test seeding of the query log as production fills it (docs/architecture.md "Statistics"): raw rows
 * appended to `query_log` (a left-out identity column as the resolver's writers store it: null, an
 * empty user name or matched name), then the worker's fold of everything waiting into the roll-ups —
 * so a test reads dashboards and reports right after. Plain Kysely inserts on the handle: the API's
 * tests import no app (docs/decisions.md "Apps import no app"); the writers' own insert paths are
 * tested in the resolver's tests, and against the fold in apps/cli/test/querylog-fold.test.ts.
 */
export async function insertQueryLogRows(handle: DatabaseHandle, rows: readonly QueryLogRow[]): Promise<void> {
  const values = rows.map((r) => ({
    ...r,
    device_id: r.device_id ?? null,
    user_id: r.user_id ?? null,
    user_name: r.user_name ?? '',
    group_id: r.group_id ?? null,
    matched_name: r.matched_name ?? '',
  }));
  await handle.db.transaction().execute(async (trx) => {
    for (let i = 0; i < values.length; i += ROWS_PER_INSERT) {
      await trx
        .insertInto('query_log')
        .values(values.slice(i, i + ROWS_PER_INSERT))
        .execute();
    }
  });
  await rollups.foldQueryLogAll(handle);
}
