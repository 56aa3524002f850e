import { type ColumnDefinitionBuilder, type Kysely, sql } from 'kysely';
import { type Dialect, idColumnType } from '../dialect-kind.ts';

/**
 * Block-page branding (spec-notes §7 `/ui/blockpage`; docs/architecture.md "Block page"): the texts the block page shows, one
 * row per owner — a customer's (`customer_id`), an MSP's (`msp_id`) or the system's (both null).
 * The page uses the customer's, else its MSP's, else the system's, else its built-in text. No logo
 * yet. One row per owner: a plain unique index would let NULLs repeat, so it is on coalesced ids.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const id = idColumnType(dialect);
  const pk = (c: ColumnDefinitionBuilder) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement());
  await db.schema
    .createTable('blockpages')
    .addColumn('id', id, pk)
    .addColumn('customer_id', 'integer', (c) => c.references('customers.id').onDelete('cascade'))
    .addColumn('msp_id', 'integer', (c) => c.references('msps.id').onDelete('cascade'))
    .addColumn('title', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('message', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('footer', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('support_contact', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await sql`create unique index blockpages_owner on blockpages ((coalesce(customer_id, 0)), (coalesce(msp_id, 0)))`.execute(
    db,
  );
}
