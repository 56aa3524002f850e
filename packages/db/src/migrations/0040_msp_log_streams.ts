import type { ColumnDefinitionBuilder, Kysely } from 'kysely';
import { type Dialect, idColumnType } from '../dialect-kind.ts';

/**
 * Per-MSP query-log stream destinations (issue 26; docs/operations.md "Query-log streaming",
 * "Per-MSP destinations"):
 *
 * - `msp_log_streams`: a destination of one MSP (`msp_id`, goes with it: cascade) to which the
 *   resolver's query-log writer threads stream that MSP's customers' queries. `format` is `syslog`
 *   (RFC 5424 over TCP or TLS; `address` `tcp://host:port` or `tls://host:port`) or `ndjson`
 *   (batches POSTed to `address`, an `https://` URL). `ca_pem` the PEM CA certificates trusted for
 *   TLS instead of Node's bundle; `authorization` the NDJSON `Authorization` header value, sealed
 *   with the deployment SecretBox (never returned by the API, only its hint). `updated_at` (ISO) is
 *   the writer threads' change stamp. `last_delivered_at` / `last_error` / `last_error_at` are
 *   written by the writer threads (at most every 30 s per destination and thread).
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const pk = (c: ColumnDefinitionBuilder) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement());
  await db.schema
    .createTable('msp_log_streams')
    .addColumn('id', idColumnType(dialect), pk)
    .addColumn('msp_id', 'integer', (c) => c.notNull().references('msps.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('format', 'text', (c) => c.notNull())
    .addColumn('address', 'text', (c) => c.notNull())
    .addColumn('ca_pem', 'text')
    .addColumn('authorization', 'text')
    .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('last_delivered_at', 'text')
    .addColumn('last_error', 'text')
    .addColumn('last_error_at', 'text')
    .execute();
  await db.schema.createIndex('msp_log_streams_msp').on('msp_log_streams').column('msp_id').execute();
}
