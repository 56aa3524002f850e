import type { CategoryOverrides } from '@cordon/policy';
import { sql } from 'kysely';
import { big, type SnapshotPart, tableDigest } from './part.ts';

export type { CategoryOverrides } from '@cordon/policy';

/**
 * `category_overrides` read whole (a few rows per approved request; docs/architecture.md "Decision
 * order"), applied over the category index with `withOverrides` of @cordon/policy. A small table on
 * its own topic, so an approval is answered within a second without rebuilding the category index.
 */
export const overridesPart: SnapshotPart<CategoryOverrides> = {
  name: 'category_overrides',
  topics: ['category_overrides'],
  empty: () => new Map(),
  load: async (handle) => {
    const rows = await handle.db.selectFrom('category_overrides').select(['domain', 'category_id']).execute();
    return new Map(rows.map((r) => [r.domain, Object.freeze([r.category_id])]));
  },
  // An approval deletes and inserts its row (a new created_at): count, category and name length.
  digest: (handle) =>
    tableDigest(handle, [
      {
        table: 'category_overrides',
        rows: [sql`${big(sql.ref('category_id'))} * 1024 + length(domain)`],
        stamps: ['created_at'],
      },
    ]),
};
