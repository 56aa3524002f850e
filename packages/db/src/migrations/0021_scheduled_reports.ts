import type { ColumnDefinitionBuilder, Kysely } from 'kysely';
import { type Dialect, idColumnType } from '../dialect-kind.ts';

/**
 * Scheduled reports and their archive (spec-notes §3 "Scheduled report"; spec-notes §9 "Archived reports are kept
 * 6 months"; docs/api.md "Reports"):
 *
 * - `scheduled_reports`: a customer's report of one type code (`r_*`), name, frequency (`daily`,
 *   `weekly` on Monday, `monthly` on the 1st, in the customer's time zone), recipients and
 *   categories (JSON arrays), the period last handled (`last_period`, the key of the day, week or
 *   month it was sent for) and the last outcome: `sent_at` (ISO), `status` (`sent` or
 *   `report not sent`) and `reason`.
 * - `report_archive`: every PDF sent or run, with its period and outcome; deleted after 6 months by
 *   the worker. Both go with their customer by cascade; an archived copy outlives its schedule.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const id = idColumnType(dialect);
  const pk = (c: ColumnDefinitionBuilder) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement());
  const blob = dialect === 'postgres' ? 'bytea' : 'blob';
  await db.schema
    .createTable('scheduled_reports')
    .addColumn('id', id, pk)
    .addColumn('customer_id', 'integer', (c) => c.notNull().references('customers.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('frequency', 'text', (c) => c.notNull())
    .addColumn('recipients', 'text', (c) => c.notNull())
    .addColumn('categories', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('last_period', 'text')
    .addColumn('sent_at', 'text')
    .addColumn('status', 'text')
    .addColumn('reason', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('scheduled_reports_customer').on('scheduled_reports').column('customer_id').execute();
  await db.schema
    .createTable('report_archive')
    .addColumn('id', id, pk)
    .addColumn('customer_id', 'integer', (c) => c.notNull().references('customers.id').onDelete('cascade'))
    .addColumn('scheduled_report_id', 'integer', (c) => c.references('scheduled_reports.id').onDelete('set null'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('period_start', 'text', (c) => c.notNull())
    .addColumn('period_end', 'text', (c) => c.notNull())
    .addColumn('recipients', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('reason', 'text')
    .addColumn('pdf', blob, (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('report_archive_customer_created')
    .on('report_archive')
    .columns(['customer_id', 'created_at'])
    .execute();
}
