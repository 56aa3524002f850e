/**
 * The query log's SQLite insert (docs/architecture.md "Statistics"): prepared multi-row statements
 * over one connection, with nothing imported but better-sqlite3's types and the batch format
 * (querylog/batch.ts), so the writer thread (querylog/worker.ts) inserts into a SQLite file without
 * evaluating Kysely, pg or the migrations in its isolate (bench/README.md "Resolver memory", round
 * 7). `insertQueryLogRaw` (querylog/writer.ts) uses the same code on a Kysely handle's connection.
 */
import type SQLite from 'better-sqlite3';
import { checkedQnames, NUMS, type ToWriter } from './batch.ts';
import type { QueryLogRow } from './row.ts';

/** The `query_log` columns the writers fill, in statement order. */
export const COLUMNS =
  'ts, customer_id, location_id, policy_id, client_ip, qname, qtype, protocol, action, reason, categories, rcode, answer_source, latency_us, device_id, user_id, user_name, group_id, matched_name';
const NCOLS = 19;
/** Rows per multi-row SQLite statement: at most 19 × 50 = 950 parameters, under SQLite's historic limit of 999. */
export const SQLITE_ROWS = 50;

type SqliteDb = SQLite.Database;
/** A statement taking its values as positional arguments (and, when it has named ones, a trailing object). */
type SqliteStatement = SQLite.Statement<unknown[]>;

/**
 * Columns a {@link SQLITE_ROWS}-row statement binds once, as the named parameter `@c<column>`, when
 * every row of the statement has the same value there (one client, one action, one answer source in
 * a row): every column but `ts`, `qname` and `latency_us`, which nearly always differ. Binding a value
 * (a string converted to UTF-8 and copied) was most of the writer thread's time a row
 * (bench/results/history.md "Resolver CPU per query").
 */
const SHAREABLE: readonly number[] = [1, 2, 3, 4, 6, 7, 8, 9, 10, 11, 12, 14, 15, 16, 17, 18];
/**
 * Statement shapes (sets of shared columns) prepared per connection at most; a group of rows whose
 * shape is not among them binds every value (the statement sharing none). Real traffic repeats a few.
 */
const MAX_SHAPES = 32;

/** A {@link SQLITE_ROWS}-row statement sharing the columns of `mask` (bit c: column c), with its argument arrays. */
interface Shape {
  readonly statement: SqliteStatement;
  /** The values of the columns not shared, row after row (what `run` takes as its positional arguments). */
  readonly args: unknown[];
  /** The shared columns' values by parameter name (`c4`: column 4). */
  readonly named: Record<string, unknown>;
}

interface SqliteStatements {
  readonly db: SqliteDb;
  rawOne: SqliteStatement;
  /** By mask of shared columns; 0, sharing none, always present. */
  readonly shapes: Map<number, Shape>;
}
/** The prepared statements of each SQLite connection, made once. */
const prepared = new WeakMap<SqliteDb, SqliteStatements>();

function statementsOf(db: SqliteDb): SqliteStatements {
  let st = prepared.get(db);
  if (st === undefined) {
    const tuple = `(${new Array(NCOLS).fill('?').join(', ')})`;
    st = { db, rawOne: db.prepare<unknown[]>(`insert into query_log (${COLUMNS}) values ${tuple}`), shapes: new Map() };
    st.shapes.set(0, shapeOf(db, 0));
    prepared.set(db, st);
  }
  return st;
}

/**
 * The {@link SQLITE_ROWS}-row statement binding the columns of `mask` once (`@c<n>`) and the others
 * per row (`?`). SQLite numbers a named parameter where it first appears and reuses it after, and
 * better-sqlite3 binds the positional arguments to the `?`s in order and the named ones from the
 * trailing object.
 */
function shapeOf(db: SqliteDb, mask: number): Shape {
  const tuple = [];
  for (let c = 0; c < NCOLS; c++) tuple.push((mask & (1 << c)) === 0 ? '?' : `@c${c}`);
  const row = `(${tuple.join(', ')})`;
  let perRow = 0;
  for (let c = 0; c < NCOLS; c++) if ((mask & (1 << c)) === 0) perRow++;
  return {
    statement: db.prepare<unknown[]>(
      `insert into query_log (${COLUMNS}) values ${new Array(SQLITE_ROWS).fill(row).join(', ')}`,
    ),
    args: new Array(perRow * SQLITE_ROWS),
    named: {},
  };
}

