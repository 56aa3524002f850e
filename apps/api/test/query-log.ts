import { rollups } from '@cordon/core';
import type { DatabaseHandle } from '@cordon/db';
import { insertQueryLogRaw, type QueryLogRow } from '@cordon/resolver';

/**
 * Test seeding of the query log as production fills it (docs/architecture.md "Statistics"): the
 * writers' raw insert, then the worker's fold of everything waiting into the roll-ups — so a test
 * reads dashboards and reports right after.
 */
export async function insertQueryLogRows(handle: DatabaseHandle, rows: readonly QueryLogRow[]): Promise<void> {
  await insertQueryLogRaw(handle, rows);
  await rollups.foldQueryLogAll(handle);
}
