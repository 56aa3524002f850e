import { type ColumnDefinitionBuilder, type Kysely, sql } from 'kysely';
import { type Dialect, idColumnType } from '../dialect-kind.ts';

/**
 * Interface branding and support contacts (spec-notes §7 `/ui/interface`, `/ui/support`; spec-notes §3
 * "Interface", "Support"): one row per level, an MSP's (`msp_id`) or the system's (`msp_id` null).
 * The console shows the MSP's value, else the system's. `nameservers` is a JSON array of strings.
 * A plain unique index would let NULLs repeat, so it is on the coalesced id (as `blockpages`).
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const id = idColumnType(dialect);
  const pk = (c: ColumnDefinitionBuilder) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement());
  const bytes = dialect === 'postgres' ? 'bytea' : 'blob';
  await db.schema
    .createTable('ui_interfaces')
    .addColumn('id', id, pk)
    .addColumn('msp_id', 'integer', (c) => c.references('msps.id').onDelete('cascade'))
    .addColumn('title', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('nameservers', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('logo', bytes)
    .addColumn('logo_type', 'text')
    .addColumn('logo_sha256', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await sql`create unique index ui_interfaces_owner on ui_interfaces ((coalesce(msp_id, 0)))`.execute(db);
  await db.schema
    .createTable('ui_support')
    .addColumn('id', id, pk)
    .addColumn('msp_id', 'integer', (c) => c.references('msps.id').onDelete('cascade'))
    .addColumn('email', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('link', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('support_desk_url', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await sql`create unique index ui_support_owner on ui_support ((coalesce(msp_id, 0)))`.execute(db);
}
