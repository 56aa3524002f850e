import type { ColumnDefinitionBuilder, Kysely } from 'kysely';
import { type Dialect, idColumnType } from '../dialect-kind.ts';

/**
 * Groups and internal users (spec-notes §3 "Group", "Internal user"; spec-notes §4 "Group weight"; spec-notes §7
 * "Groups and internal users"; docs/decisions.md "Environment").
 *
 * - `user_groups` (a group, named so no SQL keyword needs quoting): a customer's groups with their policy (null: none of its own), description,
 *   `disabled` switch and `weight` (1 is the highest rank).
 * - `internal_users`: the people an agent reports (OS user name, unique per customer), with their
 *   own policy (null: none), description, last login time and address and the device seen last.
 * - `user_group_members`: which groups a user belongs to; the effective group is the enabled one
 *   of lowest weight.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const id = idColumnType(dialect);
  const pk = (c: ColumnDefinitionBuilder) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement());

  await db.schema
    .createTable('user_groups')
    .addColumn('id', id, pk)
    .addColumn('customer_id', 'integer', (c) => c.notNull().references('customers.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('policy_id', 'integer', (c) => c.references('policies.id').onDelete('set null'))
    .addColumn('disabled', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('weight', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('user_groups_customer_name')
    .on('user_groups')
    .columns(['customer_id', 'name'])
    .unique()
    .execute();

  await db.schema
    .createTable('internal_users')
    .addColumn('id', id, pk)
    .addColumn('customer_id', 'integer', (c) => c.notNull().references('customers.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('policy_id', 'integer', (c) => c.references('policies.id').onDelete('set null'))
    .addColumn('last_login_at', 'text')
    .addColumn('last_login_ip', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('last_device_id', 'integer', (c) => c.references('devices.id').onDelete('set null'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('internal_users_customer_name')
    .on('internal_users')
    .columns(['customer_id', 'name'])
    .unique()
    .execute();

  await db.schema
    .createTable('user_group_members')
    .addColumn('user_id', 'integer', (c) => c.notNull().references('internal_users.id').onDelete('cascade'))
    .addColumn('group_id', 'integer', (c) => c.notNull().references('user_groups.id').onDelete('cascade'))
    .addColumn('customer_id', 'integer', (c) => c.notNull().references('customers.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('user_group_members_pk', ['user_id', 'group_id'])
    .execute();
  await db.schema.createIndex('user_group_members_group').on('user_group_members').column('group_id').execute();
}