/** The statement for `mask`, prepared on first use while fewer than {@link MAX_SHAPES} are; else the one sharing nothing. */
function shapeFor(st: SqliteStatements, mask: number): { shape: Shape; mask: number } {
  let shape = st.shapes.get(mask);
  if (shape === undefined) {
    if (st.shapes.size >= MAX_SHAPES) return { shape: st.shapes.get(0)!, mask: 0 };
    shape = shapeOf(st.db, mask);
    st.shapes.set(mask, shape);
  }
  return { shape, mask };
}

/** Appends row `r`'s values in {@link COLUMNS} order at `p[at…]`. */
function putRow(p: unknown[], at: number, r: QueryLogRow): void {
  p[at] = r.ts;
  p[at + 1] = r.customer_id;
  p[at + 2] = r.location_id;
  p[at + 3] = r.policy_id;
  p[at + 4] = r.client_ip;
  p[at + 5] = r.qname;
  p[at + 6] = r.qtype;
  p[at + 7] = r.protocol;
  p[at + 8] = r.action;
  p[at + 9] = r.reason;
  p[at + 10] = r.categories;
  p[at + 11] = r.rcode;
  p[at + 12] = r.answer_source;
  p[at + 13] = r.latency_us;
  p[at + 14] = r.device_id ?? null;
  p[at + 15] = r.user_id ?? null;
  p[at + 16] = r.user_name ?? '';
  p[at + 17] = r.group_id ?? null;
  p[at + 18] = r.matched_name ?? '';
}

/**
 * Rows to insert, numbered from 0: `put(p, at, i)` writes row `i`'s values in {@link COLUMNS} order at
 * `p[at…]`, called with `i` increasing within a statement run.
 */
interface RowSource {
  readonly count: number;
  put(p: unknown[], at: number, i: number): void;
}

/** Row objects as a {@link RowSource}. */
function objectRows(rows: readonly QueryLogRow[]): RowSource {
  return { count: rows.length, put: (p, at, i) => putRow(p, at, rows[i]!) };
}

type RowsMessage = Extract<ToWriter, { kind: 'rows' }>;

/** `NaN` (the batch format's null) as null. */
const orNull = (n: number): number | null => (Number.isNaN(n) ? null : n);

/**
 * The rows of `rows` messages (querylog/batch.ts) bound straight from their columns, one after the
 * other: no row object per row, so the writer thread's garbage per batch is its split qnames alone and
 * its isolate no longer grows by the rows it promoted (bench/README.md "Resolver memory", round 8).
 * Checked whole before anything is inserted.
 * @throws Error when a message is inconsistent (`checkedQnames` of querylog/batch.ts)
 */
class BatchRows implements RowSource {
  readonly count: number;
  private readonly qnames: string[][];
  /** Row number of each message's first row. */
  private readonly starts: number[];
  /** The message `put` reads from and its first row's number (rows come in increasing order). */
  private at = 0;
  private atStart = 0;

  constructor(private readonly batches: readonly RowsMessage[]) {
    this.qnames = [];
    this.starts = [];
    let count = 0;
    for (const m of batches) {
      this.qnames.push(checkedQnames(m));
      this.starts.push(count);
      count += m.count;
    }
    this.count = count;
  }

  put(p: unknown[], at: number, i: number): void {
    if (i < this.atStart) {
      this.at = 0;
      this.atStart = 0;
    }
    while (i >= this.atStart + this.batches[this.at]!.count) this.atStart = this.starts[++this.at]!;
    const { nums, dict } = this.batches[this.at]!;
    const row = i - this.atStart;
    const n = row * NUMS;
    p[at] = nums[n];
    p[at + 1] = nums[n + 1];
    p[at + 2] = orNull(nums[n + 2]!);
    p[at + 3] = orNull(nums[n + 3]!);
    p[at + 4] = dict[nums[n + 8]!];
    p[at + 5] = this.qnames[this.at]![row];
    p[at + 6] = dict[nums[n + 9]!];
    p[at + 7] = dict[nums[n + 10]!];
    p[at + 8] = dict[nums[n + 11]!];
    p[at + 9] = dict[nums[n + 12]!];
    p[at + 10] = dict[nums[n + 13]!];
    p[at + 11] = dict[nums[n + 14]!];
    p[at + 12] = dict[nums[n + 15]!];
    p[at + 13] = nums[n + 4];
    p[at + 14] = orNull(nums[n + 5]!);
    p[at + 15] = orNull(nums[n + 6]!);
    p[at + 16] = dict[nums[n + 16]!];
    p[at + 17] = orNull(nums[n + 7]!);
    p[at + 18] = dict[nums[n + 17]!];
  }
}

