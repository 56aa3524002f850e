import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect-kind.ts';

/**
 * Who asked, in the query log (docs/decisions.md "Query log identity"): `query_log` gets `device_id`
 * (the device identified by its key), `user_id` and `user_name` (the internal user the agent
 * reported, EDNS(0) option 65074; the name is kept so the row still reads after the user is deleted;
 * empty when none) and `group_id` (that user's effective group). No foreign keys: the log outlives
 * the rows it names. On PostgreSQL `query_log` is partitioned (migration 0022): a column added to the
 * parent lands in every partition, and the partitions the worker creates later take the parent's
 * columns. The roll-up dimensions they feed: migration 0030.
 */
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema.alterTable('query_log').addColumn('device_id', 'integer').execute();
  await db.schema.alterTable('query_log').addColumn('user_id', 'integer').execute();
  await db.schema
    .alterTable('query_log')
    .addColumn('user_name', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  await db.schema.alterTable('query_log').addColumn('group_id', 'integer').execute();
}
