import type { QueryLogTable } from './schema.ts';

/**
 * One query-log row as inserted (docs/architecture.md "Statistics"; the resolver's writers append raw
 * rows only, the worker folds them into the roll-ups): the `query_log` table but its id. Here, beside
 * the schema, so the resolver's writers and the tests of the API that seed the log share one shape.
 * The identity columns (migration 0029: device, internal user, group) may be left out: null, and an
 * empty user name. So may `matched_name` (migration 0036: the name of the
 * answer's alias chain whose decision blocked the query, lower case without the trailing dot): empty,
 * the decision was made on the qname.
 */
export type QueryLogRow = Omit<
  QueryLogTable,
  'id' | 'device_id' | 'user_id' | 'user_name' | 'group_id' | 'matched_name'
> & {
  device_id?: number | null;
  user_id?: number | null;
  user_name?: string;
  group_id?: number | null;
  matched_name?: string;
};
