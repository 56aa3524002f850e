import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect-kind.ts';

/**
 * Which internal users a device may assert (issue 30, "A device can choose another user's policy";
 * docs/security.md "Identity claims"):
 *
 * - `device_users`: one row per (device, user) binding, `source` `admin` (an admin bound the user to
 *   the device) or `agent` (the device's agent reported the user at heartbeat, within the per-device
 *   cap). The resolver applies a user's policy to a device's query only for a bound user; the
 *   binding goes with its device, its user or its customer (cascade).
 * - `devices.user_reports_refused`: how many heartbeat user reports the device made that were refused
 *   (over the cap, or a user whose policy only an admin may bring to a device), shown on the device.
 */
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('device_users')
    .addColumn('device_id', 'integer', (c) => c.notNull().references('devices.id').onDelete('cascade'))
    .addColumn('user_id', 'integer', (c) => c.notNull().references('internal_users.id').onDelete('cascade'))
    .addColumn('customer_id', 'integer', (c) => c.notNull().references('customers.id').onDelete('cascade'))
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('device_users_pk', ['device_id', 'user_id'])
    .execute();
  await db.schema.createIndex('device_users_user').on('device_users').column('user_id').execute();
  await db.schema.createIndex('device_users_customer').on('device_users').column('customer_id').execute();
  await db.schema
    .alterTable('devices')
    .addColumn('user_reports_refused', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}
