import type { ColumnDefinitionBuilder, Kysely } from 'kysely';
import { type Dialect, idColumnType } from '../dialect-kind.ts';

/**
 * The audit log (docs/security.md: "an audit log of every change (who, when, what, tenant)"): one row
 * per mutation, written in the mutation's own transaction by core's `mutate()`, so a change without
 * its audit row cannot commit. Tenant columns carry no foreign key: the trail outlives a deleted
 * tenant.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const id = idColumnType(dialect);
  const pk = (c: ColumnDefinitionBuilder) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement());
  await db.schema
    .createTable('audit_log')
    .addColumn('id', id, pk)
    .addColumn('at', 'text', (c) => c.notNull())
    .addColumn('admin_id', 'integer')
    .addColumn('admin_email', 'text')
    .addColumn('role', 'integer')
    .addColumn('msp_id', 'integer')
    .addColumn('customer_id', 'integer')
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('entity', 'text', (c) => c.notNull())
    .addColumn('entity_id', 'integer')
    .addColumn('before_json', 'text')
    .addColumn('after_json', 'text')
    .addColumn('client_ip', 'text')
    .execute();
  await db.schema.createIndex('audit_log_msp_at').on('audit_log').columns(['msp_id', 'at']).execute();
  await db.schema.createIndex('audit_log_customer_at').on('audit_log').columns(['customer_id', 'at']).execute();
  await db.schema.createIndex('audit_log_at').on('audit_log').column('at').execute();
}