/**
 * SQLite, synchronous (the caller holds the connection and a transaction): rows `from` to `to`
 * (exclusive), {@link SQLITE_ROWS} per statement — each column whose value all of them share bound
 * once ({@link SHAREABLE}) — the tail one by one. The values are passed as arguments
 * (`run(...values)`), not as one array: better-sqlite3 then reads each from the call's arguments
 * instead of through an element lookup on the array (bench/results/history.md "Resolver CPU per
 * query").
 */
function insertRange(st: SqliteStatements, rows: RowSource, from: number, to: number): void {
  const values = new Array<unknown>(NCOLS * SQLITE_ROWS);
  let i = from;
  for (; i + SQLITE_ROWS <= to; i += SQLITE_ROWS) {
    for (let k = 0; k < SQLITE_ROWS; k++) rows.put(values, k * NCOLS, i + k);
    let mask = 0;
    for (const c of SHAREABLE) {
      const v = values[c];
      let at = NCOLS + c;
      while (at < values.length && values[at] === v) at += NCOLS;
      if (at >= values.length) mask |= 1 << c;
    }
    const found = shapeFor(st, mask);
    if (found.mask === 0) {
      found.shape.statement.run(...values);
      continue;
    }
    const { args, named, statement } = found.shape;
    let n = 0;
    for (let at = 0; at < values.length; at += NCOLS) {
      for (let c = 0; c < NCOLS; c++) if ((found.mask & (1 << c)) === 0) args[n++] = values[at + c];
    }
    for (const c of SHAREABLE) if ((found.mask & (1 << c)) !== 0) named[`c${c}`] = values[c];
    statement.run(...args, named);
  }
  const single = new Array<unknown>(NCOLS);
  for (; i < to; i++) {
    rows.put(single, 0, i);
    st.rawOne.run(...single);
  }
}

/**
 * How the writer thread spreads one batch's SQLite insert (docs/architecture.md "Data plane"): `rows`
 * at a time, awaiting `between()` (a short sleep) between slices, inside the one transaction. On a
 * core shared with the resolving thread, a slice is the longest the writer holds the core while a
 * query waits; the sleeps hand it back. The writer thread paces only while batches do not queue up.
 */
export interface WritePace {
  readonly rows: number;
  between(): Promise<void>;
}

/**
 * Appends `rows` to `query_log` on the SQLite connection `lite` in one transaction: at once, or with
 * `pace` a slice of `pace.rows` at a time with `await pace.between()` in between. All or nothing:
 * on an error the transaction is rolled back and the error rethrown. The caller holds the connection
 * exclusively for the whole call.
 */
export function insertQueryLogSqlite(
  lite: SQLite.Database,
  rows: readonly QueryLogRow[],
  pace?: WritePace,
): Promise<void> {
  return insertSource(lite, objectRows(rows), pace);
}

/**
 * {@link insertQueryLogSqlite} for the `rows` messages of the resolving thread (querylog/batch.ts),
 * in order, bound from their columns (the writer thread's path).
 * @throws Error (a rejection) when a message is inconsistent; nothing is inserted then
 */
export async function insertQueryLogBatchesSqlite(
  lite: SQLite.Database,
  batches: readonly RowsMessage[],
  pace?: WritePace,
): Promise<void> {
  return insertSource(lite, new BatchRows(batches), pace);
}

async function insertSource(lite: SQLite.Database, rows: RowSource, pace: WritePace | undefined): Promise<void> {
  if (rows.count === 0) return;
  const st = statementsOf(lite);
  if (pace === undefined || rows.count <= pace.rows) {
    lite.transaction(() => insertRange(st, rows, 0, rows.count))();
    return;
  }
  lite.exec('begin');
  try {
    for (let i = 0; i < rows.count; i += pace.rows) {
      if (i > 0) await pace.between();
      insertRange(st, rows, i, Math.min(rows.count, i + pace.rows));
    }
    lite.exec('commit');
  } catch (err) {
    if (lite.inTransaction) lite.exec('rollback');
    throw err;
  }
}
