import { type Database, executePrepared } from '@cordon/db';
import { ApiError, type ListQuery } from '@cordon/shared';
import { type Expression, type Kysely, type SelectQueryBuilder, type SqlBool, sql } from 'kysely';

/**
 * Resolves a list query's `sortkey` against a resource's whitelist (docs/api.md "Conventions").
 * @param columns sortkey → SQL column reference
 * @returns the column to order by
 * @throws ApiError ERR_VALIDATION (400) naming the allowed keys for an unknown sortkey
 */
export function sortColumn<C extends string>(
  query: Pick<ListQuery, 'sortkey'>,
  columns: Readonly<Record<string, C>>,
): C {
  const column = Object.hasOwn(columns, query.sortkey) ? columns[query.sortkey] : undefined;
  if (column === undefined) {
    const message = `sortkey must be one of: ${Object.keys(columns).join(', ')}.`;
    throw new ApiError('ERR_VALIDATION', message, { sortkey: message });
  }
  return column;
}

/** A LIKE pattern matching `text` anywhere, with LIKE wildcards in it escaped (use with `escape '\\'`). */
export function containsPattern(text: string): string {
  return `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * `lower(<column>) like '%text%'`, case-insensitive and with LIKE wildcards in `text` taken literally:
 * the `filter` of a list query (docs/api.md "Conventions") on one text column.
 */
export function containsText(column: string, text: string): Expression<SqlBool> {
  return sql<SqlBool>`lower(${sql.ref(column)}) like ${containsPattern(text)} escape '\\'`;
}

/**
 * The `filter` of a list query (docs/api.md "Conventions") on several text columns: true when any of
 * them contains `text` (case-insensitive, LIKE wildcards taken literally; see {@link containsText}).
 * @param columns at least one SQL column reference
 */
export function containsAnyText(columns: readonly string[], text: string): Expression<SqlBool> {
  if (columns.length === 1) return containsText(columns[0]!, text);
  return sql<SqlBool>`(${sql.join(
    columns.map((c) => containsText(c, text)),
    sql` or `,
  )})`;
}

/** How a resource's list sorts: the `sortkey` whitelist, which columns are text, and the tie-break column. */
export interface ListSort<C extends string> {
  /** sortkey → SQL column reference. */
  readonly columns: Readonly<Record<string, C>>;
  /** Columns compared case-insensitively (names); others sort by their stored value. */
  readonly text: readonly C[];
  /** A unique column ordered second, so pages are stable (usually the id). */
  readonly tiebreak: C;
}

/** The column of {@link listPage}'s page query that carries the count of all rows (removed from the rows). */
const TOTAL = 'cordon_list_total';

/**
 * One page of `base` and the count of all its rows (docs/api.md lists: `limit`, `offset`, `sortkey`,
 * `sortdir`). `base` carries every condition, the tenant scope included, so `total` counts the same rows.
 *
 * One statement: the count is an uncorrelated scalar subquery beside the page's columns, which both
 * dialects evaluate once (PostgreSQL as an InitPlan), so the page keeps its own plan (an index read
 * in order that stops after `offset + limit` rows) where a window `count(*) over ()` would read every
 * row of `base` before the first one comes out. A page that comes back empty carries no count: then
 * `total` is 0 at offset 0, else a second statement counts (bench/README.md "API reads").
 * @param preparedOn the handle to run the page on as a prepared statement (`executePrepared` of
 *   @cordon/db): for a list within one tenant, whose plan is the same whatever the tenant
 * @returns the page's rows as `base` selects them, and `total`
 * @throws ApiError ERR_VALIDATION (400) for a `sortkey` outside `sort.columns`, before any query runs
 */
export async function listPage<DB, TB extends keyof DB, O, C extends string>(
  base: SelectQueryBuilder<DB, TB, O>,
  query: Pick<ListQuery, 'sortkey' | 'sortdir' | 'limit' | 'offset'>,
  sort: ListSort<C>,
  preparedOn?: Kysely<Database>,
): Promise<{ rows: O[]; total: number }> {
  const column = sortColumn(query, sort.columns);
  const order = sort.text.includes(column) ? sql`lower(${sql.ref(column)})` : sql.ref(column);
  const counted = base
    .clearSelect()
    .select(sql<number | string>`count(*)`.as('n'))
    // Kysely cannot resolve a selection over the generic DB/TB here; the one column is known.
    .$castTo<{ n: number | string }>();
  const page = base
    .select(counted.as(TOTAL))
    .orderBy(order, query.sortdir)
    .orderBy(sql.ref(sort.tiebreak), query.sortdir)
    .limit(query.limit)
    .offset(query.offset)
    .$castTo<O & { [TOTAL]: number | string }>();
  const read = preparedOn ? await executePrepared(preparedOn, page) : await page.execute();
  if (read.length === 0) {
    if (query.offset === 0 && query.limit > 0) return { rows: [], total: 0 };
    return { rows: [], total: Number((await counted.executeTakeFirstOrThrow()).n) };
  }
  const total = Number(read[0]![TOTAL]);
  const rows = read.map(({ [TOTAL]: _, ...row }) => row as O);
  return { rows, total };
}
