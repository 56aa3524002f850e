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
  runMultiRowRange(many, one, perMany, ncols, 0, rows.length, (p, at, i) => put(p, at, rows[i]!));
}

/**
 * {@link runMultiRow} over rows that are not objects: the rows numbered `from` to `to` (exclusive),
 * `put(p, at, i)` writing row `i`'s values at `p[at…]`, called with `i` increasing. For rows kept in
 * columns (the query-log writer thread binds its batches' columns without making a row object each:
 * bench/README.md "Resolver memory"). Throws what `put` or the statements throw.
 */
export function runMultiRowRange(
  many: RunsArray,
  one: RunsArray,
  perMany: number,
  ncols: number,
  from: number,
  to: number,
  put: (p: unknown[], at: number, i: number) => void,
): void {
  const values = new Array(ncols * perMany);
  let i = from;
  for (; i + perMany <= to; i += perMany) {
    for (let k = 0; k < perMany; k++) put(values, k * ncols, i + k);
    many.run(values);
  }
  const single = new Array(ncols);
  for (; i < to; i++) {
    put(single, 0, i);
    one.run(single);
  }
}
