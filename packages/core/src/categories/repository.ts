import type { Database } from '@cordon/db';
import type { CategoryLevel } from '@cordon/shared';
import type { Kysely } from 'kysely';

/** A category with its current level, as stored (the system admin may edit levels). */
export interface CategoryRow {
  id: number;
  name: string;
  level: CategoryLevel | null;
}

/** The taxonomy with its current levels, ascending id. Categories are deployment-wide (no tenant). */
export async function categoryRows(db: Kysely<Database>): Promise<CategoryRow[]> {
  const rows = await db.selectFrom('categories').select(['id', 'name', 'level']).orderBy('id').execute();
  return rows.map((r) => ({ ...r, level: r.level === 'L' || r.level === 'M' || r.level === 'H' ? r.level : null }));
}
