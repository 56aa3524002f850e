import { type DatabaseHandle, isDatabaseBusy, QUERY_LOG_WRITE_LOCK, runMultiRow } from '@cordon/db';
import { sql } from 'kysely';
import { applyRollups, customersOf, type FoldRow, foldRollups, mspTopDeltas, type RollupDeltas } from './buffer.ts';

/**
 * The roll-up fold (docs/architecture.md "Statistics"; docs/decisions.md "Roll-ups folded by the
 * worker"): the resolvers' writers only append raw rows to `query_log`; the worker role reads the rows
 * past the watermark (`query_log_fold.last_id`, migration 0035) in id order, folds them into
 * `stats_hourly`, `stats_hourly_top` and `stats_hourly_msp_top`, and moves the watermark, all in one
 * transaction — so every logged row is counted exactly once, whatever crashes, and several workers
 * folding one database take turns (SQLite: the write lock of an IMMEDIATE transaction; PostgreSQL:
 * the watermark row locked `for update`). On PostgreSQL the rows are read and summed before that
 * transaction (they are committed and never change), which writes only if the watermark is still
 * where the rows start; so a pass reads the next window while the server writes the one before.
 *
 * Ids are final in order: on SQLite a row id is assigned inside the single write transaction, so a
 * reader sees a prefix of the ids; on PostgreSQL the fold reads only up to the sequence's value taken
 * under {@link QUERY_LOG_WRITE_LOCK} held exclusively (writers hold it shared while they insert).
 */

/**
 * Rows folded per transaction by default on SQLite: bounds how long the fold holds the write lock and
 * this thread (better-sqlite3 is synchronous: ≈ 0.1 s at 10,000 rows). Only a backlog fills it; at
 * 1,000 queries/s a fold takes about 1,000 rows.
 */
export const FOLD_MAX_ROWS = 10_000;
/**
 * The same on PostgreSQL, where the work is the server's and this thread only waits: a larger window
 * collapses more repeated keys per upsert (bench/results/history.md "Roll-ups folded by the worker",
 * "The PostgreSQL fold: windows read ahead, pages with room": on the skewed mix 24,000 → 55,000
 * rows/s from 10,000 to 50,000 rows a transaction, then 94,000–98,000 → 128,000–135,000 at 100,000
 * with the read-ahead). A window this large is only read from a backlog or a sustained 100,000
 * rows/s; it holds ≈ 20 MB more of the worker's memory at its peak than 50,000.
 */
export const FOLD_MAX_ROWS_POSTGRES = 100_000;

/** The default window of {@link foldQueryLog} for `handle`'s dialect. */
function defaultMaxRows(handle: DatabaseHandle): number {
  return handle.dialect === 'postgres' ? FOLD_MAX_ROWS_POSTGRES : FOLD_MAX_ROWS;
}

/** What one {@link foldQueryLog} call did. */
export interface FoldResult {
  /** Rows folded (0: nothing past the watermark, or another fold moved it meanwhile). */
  rows: number;
  /** The watermark after the call: the highest `query_log.id` folded. */
  lastId: number;
}

/** The columns the fold reads, in {@link FoldRow}'s names (SQLite gives integers as numbers). */
const FOLD_COLUMNS =
  'id, ts, customer_id, location_id, policy_id, client_ip, qname, action, categories, device_id, user_name, group_id';
