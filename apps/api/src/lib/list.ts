import { ApiError, type ListQuery } from '@cordon/shared';

/**
 * Resolves a list query's `sortkey` against a resource's whitelist (DESIGN.md §5).
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
