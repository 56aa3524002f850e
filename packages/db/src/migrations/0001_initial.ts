import { CATEGORIES } from '@cordon/shared';
import type { ColumnDefinitionBuilder, Kysely } from 'kysely';
import { type Dialect, idColumnType } from '../dialect-kind.ts';

/** The initial schema: tenancy, auth, categories, policies, locations, query log (docs/architecture.md "Tenancy"; docs/architecture.md "Categories"; docs/architecture.md "Statistics"). */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const id = idColumnType(dialect);
  // AUTOINCREMENT on SQLite so a deleted tenant's id is never handed out again.
  const pk = (c: ColumnDefinitionBuilder) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement());
  const bigint = dialect === 'postgres' ? 'bigint' : 'integer';

  await db.schema
    .createTable('settings')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('msps')
    .addColumn('id', id, pk)
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('company_name', 'text', (c) => c.notNull())
    .addColumn('license', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('timezone', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('msps_name_unique').on('msps').column('name').unique().execute();

  await db.schema
    .createTable('customers')
    .addColumn('id', id, pk)
    .addColumn('msp_id', 'integer', (c) => c.notNull().references('msps.id').onDelete('cascade'))
    .addColumn('account_name', 'text', (c) => c.notNull())
    .addColumn('uuid_str', 'text', (c) => c.notNull().unique())
    .addColumn('timezone', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('customers_msp_id').on('customers').column('msp_id').execute();
  await db.schema
    .createIndex('customers_msp_name_unique')
    .on('customers')
    .columns(['msp_id', 'account_name'])
    .unique()
    .execute();

  await db.schema
    .createTable('admins')
    .addColumn('id', id, pk)
    .addColumn('email', 'text', (c) => c.notNull().unique())
    .addColumn('full_name', 'text', (c) => c.notNull())
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('role', 'integer', (c) => c.notNull())
    .addColumn('msp_id', 'integer', (c) => c.references('msps.id').onDelete('cascade'))
    .addColumn('customer_id', 'integer', (c) => c.references('customers.id').onDelete('cascade'))
    .addColumn('is_default', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('twofa_enabled', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('twofa_secret', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('last_login_at', 'text')
    .execute();

  await db.schema
    .createTable('revoked_tokens')
    .addColumn('jti', 'text', (c) => c.primaryKey())
    .addColumn('expires_at', bigint, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('categories')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('level', 'text')
    .execute();
  await db
    .insertInto('categories' as never)
    .values(CATEGORIES.map((c) => ({ id: c.id, name: c.name, level: c.level })) as never)
    .execute();

  await db.schema
    .createTable('category_domains')
    .addColumn('domain', 'text', (c) => c.notNull())
    .addColumn('category_id', 'integer', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('category_domains_pk', ['domain', 'category_id', 'source'])
    .execute();
  await db.schema.createIndex('category_domains_source').on('category_domains').column('source').execute();

  await db.schema
    .createTable('policies')
    .addColumn('id', id, pk)
    .addColumn('customer_id', 'integer', (c) => c.notNull().references('customers.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('level', 'text', (c) => c.notNull())
    .addColumn('is_default', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('allow_unclassified', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('policies_customer_id').on('policies').column('customer_id').execute();
  await db.schema
    .createIndex('policies_customer_name_unique')
    .on('policies')
    .columns(['customer_id', 'name'])
    .unique()
    .execute();

  await db.schema
    .createTable('policy_categories')
    .addColumn('policy_id', 'integer', (c) => c.notNull().references('policies.id').onDelete('cascade'))
    .addColumn('customer_id', 'integer', (c) => c.notNull().references('customers.id').onDelete('cascade'))
    .addColumn('category_id', 'integer', (c) => c.notNull().references('categories.id'))
    .addPrimaryKeyConstraint('policy_categories_pk', ['policy_id', 'category_id'])
    .execute();

  await db.schema
    .createTable('locations')
    .addColumn('id', id, pk)
    .addColumn('customer_id', 'integer', (c) => c.notNull().references('customers.id').onDelete('cascade'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('policy_id', 'integer', (c) => c.references('policies.id').onDelete('set null'))
    .addColumn('key', 'text', (c) => c.unique())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('locations_customer_id').on('locations').column('customer_id').execute();

  await db.schema
    .createTable('location_addresses')
    .addColumn('id', id, pk)
    .addColumn('location_id', 'integer', (c) => c.notNull().references('locations.id').onDelete('cascade'))
    .addColumn('customer_id', 'integer', (c) => c.notNull().references('customers.id').onDelete('cascade'))
    .addColumn('ip', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('location_addresses_location_id')
    .on('location_addresses')
    .column('location_id')
    .execute();

  await db.schema
    .createTable('query_log')
    .addColumn('id', dialect === 'postgres' ? 'bigserial' : 'integer', pk)
    .addColumn('ts', bigint, (c) => c.notNull())
    .addColumn('customer_id', 'integer', (c) => c.notNull())
    .addColumn('location_id', 'integer')
    .addColumn('policy_id', 'integer')
    .addColumn('client_ip', 'text', (c) => c.notNull())
    .addColumn('qname', 'text', (c) => c.notNull())
    .addColumn('qtype', 'text', (c) => c.notNull())
    .addColumn('protocol', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('categories', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('rcode', 'text', (c) => c.notNull())
    .addColumn('answer_source', 'text', (c) => c.notNull())
    .addColumn('latency_us', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('query_log_customer_ts').on('query_log').columns(['customer_id', 'ts']).execute();
}
