import { type ColumnDefinitionBuilder, type Kysely, sql } from 'kysely';
import { type Dialect, idColumnType } from '../dialect-kind.ts';

/**
 * Category feeds (docs/operations.md "Category feeds"; docs/decisions.md "Category feeds"): the
 * operator's feed sources besides the UT1 directory. Each has a format (`domains`, `hosts`,
 * `adblock`), the category its names get, an optional `https:` URL fetched every `interval_hours`
 * (0: only when run by hand or uploaded), and the outcome of its last run. Its names are the
 * `category_domains` rows of source `feed:<id>`.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const pk = (c: ColumnDefinitionBuilder) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement());
  await db.schema
    .createTable('category_feeds')
    .addColumn('id', idColumnType(dialect), pk)
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('format', 'text', (c) => c.notNull())
    .addColumn('category_id', 'integer', (c) => c.notNull())
    .addColumn('url', 'text')
    .addColumn('interval_hours', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('last_run_at', 'text')
    .addColumn('last_status', 'text')
    .addColumn('last_error', 'text')
    .addColumn('last_rows', 'integer')
    .addColumn('last_skipped', 'integer')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await sql`create unique index category_feeds_name on category_feeds (lower(name))`.execute(db);
}
