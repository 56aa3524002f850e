import type { ColumnDefinitionBuilder, Kysely } from 'kysely';
import { type Dialect, idColumnType } from '../dialect-kind.ts';

/**
 * Recategorisation (spec-notes §7 `POST /tools/recategorize`): the request queue the system admin reviews
 * (`recategorize_requests`: who asked, for which tenant, the domain and the category asked for, its
 * status pending/approved/rejected) and the overrides approved requests become (`category_overrides`:
 * one category per domain; its `category_domains` rows carry source `override`).
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const id = idColumnType(dialect);
  const pk = (c: ColumnDefinitionBuilder) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement());
  await db.schema
    .createTable('recategorize_requests')
    .addColumn('id', id, pk)
    .addColumn('domain', 'text', (c) => c.notNull())
    .addColumn('category_id', 'integer', (c) => c.notNull())
    .addColumn('comment', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('pending'))
    .addColumn('requested_by', 'integer', (c) => c.references('admins.id').onDelete('set null'))
    .addColumn('requested_email', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('msp_id', 'integer', (c) => c.references('msps.id').onDelete('cascade'))
    .addColumn('customer_id', 'integer', (c) => c.references('customers.id').onDelete('cascade'))
    .addColumn('reviewed_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('recategorize_requests_status')
    .on('recategorize_requests')
    .columns(['status', 'id'])
    .execute();
  await db.schema
    .createTable('category_overrides')
    .addColumn('domain', 'text', (c) => c.primaryKey())
    .addColumn('category_id', 'integer', (c) => c.notNull())
    .addColumn('request_id', 'integer', (c) => c.references('recategorize_requests.id').onDelete('set null'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
}