/** The same on PostgreSQL: `id` and `ts` are bigint, which node-postgres gives as text; float8 comes as a number. */
const FOLD_COLUMNS_POSTGRES =
  'id::float8 as id, ts::float8 as ts, customer_id, location_id, policy_id, client_ip, qname, action, categories, device_id, user_name, group_id';

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
  watermark: SqliteStatement;
  read: SqliteStatement;
  advance: SqliteStatement;
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
    st = {
      watermark: db.prepare('select last_id from query_log_fold where id = 1'),
      read: db.prepare(`select ${FOLD_COLUMNS} from query_log where id > ? order by id limit ?`),
      advance: db.prepare('update query_log_fold set last_id = ?, folded_at = ? where id = 1 and last_id = ?'),
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

/** Runs `st` over `rows` ({@link runMultiRow}: {@link SQLITE_UPSERT_ROWS} rows a statement, the tail one by one). */
function runMany<T>(st: ManyAndOne, ncols: number, rows: readonly T[], put: (p: unknown[], at: number, r: T) => void) {
  runMultiRow(st.many, st.one, SQLITE_UPSERT_ROWS, ncols, rows, put);
}

/**
 * SQLite, synchronous (inside the caller's transaction): the roll-up upserts, per customer and per
 * MSP, through prepared multi-row upserts. Each table's keys must be unique within `d` (as
 * `RollupBuffer.take` gives them).
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

/** A read row with its id. */
type ReadRow = FoldRow & { id: number };

/** Folds `rows` (read in id order): the deltas and the last id. */
function foldRows(rows: readonly ReadRow[]): { deltas: RollupDeltas; lastId: number } {
  return { deltas: foldRollups(rows), lastId: rows[rows.length - 1]!.id };
}

/**
 * PostgreSQL: the highest `query_log.id` below which every id is final — the sequence's value read
 * while holding {@link QUERY_LOG_WRITE_LOCK} exclusively (so no insert is in flight), 0 before the
 * first row.
 */
async function finalIdPostgres(handle: DatabaseHandle): Promise<number> {
  return handle.db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(${QUERY_LOG_WRITE_LOCK.classId}, ${QUERY_LOG_WRITE_LOCK.objectId})`.execute(
      trx,
    );
    const r = await sql<{ last_value: string; is_called: boolean }>`
      select last_value, is_called from query_log_id_seq`.execute(trx);
    const row = r.rows[0];
    return row === undefined || !row.is_called ? 0 : Number(row.last_value);
  });
}

/**
 * Folds the next rows past the watermark — at most `maxRows` (default {@link FOLD_MAX_ROWS}, on
 * PostgreSQL {@link FOLD_MAX_ROWS_POSTGRES}) — into the hourly roll-ups and moves the watermark, in
 * one transaction (see the module's note). Returns the rows folded and the watermark; 0 rows when
 * none wait, or on PostgreSQL when another fold moved the watermark between this call's read and
 * its write (that fold counted them). Safe to call from several workers at once. Rejects on a
 * database error: nothing of the call is kept, the next call folds the same rows.
 * @param now the `folded_at` stamp, epoch ms
 */
export async function foldQueryLog(
  handle: DatabaseHandle,
  opts: { maxRows?: number; now?: () => number } = {},
): Promise<FoldResult> {
  const maxRows = Math.max(1, opts.maxRows ?? defaultMaxRows(handle));
  const now = opts.now ?? Date.now;
  const lite = handle.sqlite;
  if (handle.dialect === 'sqlite' && lite !== undefined) {
    return handle.db.connection().execute(async () => {
      const st = statementsOf(lite);
      // IMMEDIATE: take the write lock first, so a writer cannot slip in between this read and the upserts.
      return lite
        .transaction((): FoldResult => {
          const from = Number((st.watermark.get([]) as { last_id: number } | undefined)?.last_id ?? 0);
          const rows = st.read.all([from, maxRows]) as ReadRow[];
          if (rows.length === 0) return { rows: 0, lastId: from };
          const { deltas, lastId } = foldRows(rows);
          applyRollupsSqlite(st, deltas);
          st.advance.run([lastId, now(), from]);
          return { rows: rows.length, lastId };
        })
        .immediate();
    });
  }
  if (handle.dialect === 'postgres') {
    const w = await readWindowPostgres(handle, await watermarkPostgres(handle), maxRows);
    if (w.rows === 0) return { rows: 0, lastId: w.from };
    if (await applyWindowPostgres(handle, w, now)) return { rows: w.rows, lastId: w.lastId };
    return { rows: 0, lastId: await watermarkPostgres(handle) };
  }
  // A SQLite handle without its raw connection: the same fold through Kysely.
  return handle.db.transaction().execute(async (trx) => {
    const mark = await sql<{ last_id: number }>`select last_id from query_log_fold where id = 1`.execute(trx);
    const from = Number(mark.rows[0]?.last_id ?? 0);
    const read = await sql<ReadRow>`select ${sql.raw(FOLD_COLUMNS)} from query_log
      where id > ${from} order by id limit ${maxRows}`.execute(trx);
    if (read.rows.length === 0) return { rows: 0, lastId: from };
    const { deltas, lastId } = foldRows(read.rows);
    await applyRollups(trx, deltas, handle.dialect);
    await trx
      .updateTable('query_log_fold')
      .set({ last_id: lastId, folded_at: now() })
      .where('id', '=', 1)
      .where('last_id', '=', from)
      .execute();
    return { rows: read.rows.length, lastId };
  });
}

/**
 * A window of the log read and folded ahead of the transaction that applies it (PostgreSQL): the
 * rows after `from`, in id order, up to the sequence's final value ({@link finalIdPostgres}).
 */
interface ReadWindow {
  /** The watermark the window starts after. */
  readonly from: number;
  /** Rows read (0: none waits). */
  readonly rows: number;
  /** The highest id read; `from` when none. */
  readonly lastId: number;
  readonly deltas: RollupDeltas;
}

/** The watermark as it is committed now (PostgreSQL). */
async function watermarkPostgres(handle: DatabaseHandle): Promise<number> {
  const r = await sql<{ last_id: string }>`select last_id from query_log_fold where id = 1`.execute(handle.db);
  return Number(r.rows[0]?.last_id ?? 0);
}

/**
 * PostgreSQL: reads at most `maxRows` rows after `from` whose ids are final and folds them, outside
 * any transaction (the rows are committed and never change); {@link applyWindowPostgres} then
 * writes the window only if the watermark is still at `from`.
 */
async function readWindowPostgres(handle: DatabaseHandle, from: number, maxRows: number): Promise<ReadWindow> {
  const final = await finalIdPostgres(handle);
  const none = { from, rows: 0, lastId: from, deltas: { hourly: [], top: [] } };
  if (final <= from) return none;
  const read = await sql<ReadRow>`select ${sql.raw(FOLD_COLUMNS_POSTGRES)} from query_log
    where id > ${from} and id <= ${final} order by id limit ${maxRows}`.execute(handle.db);
  if (read.rows.length === 0) return none;
  const { deltas, lastId } = foldRows(read.rows);
  return { from, rows: read.rows.length, lastId, deltas };
}

/**
 * PostgreSQL: in one transaction, with the watermark row locked `for update`, adds the deltas of
 * window `w` to the roll-ups and moves the watermark to its last id — if the watermark is still
 * where `w` starts. Returns false, having written nothing, when another fold moved it meanwhile.
 * Rejects on a database error, having kept nothing.
 */
async function applyWindowPostgres(handle: DatabaseHandle, w: ReadWindow, now: () => number): Promise<boolean> {
  return handle.db.transaction().execute(async (trx) => {
    const mark = await sql<{ last_id: string }>`select last_id from query_log_fold where id = 1 for update`.execute(
      trx,
    );
    if (Number(mark.rows[0]?.last_id ?? 0) !== w.from) return false;
    await applyRollups(trx, w.deltas, 'postgres');
    await trx
      .updateTable('query_log_fold')
      .set({ last_id: w.lastId, folded_at: now() })
      .where('id', '=', 1)
      .where('last_id', '=', w.from)
      .execute();
    return true;
  });
}

/**
 * PostgreSQL: folds windows of `maxRows` until fewer wait, `stop` returns true or `maxWindows` were
 * applied, reading and folding each next window while the previous one's transaction runs on the
 * server — the read and the fold here (≈ 0.2–0.3 s of a 50,000-row window) overlap the upserts
 * there (0.4–1.8 s for 50,000 rows) instead of following them (bench/README.md "Ingest"). A window read ahead is
 * applied only if the watermark is still where it starts; when another fold moved it, the pass
 * reads again from the watermark. A window read ahead and not applied (an error, `stop`) is
 * dropped: its rows wait for the next pass. Returns the rows folded.
 */
async function foldPassPostgres(
  handle: DatabaseHandle,
  maxRows: number,
  now: () => number,
  stop: () => boolean = () => false,
  maxWindows = Number.POSITIVE_INFINITY,
): Promise<number> {
  let total = 0;
  let next: Promise<ReadWindow> | null = readWindowPostgres(handle, await watermarkPostgres(handle), maxRows);
  try {
    for (let applied = 0; next !== null && applied < maxWindows && !stop(); ) {
      const w: ReadWindow = await next;
      next = null;
      if (w.rows === 0) break;
      if (w.rows === maxRows) next = readWindowPostgres(handle, w.lastId, maxRows);
      if (await applyWindowPostgres(handle, w, now)) {
        total += w.rows;
        applied++;
        continue;
      }
      // Another fold moved the watermark: what was read ahead may hold its rows.
      next?.catch(() => undefined);
      next = readWindowPostgres(handle, await watermarkPostgres(handle), maxRows);
    }
  } finally {
    // Not awaited: an error of a read still running is of no use once the pass has ended.
    next?.catch(() => undefined);
  }
  return total;
}

/**
 * Folds until no row waits (at most `maxCalls` transactions of `maxRows` rows, default the dialect's
 * window: {@link FOLD_MAX_ROWS}, {@link FOLD_MAX_ROWS_POSTGRES}); returns the rows folded. On
 * PostgreSQL each next window is read while the previous one is written ({@link foldPassPostgres}).
 * For tests and tools that read the roll-ups right after writing rows.
 */
export async function foldQueryLogAll(
  handle: DatabaseHandle,
  opts: { maxCalls?: number; maxRows?: number } = {},
): Promise<number> {
  const maxCalls = opts.maxCalls ?? 10_000;
  const maxRows = Math.max(1, opts.maxRows ?? defaultMaxRows(handle));
  if (handle.dialect === 'postgres') return foldPassPostgres(handle, maxRows, Date.now, undefined, maxCalls);
  let total = 0;
  for (let i = 0; i < maxCalls; i++) {
    const r = await foldQueryLog(handle, { maxRows });
    total += r.rows;
    if (r.rows === 0) break;
  }
  return total;
}

/**
 * The epoch ms before which every logged query is folded: the `ts` of the first row past the
 * watermark, or `now` when none waits. Jobs that summarize ended hours and days (rollups/daily.ts)
 * wait for it, so a backlog is never compacted half-counted.
 */
export async function foldedThrough(handle: DatabaseHandle, now: number): Promise<number> {
  const r = await sql<{ ts: number | string }>`select q.ts from query_log q
    where q.id > (select last_id from query_log_fold where id = 1) order by q.id limit 1`.execute(handle.db);
  const first = r.rows[0];
  return first === undefined ? now : Math.min(now, Number(first.ts));
}

/** The worker's fold loop (see {@link startQueryLogFolder}). */
export interface QueryLogFolder {
  /** Folds everything waiting now (after the pass running, if any); resolves with the rows folded. */
  foldNow(): Promise<number>;
  /** Stops the timer and waits for the pass running now. */
  close(): Promise<void>;
}

/** The fold loop's log lines (pino's shape). */
export interface FolderLog {
  warn(obj: object, msg: string): void;
}

/**
 * Starts folding the query log every `intervalMs` (default 1,000 ms: dashboards trail the log by about
 * that): each pass folds transactions of the default window until none waits, yielding to the
 * event loop between them (the API may share this thread). A failed pass is logged and retried at
 * the next tick; nothing is lost (the watermark did not move).
 */
export function startQueryLogFolder(
  handle: DatabaseHandle,
  opts: { intervalMs?: number; log?: FolderLog; now?: () => number } = {},
): QueryLogFolder {
  let running: Promise<number> | null = null;
  let closed = false;
  let failing = false;
  const pass = async (): Promise<number> => {
    if (handle.dialect === 'postgres')
      return foldPassPostgres(handle, FOLD_MAX_ROWS_POSTGRES, opts.now ?? Date.now, () => closed);
    let total = 0;
    while (!closed) {
      const r = await foldQueryLog(handle, opts.now ? { now: opts.now } : {});
      total += r.rows;
      if (r.rows < defaultMaxRows(handle)) break;
      await new Promise((resolve) => setImmediate(resolve));
    }
    return total;
  };
  const start = (): Promise<number> => {
    if (running !== null) return running;
    running = pass()
      .then(
        (n) => {
          failing = false;
          return n;
        },
        (err: unknown) => {
          // Log once per run of failures (a database down for minutes is one line, not sixty).
          // Another process's long write (an import) is expected contention: one line, no stack.
          if (!failing && isDatabaseBusy(err)) {
            opts.log?.warn(
              { code: 'SQLITE_BUSY' },
              'query-log fold: the database is busy with another writer; retrying',
            );
          } else if (!failing) opts.log?.warn({ err }, 'query-log fold failed; retrying');
          failing = true;
          return 0;
        },
      )
      .finally(() => {
        running = null;
      });
    return running;
  };
  const timer = setInterval(() => void start(), opts.intervalMs ?? 1000);
  timer.unref();
  return {
    foldNow: async () => {
      if (running !== null) await running;
      return start();
    },
    close: async () => {
      closed = true;
      clearInterval(timer);
      if (running !== null) await running;
    },
  };
}
