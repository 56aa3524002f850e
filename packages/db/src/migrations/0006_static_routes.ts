import type { ColumnDefinitionBuilder, Kysely } from 'kysely';
import { type Dialect, idColumnType } from '../dialect-kind.ts';

/**
 * Static routes (conditional forwarding, docs/architecture.md "Decision order" step 2; spec-notes §7
 * `/staticroutes`): a customer's domain suffix → the DNS server its names are forwarded to. The
 * suffix is stored normalised (`normalizeDomain`), the resolver's address canonical (`canonicalIp`)
 * with its port apart, and a customer has at most one route per suffix.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const pk = (c: ColumnDefinitionBuilder) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement());
  await db.schema
    .createTable('static_routes')
    .addColumn('id', idColumnType(dialect), pk)
    .addColumn('customer_id', 'integer', (c) => c.notNull().references('customers.id').onDelete('cascade'))
    .addColumn('domain', 'text', (c) => c.notNull())
    .addColumn('resolver_ip', 'text', (c) => c.notNull())
    .addColumn('resolver_port', 'integer', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('static_routes_customer_domain')
    .on('static_routes')
    .columns(['customer_id', 'domain'])
    .unique()
    .execute();
}
