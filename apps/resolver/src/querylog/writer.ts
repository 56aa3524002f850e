import type { DatabaseHandle, OpenDatabaseOptions, QueryLogTable } from '@cordon/db';
import { sql } from 'kysely';
import { from as copyFrom } from 'pg-copy-streams';
import type { Logger } from 'pino';
import { applyRollups, customersOf, foldRollups, mspTopDeltas, RollupBuffer, type RollupDeltas } from './rollup.ts';

/**
 * One query-log row as inserted (docs/architecture.md "Statistics"): the `query_log` table of
 * @cordon/db but its id. The identity columns (migration 0029: device, internal user, group) may be
 * left out: null, and an empty user name.
 */
export type QueryLogRow = Omit<QueryLogTable, 'id' | 'device_id' | 'user_id' | 'user_name' | 'group_id'> & {
  device_id?: number | null;
  user_id?: number | null;
  user_name?: string;
  group_id?: number | null;
};

/** A query-log sink (docs/contributing.md "Conventions" 7). {@link NullQueryLog} is the do-nothing stand-in. */
export interface QueryLogSink {
  /** Enqueues a row; never blocks and never throws. Returns false when the row was dropped. */
  push(row: QueryLogRow): boolean;
  /** Writes everything buffered now. */
  flush(): Promise<void>;
  /** Flushes and stops the timer. */
  close(): Promise<void>;
  readonly stats: QueryLogStats;
}

export interface QueryLogStats {
  written: number;
  dropped: number;
  failedBatches: number;
}

/** Writer settings (ResolverOptions.queryLog). */
export interface QueryLogOptions {
  /** Rows per INSERT and the buffer level that triggers a flush. Default 1000. */
  batchSize?: number;
  /** Longest a row waits in the buffer, ms. Default 500. */
  flushMs?: number;
  /**
   * Rows held at most — buffered, plus handed to the writer thread and not yet written; beyond it
   * rows are dropped and counted. Default 50,000.
   */
  maxBuffer?: number;
  /**
   * Write on a `worker_threads` writer with its own connection (docs/architecture.md "Data plane": inserts never stall
   * answering). Default true; false writes on the resolving thread through the resolver's handle.
   */
  worker?: boolean;
  /**
   * How the writer thread opens its own connection. Default: the same file for a SQLite file
   * (WAL lets both connections work); PostgreSQL must pass it (`{ url }`, the handle keeps no
   * password). With none, or an in-memory SQLite database, rows are written on the resolving thread.
   */
  connection?: OpenDatabaseOptions;
}

/** The `query_log` columns the writers fill, in statement order. */
const COLUMNS =
  'ts, customer_id, location_id, policy_id, client_ip, qname, qtype, protocol, action, reason, categories, rcode, answer_source, latency_us, device_id, user_id, user_name, group_id';
const NCOLS = 18;
/** Rows per multi-row SQLite statement: 18 × 50 = 900 parameters, under SQLite's historic limit of 999. */
const SQLITE_ROWS = 50;

type SqliteDb = NonNullable<DatabaseHandle['sqlite']>;
type SqliteStatement = ReturnType<SqliteDb['prepare']>;

/** Roll-up rows per multi-row SQLite upsert: 7 × 100 = 700 parameters, under SQLite's historic limit of 999. */
const SQLITE_UPSERT_ROWS = 100;

/** A multi-row prepared statement and its one-row twin, for the tail. */
interface ManyAndOne {
  many: SqliteStatement;
  one: SqliteStatement;
}

interface SqliteStatements {
  rawMany: SqliteStatement;
  rawOne: SqliteStatement;
  hourly: ManyAndOne;
  top: ManyAndOne;
  mspTop: ManyAndOne;
  mspOf: SqliteStatement;
}
/** The prepared statements of each SQLite connection, made once. */
const prepared = new WeakMap<SqliteDb, SqliteStatements>();

/** `insert into <head> values (?…), … <tail>` prepared for {@link SQLITE_UPSERT_ROWS} rows and for one. */
function prepareUpsert(db: SqliteDb, head: string, ncols: number, tail: string): ManyAndOne {
  const tuple = `(${new Array(ncols).fill('?').join(', ')})`;
  return {
    many: db.prepare(`insert into ${head} values ${new Array(SQLITE_UPSERT_ROWS).fill(tuple).join(', ')} ${tail}`),
    one: db.prepare(`insert into ${head} values ${tuple} ${tail}`),
  };
}

