import { type ColumnDefinitionBuilder, type Kysely, sql } from 'kysely';
import { type Dialect, idColumnType } from '../dialect-kind.ts';

/**
 * Default policies above the customer (docs/architecture.md "Categories", "Default policies"): the
 * safe-search switch of every policy (`policies.safe_search`, off), and the global default policies,
 * the templates new tenants start from: one row per MSP (`msp_id`) and one for the system
 * (`msp_id` null), with the categories each blocks. The system's is seeded at level `low` (what a
 * new customer got before), each existing MSP's as a copy of it.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const id = idColumnType(dialect);
  const pk = (c: ColumnDefinitionBuilder) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement());
  await db.schema
    .alterTable('policies')
    .addColumn('safe_search', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createTable('default_policies')
    .addColumn('id', id, pk)
    .addColumn('msp_id', 'integer', (c) => c.references('msps.id').onDelete('cascade'))
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('level', 'text', (c) => c.notNull())
    .addColumn('allow_unclassified', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('safe_search', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  // One row per owner, the system's (null) included: a plain unique index lets NULLs repeat.
  await sql`create unique index default_policies_owner on default_policies ((coalesce(msp_id, 0)))`.execute(db);
  await db.schema
    .createTable('default_policy_categories')
    .addColumn('default_policy_id', 'integer', (c) => c.notNull().references('default_policies.id').onDelete('cascade'))
    .addColumn('category_id', 'integer', (c) => c.notNull().references('categories.id'))
    .addPrimaryKeyConstraint('default_policy_categories_pk', ['default_policy_id', 'category_id'])
    .execute();

  const at = new Date().toISOString();
  await sql`insert into default_policies (msp_id, description, level, allow_unclassified, safe_search, created_at, updated_at)
    values (null, '', 'low', 1, 0, ${at}, ${at})`.execute(db);
  await sql`insert into default_policies (msp_id, description, level, allow_unclassified, safe_search, created_at, updated_at)
    select id, '', 'low', 1, 0, ${at}, ${at} from msps order by id`.execute(db);
  await sql`insert into default_policy_categories (default_policy_id, category_id)
    select d.id, c.id from default_policies d cross join categories c where c.level = 'L'`.execute(db);
}
