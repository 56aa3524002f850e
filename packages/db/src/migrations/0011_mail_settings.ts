import type { ColumnDefinitionBuilder, Kysely } from 'kysely';
import { type Dialect, idColumnType } from '../dialect-kind.ts';

/**
 * Mail settings (spec-notes §7 "UI and tools": `GET /mail`, `POST /mail` with `msp_id`; spec-notes §3 "Email
 * settings"): the SMTP server the deployment's mails go out through, one row for the system
 * (`owner` 'system') and at most one per MSP (`owner` 'msp:<id>'); an MSP without its own row uses
 * the system's. `owner` is unique (a NULL `msp_id` could not be: NULLs never collide); the row goes
 * with its MSP by cascade. `security` is 'none', 'starttls' or 'tls'; the SMTP password is kept
 * only for sending and never answered. `console_url` (system row only) is the console address
 * mailed links point to.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const id = idColumnType(dialect);
  const pk = (c: ColumnDefinitionBuilder) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement());
  await db.schema
    .createTable('mail_settings')
    .addColumn('id', id, pk)
    .addColumn('owner', 'text', (c) => c.notNull().unique())
    .addColumn('msp_id', 'integer', (c) => c.references('msps.id').onDelete('cascade'))
    .addColumn('server', 'text', (c) => c.notNull())
    .addColumn('port', 'integer', (c) => c.notNull())
    .addColumn('security', 'text', (c) => c.notNull())
    .addColumn('username', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('password', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('sender', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('from_email', 'text', (c) => c.notNull())
    .addColumn('notification_period', 'text', (c) => c.notNull())
    .addColumn('console_url', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
}
