/** A prepared statement that takes its values as one array (better-sqlite3's `run`). */
interface RunsArray {
  run(params: unknown[]): unknown;
}

/**
 * Runs a multi-row INSERT over `rows` (docs/architecture.md "Statistics": the query-log writers and
 * the roll-up fold): `many` is prepared for `perMany` rows of `ncols` values each, `one` for a single
 * row; whole groups of `perMany` rows go through `many`, the tail row by row through `one`.
 * `put(p, at, row)` writes a row's `ncols` values at `p[at…]`. Synchronous (SQLite); the caller holds
 * the connection and its transaction. Throws what the statements throw.
 */
export function runMultiRow<T>(
  many: RunsArray,
  one: RunsArray,
  perMany: number,
  ncols: number,
  rows: readonly T[],
  put: (p: unknown[], at: number, row: T) => void,
): void {
  const values = new Array(ncols * perMany);
  let i = 0;
  for (; i + perMany <= rows.length; i += perMany) {
    for (let k = 0; k < perMany; k++) put(values, k * ncols, rows[i + k]!);
    many.run(values);
  }
  const single = new Array(ncols);
  for (; i < rows.length; i++) {
    put(single, 0, rows[i]!);
    one.run(single);
  }
}
