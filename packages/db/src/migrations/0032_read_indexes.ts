import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../dialect-kind.ts';

/**
 * Indexes of the console's main reads (bench/README.md "API reads", "Traffic"):
 *
 * - `customers_account_name_lower` on `(lower(account_name), id)`: the customer list's default
 *   order (docs/api.md "Conventions": names sort case-insensitively, ties by id) read in index
 *   order, so a page of a system admin's 1,000 customers no longer sorts them all per request.
 * - `stats_daily_msp_top_dim_day` on `(dim, day)`: the system dashboard sums every MSP's daily
 *   rows of one dimension; the primary key starts with the MSP and the `day` index covers every
 *   dimension. The table is written once a day (the worker's compaction), so the index costs ingest
 *   nothing.
 *
 * Both dialects index the expression; the list's ORDER BY uses the same expression.
 */
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await sql`create index customers_account_name_lower on customers (lower(account_name), id)`.execute(db);
  await sql`create index stats_daily_msp_top_dim_day on stats_daily_msp_top (dim, day)`.execute(db);
}
