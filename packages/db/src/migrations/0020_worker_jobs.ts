import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect-kind.ts';

/**
 * The worker's job ledger (docs/architecture.md "Worker"): one row per registered job name with the
 * instant (epoch ms) it last started and finished and its last error. A worker runs a job only while
 * holding the job's lock (a PostgreSQL advisory lock; on SQLite one process) and only when the
 * ledger says it is due, so several workers run each due job exactly once.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const bigint = dialect === 'postgres' ? 'bigint' : 'integer';
  await db.schema
    .createTable('worker_jobs')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('last_started_at', bigint)
    .addColumn('last_finished_at', bigint)
    .addColumn('last_error', 'text')
    .addColumn('runs', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}
