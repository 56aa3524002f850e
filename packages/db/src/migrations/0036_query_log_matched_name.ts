import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect-kind.ts';

/**
 * The name that blocked a query through its answer (issue 24, CNAME/DNAME cloaking): `query_log`
 * gets `matched_name`, the name of the upstream answer's alias chain (a CNAME or DNAME owner or
 * target, an HTTPS/SVCB target) whose decision blocked the query, lower case without the trailing
 * dot; empty when the decision was made on the qname itself, and for every row logged before. The
 * history shows it beside the reason (docs/api.md "History"). On PostgreSQL `query_log` is
 * partitioned (migration 0022): a column added to the parent lands in every partition, and the
 * partitions the worker creates later take the parent's columns. No roll-up reads it.
 */
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema
    .alterTable('query_log')
    .addColumn('matched_name', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
}
