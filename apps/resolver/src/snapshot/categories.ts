import { CATEGORY_STAMP_KEY, type DatabaseHandle } from '@cordon/db';
import { CategoryIndex, CategoryIndexBuilder } from '@cordon/policy';
import { sql } from 'kysely';
import type { SnapshotPart } from './part.ts';

/**
 * Rows per page when streaming `category_domains`: small enough that a page's row objects die
 * young (≈ 1 MB of them) instead of growing the old generation, large enough that the keyset
 * queries cost little (bench/README.md memory budget).
 */
const CATEGORY_PAGE = 10_000;

/**
 * Reads `category_domains` into a {@link CategoryIndex} (docs/architecture.md "Decision order"; memory figures in bench/README.md): first one
 * aggregate query for the number of distinct domains, so the builder's arrays are allocated once
 * at their final size; then keyset pages ordered by domain so a
 * domain's rows (one per category and source) are adjacent, each page's rows dropped before the
 * next is read. A page's last domain may continue on the next page, so it is held back and
 * re-read. On SQLite the connection's page cache is released afterwards (`PRAGMA shrink_memory`).
 * @throws when the database cannot be read, or one domain has more than {@link CATEGORY_PAGE} rows
 */
export async function loadCategoryIndex(handle: DatabaseHandle): Promise<CategoryIndex> {
  const totals = await handle.db
    .selectFrom((eb) => eb.selectFrom('category_domains').select('domain').distinct().as('d'))
    .select((eb) => eb.fn.countAll<number | string>().as('domains'))
    .executeTakeFirstOrThrow();
  const builder = new CategoryIndexBuilder({ domains: Number(totals.domains) });
  let after: string | null = null;
  const ids: number[] = [];
  for (;;) {
    let q = handle.db
      .selectFrom('category_domains')
      .select(['domain', 'category_id'])
      .orderBy('domain')
      .limit(CATEGORY_PAGE);
    if (after !== null) q = q.where('domain', '>', after);
    const rows = await q.execute();
    if (rows.length === 0) break;
    const full = rows.length === CATEGORY_PAGE;
    const holdBack = full ? rows[rows.length - 1]!.domain : null;
    if (full && rows[0]!.domain === holdBack) throw new Error(`domain ${holdBack} has more than ${CATEGORY_PAGE} rows`);
    let current: string | null = null;
    for (const r of rows) {
      if (r.domain === holdBack) break;
      if (r.domain !== current) {
        if (current !== null) builder.add(current, ids);
        current = r.domain;
        ids.length = 0;
      }
      ids.push(r.category_id);
    }
    if (current !== null) builder.add(current, ids);
    ids.length = 0;
    if (!full) break;
    after = current;
  }
  if (handle.dialect === 'sqlite') await sql`pragma shrink_memory`.execute(handle.db);
  return builder.build();
}

/**
 * The category database's digest: its change stamp (`CATEGORY_STAMP_KEY` of @cordon/db), which every
 * writer of `category_domains` rewrites in its transaction. One row, ≈ 0.1 ms, where a count of
 * 1,000,000 rows holds SQLite's thread 20–30 ms and a sum over them ≈ 350 ms (docs/architecture.md
 * "Data plane"); a row changed by hand is seen once its writer bumps the stamp or publishes
 * `categories`. Empty text before the first write.
 */
export async function categoryDigest(handle: DatabaseHandle): Promise<string> {
  const row = await handle.db
    .selectFrom('settings')
    .select('value')
    .where('key', '=', CATEGORY_STAMP_KEY)
    .executeTakeFirst();
  return row?.value ?? '';
}

/**
 * The categories part (topic `categories`: feed imports, level edits): the whole index, rebuilt in
 * the background while queries keep the old one. Not incremental: an import replaces a source's
 * rows wholesale, and the index is one packed structure. Its resync digest is the category stamp
 * ({@link categoryDigest}).
 */
export const categoriesPart: SnapshotPart<CategoryIndex> = {
  name: 'categories',
  topics: ['categories'],
  empty: () => CategoryIndex.empty(),
  load: (handle) => loadCategoryIndex(handle),
  digest: categoryDigest,
};
