/**
 * The query log's SQLite insert (docs/architecture.md "Statistics"): prepared multi-row statements
 * over one connection, with nothing imported but better-sqlite3's types and `runMultiRow`, so the
 * writer thread (querylog/worker.ts) inserts into a SQLite file without evaluating Kysely, pg or the
 * migrations in its isolate (bench/README.md "Resolver memory", round 7). `insertQueryLogRaw`
 * (querylog/writer.ts) uses the same code on a Kysely handle's connection.
 */
import { runMultiRow } from '@cordon/db/multi-row';
import type SQLite from 'better-sqlite3';
import type { QueryLogRow } from './row.ts';

/** The `query_log` columns the writers fill, in statement order. */
export const COLUMNS =
  'ts, customer_id, location_id, policy_id, client_ip, qname, qtype, protocol, action, reason, categories, rcode, answer_source, latency_us, device_id, user_id, user_name, group_id';
const NCOLS = 18;
/** Rows per multi-row SQLite statement: 18 × 50 = 900 parameters, under SQLite's historic limit of 999. */
export const SQLITE_ROWS = 50;

type SqliteDb = SQLite.Database;
type SqliteStatement = ReturnType<SqliteDb['prepare']>;

interface SqliteStatements {
  rawMany: SqliteStatement;
  rawOne: SqliteStatement;
}
/** The prepared statements of each SQLite connection, made once. */
const prepared = new WeakMap<SqliteDb, SqliteStatements>();

function statementsOf(db: SqliteDb): SqliteStatements {
  let st = prepared.get(db);
  if (st === undefined) {
    const tuple = `(${new Array(NCOLS).fill('?').join(', ')})`;
    st = {
      rawMany: db.prepare(`insert into query_log (${COLUMNS}) values ${new Array(SQLITE_ROWS).fill(tuple).join(', ')}`),
      rawOne: db.prepare(`insert into query_log (${COLUMNS}) values ${tuple}`),
    };
    prepared.set(db, st);
  }
  return st;
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
}

/** SQLite, synchronous (the caller holds the connection and a transaction): the raw rows, 50 per statement. */
function insertRawSqlite(st: SqliteStatements, rows: readonly QueryLogRow[]): void {
  runMultiRow(st.rawMany, st.rawOne, SQLITE_ROWS, NCOLS, rows, putRow);
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
export async function insertQueryLogSqlite(
  lite: SQLite.Database,
  rows: readonly QueryLogRow[],
  pace?: WritePace,
): Promise<void> {
  if (rows.length === 0) return;
  const st = statementsOf(lite);
  if (pace === undefined || rows.length <= pace.rows) {
    lite.transaction(() => insertRawSqlite(st, rows))();
    return;
  }
  lite.exec('begin');
  try {
    for (let i = 0; i < rows.length; i += pace.rows) {
      if (i > 0) await pace.between();
      insertRawSqlite(st, rows.slice(i, i + pace.rows));
    }
    lite.exec('commit');
  } catch (err) {
    if (lite.inTransaction) lite.exec('rollback');
    throw err;
  }
}
