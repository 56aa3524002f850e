import type { ColumnDefinitionBuilder, Kysely } from 'kysely';
import { type Dialect, idColumnType } from '../dialect-kind.ts';

/**
 * Webhooks (issue 26; docs/api.md "Webhooks"):
 *
 * - `webhook_endpoints`: an HTTPS endpoint of one MSP (`msp_id`) or one customer (`customer_id`,
 *   with its MSP in `msp_id` too), its signing secret sealed with the deployment SecretBox, the
 *   event types it subscribes (JSON array), `enabled`, why and when it was disabled, and its run of
 *   consecutive failed deliveries (`consecutive_failures`, since `failing_since`, ISO).
 * - `webhook_deliveries`: one event for one endpoint: its id, type and JSON payload, `status`
 *   (`pending`, `delivered`, `failed`), `attempts`, when it is due (`next_attempt_at`, epoch ms),
 *   the last HTTP status and error; goes with its endpoint (cascade).
 * - `webhook_hits`: the last security-category hit event per (customer, domain, client), epoch ms,
 *   so one is sent at most once per interval.
 * - `webhook_watermarks`: how far the event producers read the query log and the audit log (ids).
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const pk = (c: ColumnDefinitionBuilder) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement());
  const big = dialect === 'postgres' ? 'bigint' : 'integer';
  await db.schema
    .createTable('webhook_endpoints')
    .addColumn('id', idColumnType(dialect), pk)
    .addColumn('msp_id', 'integer', (c) => c.notNull().references('msps.id').onDelete('cascade'))
    .addColumn('customer_id', 'integer', (c) => c.references('customers.id').onDelete('cascade'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('events', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('disabled_at', 'text')
    .addColumn('disabled_reason', 'text')
    .addColumn('consecutive_failures', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('failing_since', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('webhook_endpoints_msp').on('webhook_endpoints').column('msp_id').execute();
  await db.schema.createIndex('webhook_endpoints_customer').on('webhook_endpoints').column('customer_id').execute();
  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', idColumnType(dialect), pk)
    .addColumn('endpoint_id', 'integer', (c) => c.notNull().references('webhook_endpoints.id').onDelete('cascade'))
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', big, (c) => c.notNull())
    .addColumn('last_status_code', 'integer')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('delivered_at', 'text')
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_due')
    .on('webhook_deliveries')
    .columns(['status', 'next_attempt_at'])
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_endpoint')
    .on('webhook_deliveries')
    .columns(['endpoint_id', 'id'])
    .execute();
  await db.schema
    .createTable('webhook_hits')
    .addColumn('customer_id', 'integer', (c) => c.notNull().references('customers.id').onDelete('cascade'))
    .addColumn('domain', 'text', (c) => c.notNull())
    .addColumn('client_ip', 'text', (c) => c.notNull())
    .addColumn('last_at', big, (c) => c.notNull())
    .addPrimaryKeyConstraint('webhook_hits_pk', ['customer_id', 'domain', 'client_ip'])
    .execute();
  await db.schema
    .createTable('webhook_watermarks')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('last_id', big, (c) => c.notNull())
    .execute();
}