function statementsOf(db: SqliteDb): SqliteStatements {
  let st = prepared.get(db);
  if (st === undefined) {
    const tuple = `(${new Array(NCOLS).fill('?').join(', ')})`;
    st = {
      rawMany: db.prepare(`insert into query_log (${COLUMNS}) values ${new Array(SQLITE_ROWS).fill(tuple).join(', ')}`),
      rawOne: db.prepare(`insert into query_log (${COLUMNS}) values ${tuple}`),
      hourly: prepareUpsert(
        db,
        'stats_hourly (customer_id, location_id, hour, requests, allowed, blocked, bypassed)',
        7,
        `on conflict (customer_id, hour, location_id) do update set
        requests = requests + excluded.requests, allowed = allowed + excluded.allowed,
        blocked = blocked + excluded.blocked, bypassed = bypassed + excluded.bypassed`,
      ),
      top: prepareUpsert(
        db,
        'stats_hourly_top (customer_id, location_id, hour, dim, action, key, count)',
        7,
        'on conflict (customer_id, dim, hour, action, key, location_id) do update set count = count + excluded.count',
      ),
      mspTop: prepareUpsert(
        db,
        'stats_hourly_msp_top (msp_id, hour, dim, action, key, count)',
        6,
        'on conflict (msp_id, dim, hour, action, key) do update set count = count + excluded.count',
      ),
      mspOf: db.prepare('select msp_id from customers where id = ?'),
    };
    prepared.set(db, st);
  }
  return st;
}

/**
 * Runs `st` over `rows`: `perMany` rows per execution of the multi-row statement (the rows it was
 * prepared for: {@link SQLITE_UPSERT_ROWS} by default), the rest one by one; `put(p, at, row)`
 * writes a row's `ncols` values at `p[at…]`.
 */
function runMany<T>(
  st: ManyAndOne,
  ncols: number,
  rows: readonly T[],
  put: (p: unknown[], at: number, r: T) => void,
  perMany = SQLITE_UPSERT_ROWS,
) {
  const many = new Array(ncols * perMany);
  let i = 0;
  for (; i + perMany <= rows.length; i += perMany) {
    for (let k = 0; k < perMany; k++) put(many, k * ncols, rows[i + k]!);
    st.many.run(many);
  }
  const one = new Array(ncols);
  for (; i < rows.length; i++) {
    put(one, 0, rows[i]!);
    st.one.run(one);
  }
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
  runMany({ many: st.rawMany, one: st.rawOne }, NCOLS, rows, putRow, SQLITE_ROWS);
}

/**
 * SQLite, synchronous (the caller holds the connection and a transaction): the roll-up upserts, per
 * customer and per MSP, through prepared multi-row upserts ({@link SQLITE_UPSERT_ROWS} rows each).
 * Each table's keys must be unique within `d` (as `RollupBuffer.take` gives them).
 */
function applyRollupsSqlite(st: SqliteStatements, d: RollupDeltas): void {
  runMany(st.hourly, 7, d.hourly, (p, at, h) => {
    p[at] = h.customer_id;
    p[at + 1] = h.location_id;
    p[at + 2] = h.hour;
    p[at + 3] = h.requests;
    p[at + 4] = h.allowed;
    p[at + 5] = h.blocked;
    p[at + 6] = h.bypassed;
  });
  runMany(st.top, 7, d.top, (p, at, t) => {
    p[at] = t.customer_id;
    p[at + 1] = t.location_id;
    p[at + 2] = t.hour;
    p[at + 3] = t.dim;
    p[at + 4] = t.action;
    p[at + 5] = t.key;
    p[at + 6] = t.count;
  });
  if (d.top.length === 0) return;
  const msps = new Map<number, number>();
  for (const id of customersOf(d.top)) {
    const row = st.mspOf.get([id]) as { msp_id: number } | undefined;
    if (row !== undefined) msps.set(id, Number(row.msp_id));
  }
  runMany(st.mspTop, 6, mspTopDeltas(d.top, msps), (p, at, m) => {
    p[at] = m.msp_id;
    p[at + 1] = m.hour;
    p[at + 2] = m.dim;
    p[at + 3] = m.action;
    p[at + 4] = m.key;
    p[at + 5] = m.count;
  });
}

