import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../dialect-kind.ts';

/** The roll-up tables whose rows the fold adds to while their hour lasts (docs/decisions.md "Roll-up pages keep room for their updates"). */
export const ROLLUP_COUNTER_TABLES = ['stats_hourly', 'stats_hourly_top', 'stats_hourly_msp_top'] as const;

/**
 * PostgreSQL: the hourly roll-up tables fill their pages to 70 % (`fillfactor`), so the fold's
 * upsert of a key counted again within its hour is a HOT update — the new version on the same page,
 * no new index entries (PostgreSQL's "Heap-Only Tuples" in storage/heap/README.HOT) — instead of a
 * version on another page with an entry in each index. Applies to pages written from now on: no
 * table is rewritten. SQLite has no such setting and updates in place: nothing to do.
 * (docs/decisions.md "Roll-up pages keep room for their updates"; bench/README.md "Ingest").
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  if (dialect !== 'postgres') return;
  for (const table of ROLLUP_COUNTER_TABLES) {
    await sql`alter table ${sql.table(table)} set (fillfactor = 70)`.execute(db);
  }
}
