import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect-kind.ts';

/**
 * Category notifications per policy (spec-notes §3 "Notification settings"; docs/decisions.md
 * "Category notifications"): one row per policy that ever saved them, going with its policy and
 * customer by cascade. `categories` and `emails` are JSON arrays (no categories: off); `interval`
 * is `hourly`/`daily`/`weekly`, `period` the window counted (`hour`/`day`/`week`). The worker's
 * digest claims a run by a conditional update of `last_run_at` (ISO), so a restart never mails a
 * window twice; `last_sent_at`, `last_status` and `last_reason` keep the outcome.
 */
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable('policy_notifications')
    .addColumn('policy_id', 'integer', (c) => c.primaryKey().references('policies.id').onDelete('cascade'))
    .addColumn('customer_id', 'integer', (c) => c.notNull().references('customers.id').onDelete('cascade'))
    .addColumn('categories', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('interval', 'text', (c) => c.notNull())
    .addColumn('period', 'text', (c) => c.notNull())
    .addColumn('emails', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('last_run_at', 'text')
    .addColumn('last_sent_at', 'text')
    .addColumn('last_status', 'text')
    .addColumn('last_reason', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('policy_notifications_customer')
    .on('policy_notifications')
    .column('customer_id')
    .execute();
}