/**
 * PostgreSQL inside a transaction (`insertQueryLogRows`): the raw rows in one INSERT … SELECT FROM
 * unnest(column arrays): 18 parameters whatever the row count, no per-row statement text.
 */
async function insertRawPostgres(db: DatabaseHandle['db'], rows: readonly QueryLogRow[]): Promise<void> {
  const col = <T>(f: (r: QueryLogRow) => T): T[] => rows.map(f);
  await sql`insert into query_log (${sql.raw(COLUMNS)}) select * from unnest(
    ${col((r) => r.ts)}::bigint[], ${col((r) => r.customer_id)}::int[], ${col((r) => r.location_id)}::int[],
    ${col((r) => r.policy_id)}::int[], ${col((r) => r.client_ip)}::text[], ${col((r) => r.qname)}::text[],
    ${col((r) => r.qtype)}::text[], ${col((r) => r.protocol)}::text[], ${col((r) => r.action)}::text[],
    ${col((r) => r.reason)}::text[], ${col((r) => r.categories)}::text[], ${col((r) => r.rcode)}::text[],
    ${col((r) => r.answer_source)}::text[], ${col((r) => r.latency_us)}::int[], ${col((r) => r.device_id ?? null)}::int[],
    ${col((r) => r.user_id ?? null)}::int[], ${col((r) => r.user_name ?? '')}::text[], ${col((r) => r.group_id ?? null)}::int[])`.execute(
    db,
  );
}

