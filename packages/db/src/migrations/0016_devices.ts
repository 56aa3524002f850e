import type { ColumnDefinitionBuilder, Kysely } from 'kysely';
import { type Dialect, idColumnType } from '../dialect-kind.ts';

/**
 * Devices and device exceptions (spec-notes §3 "Device", "Device exception", "Exception rule"; spec-notes §7
 * "Devices", "Device exceptions"; docs/decisions.md "Environment").
 *
 * - `device_settings`: one row per customer: the install key agents enrol with (regenerating it
 *   stops new installs only), the customer-wide device configuration (policy, inherit choice,
 *   device exception) and its advanced JSON configuration.
 * - `devices`: an enrolled agent: its secret `key` (unique), what it reports (name, version, OS,
 *   last contact and address), its configuration (`policy_mode` `default` | `group` | `policy`,
 *   `policy_id`, `device_exception_id`) and an advanced JSON configuration that locks the details
 *   while present (spec-notes §4).
 * - `device_exceptions` and their `device_exception_rules` (domain, source `ip`, `resolver`,
 *   `rule_type` `ByPass OTG` | `Use Specific Resolver`, description).
 *
 * All go with their customer by cascade; a deleted policy or exception leaves its devices on the
 * default (set null).
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const id = idColumnType(dialect);
  const pk = (c: ColumnDefinitionBuilder) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement());

  await db.schema
    .createTable('device_exceptions')
    .addColumn('id', id, pk)
    .addColumn('customer_id', 'integer', (c) => c.notNull().references('customers.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('device_exceptions_customer_name')
    .on('device_exceptions')
    .columns(['customer_id', 'name'])
    .unique()
    .execute();

  await db.schema
    .createTable('device_exception_rules')
    .addColumn('id', id, pk)
    .addColumn('device_exception_id', 'integer', (c) =>
      c.notNull().references('device_exceptions.id').onDelete('cascade'),
    )
    .addColumn('customer_id', 'integer', (c) => c.notNull().references('customers.id').onDelete('cascade'))
    .addColumn('domain', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('ip', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('resolver', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('rule_type', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('device_exception_rules_exception')
    .on('device_exception_rules')
    .column('device_exception_id')
    .execute();

  await db.schema
    .createTable('device_settings')
    .addColumn('customer_id', 'integer', (c) => c.primaryKey().references('customers.id').onDelete('cascade'))
    .addColumn('install_key', 'text', (c) => c.notNull().unique())
    .addColumn('install_key_created_at', 'text', (c) => c.notNull())
    .addColumn('policy_mode', 'text', (c) => c.notNull().defaultTo('default'))
    .addColumn('policy_id', 'integer', (c) => c.references('policies.id').onDelete('set null'))
    .addColumn('device_exception_id', 'integer', (c) => c.references('device_exceptions.id').onDelete('set null'))
    .addColumn('advanced_config', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('devices')
    .addColumn('id', id, pk)
    .addColumn('customer_id', 'integer', (c) => c.notNull().references('customers.id').onDelete('cascade'))
    .addColumn('key', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('dns_name', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('tag', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('version', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('os_type', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('extra_info', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('last_contact_at', 'text')
    .addColumn('last_ip', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('location_id', 'integer', (c) => c.references('locations.id').onDelete('set null'))
    .addColumn('policy_mode', 'text', (c) => c.notNull().defaultTo('default'))
    .addColumn('policy_id', 'integer', (c) => c.references('policies.id').onDelete('set null'))
    .addColumn('device_exception_id', 'integer', (c) => c.references('device_exceptions.id').onDelete('set null'))
    .addColumn('advanced_config', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('devices_customer_id').on('devices').column('customer_id').execute();
}
