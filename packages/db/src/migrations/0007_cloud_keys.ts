import type { ColumnDefinitionBuilder, Kysely } from 'kysely';
import { type Dialect, idColumnType } from '../dialect-kind.ts';

/**
 * Cloud keys and the bypasses they start (docs/architecture.md "Block page"; docs/architecture.md "Decision order" step 1).
 *
 * - `cloud_keys`: a customer's keys (spec-notes §3 "Cloud key"): the key text (unique per customer),
 *   description, maximum uses (null = unlimited), times used, validity window (ISO-8601 UTC text,
 *   null = open), the bypass duration in seconds, and the active switch.
 * - `bypasses`: one row per key entered on the block page: the client address (canonical) it
 *   unblocks for the customer until `expires_at` (epoch ms). The resolver's bypass part loads the
 *   rows not yet expired; the block page deletes expired ones as it writes new ones.
 *
 * Both go with their customer (and a bypass with its key) by cascade.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const id = idColumnType(dialect);
  const bigint = dialect === 'postgres' ? 'bigint' : 'integer';
  const pk = (c: ColumnDefinitionBuilder) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement());
  await db.schema
    .createTable('cloud_keys')
    .addColumn('id', id, pk)
    .addColumn('customer_id', 'integer', (c) => c.notNull().references('customers.id').onDelete('cascade'))
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('max_uses', 'integer')
    .addColumn('times_used', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('valid_from', 'text')
    .addColumn('valid_to', 'text')
    .addColumn('expires_after_s', 'integer', (c) => c.notNull())
    .addColumn('active', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('cloud_keys_customer_key')
    .on('cloud_keys')
    .columns(['customer_id', 'key'])
    .unique()
    .execute();
  await db.schema
    .createTable('bypasses')
    .addColumn('id', id, pk)
    .addColumn('customer_id', 'integer', (c) => c.notNull().references('customers.id').onDelete('cascade'))
    .addColumn('cloud_key_id', 'integer', (c) => c.notNull().references('cloud_keys.id').onDelete('cascade'))
    .addColumn('client_ip', 'text', (c) => c.notNull())
    .addColumn('started_at', bigint, (c) => c.notNull())
    .addColumn('expires_at', bigint, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('bypasses_expires_at').on('bypasses').column('expires_at').execute();
  await db.schema.createIndex('bypasses_cloud_key').on('bypasses').column('cloud_key_id').execute();
}
