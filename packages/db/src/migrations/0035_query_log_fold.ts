import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../dialect-kind.ts';

/**
 * The roll-ups' watermark (docs/architecture.md "Statistics"; docs/decisions.md "Roll-ups folded by
 * the worker"): `query_log_fold` holds one row (`id` 1) whose `last_id` is the highest `query_log.id`
 * the worker has folded into the roll-up tables. Rows above it are waiting to be folded.
 *
 * Until this migration the writers rolled up every batch themselves, so it starts at the log's
 * current highest id: every row already logged is already counted.
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  const bigint = dialect === 'postgres' ? 'bigint' : 'integer';
  await db.schema
    .createTable('query_log_fold')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('last_id', bigint, (c) => c.notNull())
    .addColumn('folded_at', bigint, (c) => c.notNull())
    .execute();
  await sql`insert into query_log_fold (id, last_id, folded_at)
    select 1, coalesce(max(id), 0), 0 from query_log`.execute(db);
}
