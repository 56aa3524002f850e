import { type ColumnDefinitionBuilder, type Kysely, sql } from 'kysely';
import { type Dialect, idColumnType } from '../dialect-kind.ts';

/**
 * Domain lists (docs/architecture.md "Decision order" steps 3–4; spec-notes §7 "Domains"):
 * - `policy_domains`: a customer policy's allow and block entries (`customer_id` for tenant scoping);
 * - `global_domains`: an MSP's global entries (`msp_id`), or the system's (`msp_id` null).
 * `domain` is stored normalised (`normalizeDomain` of `@cordon/shared`), `action` is `allow` or
 * `block`, booleans are 0/1. One entry per (owner, action, domain): the global index keys the system
 * owner as 0, since a plain unique index lets several NULLs through on both engines.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const id = idColumnType(dialect);
  const pk = (c: ColumnDefinitionBuilder) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement());

  await db.schema
    .createTable('policy_domains')
    .addColumn('id', id, pk)
    .addColumn('policy_id', 'integer', (c) => c.notNull().references('policies.id').onDelete('cascade'))
    .addColumn('customer_id', 'integer', (c) => c.notNull().references('customers.id').onDelete('cascade'))
    .addColumn('domain', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('include_subdomains', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('comment', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('log_requests', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('policy_domains_owner_unique')
    .on('policy_domains')
    .columns(['policy_id', 'action', 'domain'])
    .unique()
    .execute();
  await db.schema.createIndex('policy_domains_customer_id').on('policy_domains').column('customer_id').execute();

  await db.schema
    .createTable('global_domains')
    .addColumn('id', id, pk)
    .addColumn('msp_id', 'integer', (c) => c.references('msps.id').onDelete('cascade'))
    .addColumn('domain', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('include_subdomains', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('comment', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('log_requests', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await sql`create unique index global_domains_owner_unique on global_domains (coalesce(msp_id, 0), action, domain)`.execute(
    db,
  );
  await db.schema.createIndex('global_domains_msp_id').on('global_domains').column('msp_id').execute();
}