/** A text value in COPY's text format (PostgreSQL "COPY", "Text Format"): backslash, tab, newline and return escaped. */
function copyText(v: string): string {
  return /[\\\t\n\r]/.test(v)
    ? v.replace(/[\\\t\n\r]/g, (c) => (c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r'))
    : v;
}
/** A nullable number in COPY's text format (`\N` is null). */
function copyNum(v: number | null | undefined): string {
  return v === null || v === undefined ? '\\N' : String(v);
}

/**
 * PostgreSQL, the writers' raw path: the rows streamed with `COPY query_log FROM STDIN` (text format,
 * through pg-copy-streams) on one pooled connection. One statement, so all or nothing; measured
 * faster than the `unnest` INSERT (bench/README.md "Traffic"). A connection that failed mid-COPY is
 * discarded, not returned to the pool.
 */
async function copyRawPostgres(
  pool: NonNullable<DatabaseHandle['pgPool']>,
  rows: readonly QueryLogRow[],
): Promise<void> {
  const lines: string[] = new Array(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i]!;
    lines[i] =
      `${r.ts}\t${r.customer_id}\t${copyNum(r.location_id)}\t${copyNum(r.policy_id)}\t${copyText(r.client_ip)}\t` +
      `${copyText(r.qname)}\t${copyText(r.qtype)}\t${copyText(r.protocol)}\t${copyText(r.action)}\t${copyText(r.reason)}\t` +
      `${copyText(r.categories)}\t${copyText(r.rcode)}\t${copyText(r.answer_source)}\t${r.latency_us}\t` +
      `${copyNum(r.device_id)}\t${copyNum(r.user_id)}\t${copyText(r.user_name ?? '')}\t${copyNum(r.group_id)}\n`;
  }
  const client = await pool.connect();
  try {
    // One chunk, ended at once: no Readable and pipeline per batch (bench/README.md "Traffic").
    const copy = client.query(copyFrom(`copy query_log (${COLUMNS}) from stdin`));
    await new Promise<void>((resolve, reject) => {
      copy.once('finish', resolve);
      copy.once('error', reject);
      copy.end(Buffer.from(lines.join('')));
    });
    client.release();
  } catch (err) {
    client.release(err instanceof Error ? err : true);
    throw err;
  }
}

/** Without a raw SQLite connection (a handle not made by `openDatabase`): Kysely's multi-row INSERTs. */
async function insertRawKysely(db: DatabaseHandle['db'], rows: readonly QueryLogRow[]): Promise<void> {
  for (let i = 0; i < rows.length; i += SQLITE_ROWS) {
    await db
      .insertInto('query_log')
      .values(rows.slice(i, i + SQLITE_ROWS) as QueryLogRow[])
      .execute();
  }
}

/**
 * Inserts `rows` into `query_log` and adds them to the hourly roll-ups (querylog/rollup.ts), in one
 * transaction: the dashboards' counts never disagree with the log. Rejects on a database error
 * (nothing of the batch is kept).
 */
export async function insertQueryLogRows(handle: DatabaseHandle, rows: readonly QueryLogRow[]): Promise<void> {
  if (rows.length === 0) return;
  const deltas = foldRollups(rows);
  const lite = handle.sqlite;
  if (handle.dialect === 'sqlite' && lite !== undefined) {
    await handle.db.connection().execute(async () => {
      const st = statementsOf(lite);
      lite.transaction(() => {
        insertRawSqlite(st, rows);
        applyRollupsSqlite(st, deltas);
      })();
    });
    return;
  }
  await handle.db.transaction().execute(async (trx) => {
    await (handle.dialect === 'postgres' ? insertRawPostgres(trx, rows) : insertRawKysely(trx, rows));
    await applyRollups(trx, deltas, handle.dialect);
  });
}

/**
 * Inserts `rows` into `query_log` alone, in one transaction (no roll-ups): SQLite prepared multi-row
 * statements, PostgreSQL one COPY (or one INSERT from `unnest` of column arrays without a pool). Rejects on a database error
 * (nothing of the batch is kept).
 */
export async function insertQueryLogRaw(handle: DatabaseHandle, rows: readonly QueryLogRow[]): Promise<void> {
  if (rows.length === 0) return;
  const lite = handle.sqlite;
  if (handle.dialect === 'sqlite' && lite !== undefined) {
    await handle.db.connection().execute(async () => {
      const st = statementsOf(lite);
      lite.transaction(() => insertRawSqlite(st, rows))();
    });
  } else if (handle.dialect === 'postgres') {
    await (handle.pgPool ? copyRawPostgres(handle.pgPool, rows) : insertRawPostgres(handle.db, rows));
  } else {
    await handle.db.transaction().execute((trx) => insertRawKysely(trx, rows));
  }
}

/**
 * The writers' insert path (docs/architecture.md "Statistics"): inserts `rows` into `query_log` at
 * once (one transaction) and adds them to `rollups`, whose deltas are written (one transaction) when
 * due ({@link RollupBuffer.full}); call {@link flushRollups} on flush and close, and when
 * {@link RollupBuffer.due} says so. Rejects only on a database error of the raw rows (nothing of the
 * batch is kept); a failure of the roll-ups is not this batch's (its rows are in the log) and is kept
 * in `rollups` for the next {@link flushRollups} to report.
 *
 * On PostgreSQL with a pool the due roll-ups are written on a second pooled connection while the
 * next batches' COPYs go on (one such flush at a time: a batch finding one still running waits for
 * it first). On SQLite (one connection) they are written before this returns.
 */
export async function insertQueryLogBatch(
  handle: DatabaseHandle,
  rows: readonly QueryLogRow[],
  rollups: RollupBuffer,
): Promise<void> {
  if (rows.length === 0) return;
  await insertQueryLogRaw(handle, rows);
  rollups.add(rows);
  if (!rollups.full) return;
  if (rollups.inFlight !== null) await rollups.inFlight;
  if (!rollups.full) return;
  const flight = writeRollups(handle, rollups.take()).catch((error: unknown) => {
    rollups.failure = { error };
  });
  if (handle.dialect !== 'postgres' || handle.pgPool === undefined) {
    await flight;
    return;
  }
  rollups.inFlight = flight.finally(() => {
    rollups.inFlight = null;
  });
}

/**
 * Writes the roll-up deltas `rollups` holds, in one transaction, after waiting for the one written
 * in the background ({@link insertQueryLogBatch}). Rejects on a database error (the deltas are lost),
 * or with the error of that background flush (its deltas lost) once the others are written.
 */
export async function flushRollups(handle: DatabaseHandle, rollups: RollupBuffer): Promise<void> {
  if (rollups.inFlight !== null) await rollups.inFlight;
  const failure = rollups.failure;
  rollups.failure = null;
  if (rollups.rowCount > 0) await writeRollups(handle, rollups.take());
  if (failure !== null) throw failure.error;
}

/** Writes `deltas` in one transaction (SQLite: prepared statements on the connection Kysely holds). */
async function writeRollups(handle: DatabaseHandle, deltas: RollupDeltas): Promise<void> {
  const lite = handle.sqlite;
  if (handle.dialect === 'sqlite' && lite !== undefined) {
    await handle.db.connection().execute(async () => {
      const st = statementsOf(lite);
      lite.transaction(() => applyRollupsSqlite(st, deltas))();
    });
    return;
  }
  await handle.db.transaction().execute((trx) => applyRollups(trx, deltas, handle.dialect));
}

/** A sink that discards everything (query logging off). */
export class NullQueryLog implements QueryLogSink {
  readonly stats: QueryLogStats = { written: 0, dropped: 0, failedBatches: 0 };
  push(): boolean {
    return true;
  }
  async flush(): Promise<void> {}
  async close(): Promise<void> {}
}

/**
 * Batches query-log rows into `query_log` on the resolving thread (docs/contributing.md "Conventions" 7, docs/architecture.md "Data plane") —
 * the fallback of {@link openQueryLog} when no writer thread can be used: a bounded in-memory
 * buffer flushed every `flushMs` or as soon as `batchSize` rows wait, INSERTs of at most `batchSize`
 * rows (see {@link insertQueryLogBatch}), one flush at a time. When the buffer is full, new rows are dropped and counted — resolution never
 * waits for the database. A failed batch is logged, counted, and lost (retrying would let an
 * unreachable database grow memory without bound).
 */
export class QueryLogWriter implements QueryLogSink {
  readonly stats: QueryLogStats = { written: 0, dropped: 0, failedBatches: 0 };
  private buffer: QueryLogRow[] = [];
  private readonly batchSize: number;
  private readonly maxBuffer: number;
  private readonly timer: NodeJS.Timeout;
  private flushing: Promise<void> | null = null;
  private readonly rollups = new RollupBuffer();

  constructor(
    private readonly handle: DatabaseHandle,
    private readonly logger: Logger,
    opts: QueryLogOptions = {},
  ) {
    this.batchSize = Math.max(1, Math.min(opts.batchSize ?? 1000, 1000));
    this.maxBuffer = Math.max(this.batchSize, opts.maxBuffer ?? 50_000);
    this.timer = setInterval(() => void this.tick(), opts.flushMs ?? 500);
    this.timer.unref();
  }

  push(row: QueryLogRow): boolean {
    if (this.buffer.length >= this.maxBuffer) {
      this.stats.dropped++;
      return false;
    }
    this.buffer.push(row);
    if (this.buffer.length >= this.batchSize && !this.flushing) void this.drainBuffered();
    return true;
  }

  /** Writes every buffered row and the roll-ups of every row written so far. */
  async flush(): Promise<void> {
    await this.drainBuffered();
    await this.writeRollups();
  }

  /** The timer: buffered rows now, roll-ups when due. */
  private async tick(): Promise<void> {
    await this.drainBuffered();
    if (this.rollups.due()) await this.writeRollups();
  }

  private async writeRollups(): Promise<void> {
    try {
      await flushRollups(this.handle, this.rollups);
    } catch (err) {
      this.stats.failedBatches++;
      this.logger.error({ err }, 'query log roll-ups failed; deltas dropped');
    }
  }

  private drainBuffered(): Promise<void> {
    if (this.flushing) return this.flushing.then(() => (this.buffer.length > 0 ? this.drainBuffered() : undefined));
    if (this.buffer.length === 0) return Promise.resolve();
    this.flushing = this.drain().finally(() => {
      this.flushing = null;
    });
    return this.flushing;
  }

  private async drain(): Promise<void> {
    while (this.buffer.length > 0) {
      const rows = this.buffer.length <= this.batchSize ? this.buffer : this.buffer.slice(0, this.batchSize);
      this.buffer = rows === this.buffer ? [] : this.buffer.slice(rows.length);
      try {
        await insertQueryLogBatch(this.handle, rows, this.rollups);
        this.stats.written += rows.length;
      } catch (err) {
        this.stats.failedBatches++;
        this.stats.dropped += rows.length;
        this.logger.error({ err, rows: rows.length }, 'query log batch failed; rows dropped');
      }
    }
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}
