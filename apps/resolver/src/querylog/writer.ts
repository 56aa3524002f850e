import { createRequire } from 'node:module';
import { type DatabaseHandle, type OpenDatabaseOptions, QUERY_LOG_WRITE_LOCK } from '@cordon/db';
import { sql } from 'kysely';
import type * as PgCopyStreams from 'pg-copy-streams';
import type { Logger } from 'pino';
import type { QueryLogRow } from './row.ts';
import { COLUMNS, insertQueryLogSqlite, SQLITE_ROWS, type WritePace } from './sqlite-raw.ts';
import type { StreamStats } from './streams/sinks.ts';
import type { MspStreamsOptions, StreamTarget } from './streams/targets.ts';

export type { QueryLogRow } from './row.ts';
export type { WritePace } from './sqlite-raw.ts';

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

/** Totals since the sink started, in rows (batches for `failedBatches`). */
export interface QueryLogStats {
  written: number;
  dropped: number;
  failedBatches: number;
  /** Rows appended to the spool because `maxBuffer` rows were in memory (querylog/spool.ts). */
  spooled: number;
  /**
   * Rows in memory now and not yet written: the open batch plus those handed to the writer (a
   * level, not a total; at most `maxBuffer`). Read at the time of the snapshot.
   */
  readonly queued: number;
  /** Bytes of spool files not yet written to the database now (a level; 0 without a spool). */
  readonly spoolBytes: number;
  /** Each log stream's counters (`QueryLogOptions.streams`), as the writer thread last reported them. */
  streams?: StreamStats[];
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
  /**
   * Where the writer thread's backlog beyond `maxBuffer` goes instead of being dropped
   * (querylog/spool.ts, docs/decisions.md "Query-log spool"); one directory per resolving thread.
   * Default none: rows beyond `maxBuffer` are dropped.
   */
  spoolDir?: string | null;
  /** Bytes the spool holds at most; beyond it rows are dropped. Default 1 GiB (≈ 7 million rows). */
  maxSpoolBytes?: number;
  /**
   * Start each of the writer thread's transactions only once a core was free, by the addon's idle
   * gate (a thread at `SCHED_IDLE`; needs the batched-UDP addon, otherwise ignored). Default true:
   * answering keeps the core, the log is written when one is free, and a transaction once started
   * runs at normal priority (docs/decisions.md "Query-log writes wait for an idle core").
   */
  idleWriter?: boolean;
  /**
   * Where the writer thread streams every row it receives (docs/operations.md "Query-log
   * streaming"): dnstap, syslog, NDJSON. Needs the writer thread; without one, none (logged).
   */
  streams?: readonly StreamTarget[];
  /**
   * What the writer thread needs for the MSPs' destinations, which it reads from the database
   * itself (docs/operations.md "Query-log streaming" "Per-MSP destinations").
   */
  mspStreams?: MspStreamsOptions;
}

/** PostgreSQL, inside the insert's transaction: waits for the fold's exclusive hold of the write lock, then holds it shared. */
const SHARE_WRITE_LOCK = `select pg_advisory_xact_lock_shared(${QUERY_LOG_WRITE_LOCK.classId}, ${QUERY_LOG_WRITE_LOCK.objectId})`;

/**
 * PostgreSQL inside a transaction: the raw rows in one INSERT … SELECT FROM unnest(column arrays): 19
 * parameters whatever the row count, no per-row statement text. Holds the write lock shared.
 */
async function insertRawPostgres(db: DatabaseHandle['db'], rows: readonly QueryLogRow[]): Promise<void> {
  await sql.raw(SHARE_WRITE_LOCK).execute(db);
  const col = <T>(f: (r: QueryLogRow) => T): T[] => rows.map(f);
  await sql`insert into query_log (${sql.raw(COLUMNS)}) select * from unnest(
    ${col((r) => r.ts)}::bigint[], ${col((r) => r.customer_id)}::int[], ${col((r) => r.location_id)}::int[],
    ${col((r) => r.policy_id)}::int[], ${col((r) => r.client_ip)}::text[], ${col((r) => r.qname)}::text[],
    ${col((r) => r.qtype)}::text[], ${col((r) => r.protocol)}::text[], ${col((r) => r.action)}::text[],
    ${col((r) => r.reason)}::text[], ${col((r) => r.categories)}::text[], ${col((r) => r.rcode)}::text[],
    ${col((r) => r.answer_source)}::text[], ${col((r) => r.latency_us)}::int[], ${col((r) => r.device_id ?? null)}::int[],
    ${col((r) => r.user_id ?? null)}::int[], ${col((r) => r.user_name ?? '')}::text[], ${col((r) => r.group_id ?? null)}::int[],
    ${col((r) => r.matched_name ?? '')}::text[])`.execute(db);
}

const requireHere = createRequire(import.meta.url);

/** pg-copy-streams, loaded on first use: only PostgreSQL needs it (see `loadPg` of @cordon/db). */
function loadPgCopyStreams(): typeof PgCopyStreams {
  return requireHere('pg-copy-streams') as typeof PgCopyStreams;
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
 * through pg-copy-streams) on one pooled connection, in a transaction holding the write lock shared
 * (`QUERY_LOG_WRITE_LOCK`: the fold reads only ids no insert can still commit below). All or nothing;
 * measured faster than the `unnest` INSERT (bench/README.md "Traffic"). A connection that failed is
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
      `${copyNum(r.device_id)}\t${copyNum(r.user_id)}\t${copyText(r.user_name ?? '')}\t${copyNum(r.group_id)}\t` +
      `${copyText(r.matched_name ?? '')}\n`;
  }
  const client = await pool.connect();
  try {
    await client.query(`begin; ${SHARE_WRITE_LOCK}`);
    // One chunk, ended at once: no Readable and pipeline per batch (bench/README.md "Traffic").
    const copy = client.query(loadPgCopyStreams().from(`copy query_log (${COLUMNS}) from stdin`));
    await new Promise<void>((resolve, reject) => {
      copy.once('finish', resolve);
      // `on`, not `once`: a connection the server ends mid-COPY may report more than one error, and an
      // `error` event nobody listens to ends the process (docs/operations.md "When the database goes away").
      copy.on('error', reject);
      copy.end(Buffer.from(lines.join('')));
    });
    await client.query('commit');
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
 * The writers' insert (docs/architecture.md "Statistics"): appends `rows` to `query_log` in one
 * transaction — SQLite prepared multi-row statements, PostgreSQL one COPY (or one INSERT from `unnest`
 * of column arrays without a pool). The worker's fold (`rollups.foldQueryLog` of @cordon/core) adds them
 * to the roll-ups. Rejects on a database error (nothing of the batch is kept).
 */
export async function insertQueryLogRaw(
  handle: DatabaseHandle,
  rows: readonly QueryLogRow[],
  pace?: WritePace,
): Promise<void> {
  if (rows.length === 0) return;
  const lite = handle.sqlite;
  if (handle.dialect === 'sqlite' && lite !== undefined) {
    // The connection held exclusively: a Kysely query on the same handle waits for the insert.
    await handle.db.connection().execute(() => insertQueryLogSqlite(lite, rows, pace));
  } else if (handle.dialect === 'postgres') {
    await (handle.pgPool
      ? copyRawPostgres(handle.pgPool, rows)
      : handle.db.transaction().execute((trx) => insertRawPostgres(trx, rows)));
  } else {
    await handle.db.transaction().execute((trx) => insertRawKysely(trx, rows));
  }
}

export class NullQueryLog implements QueryLogSink {
  readonly stats: QueryLogStats = { written: 0, dropped: 0, failedBatches: 0, spooled: 0, queued: 0, spoolBytes: 0 };
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
 * rows (see {@link insertQueryLogRaw}), one flush at a time. When the buffer is full, new rows are dropped and counted — resolution never
 * waits for the database. A failed batch is logged, counted, and lost (retrying would let an
 * unreachable database grow memory without bound).
 */
export class QueryLogWriter implements QueryLogSink {
  private buffer: QueryLogRow[] = [];
  /** Rows taken from the buffer by the INSERT under way. */
  private writing = 0;
  readonly stats: QueryLogStats = (() => {
    const writer = this;
    return {
      written: 0,
      dropped: 0,
      failedBatches: 0,
      spooled: 0,
      get queued() {
        return writer.buffer.length + writer.writing;
      },
      spoolBytes: 0,
    };
  })();
  private readonly batchSize: number;
  private readonly maxBuffer: number;
  private readonly timer: NodeJS.Timeout;
  private flushing: Promise<void> | null = null;

  constructor(
    private readonly handle: DatabaseHandle,
    private readonly logger: Logger,
    opts: QueryLogOptions = {},
  ) {
    this.batchSize = Math.max(1, Math.min(opts.batchSize ?? 1000, 1000));
    this.maxBuffer = Math.max(this.batchSize, opts.maxBuffer ?? 50_000);
    this.timer = setInterval(() => void this.drainBuffered(), opts.flushMs ?? 500);
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

  /** Writes every buffered row. */
  flush(): Promise<void> {
    return this.drainBuffered();
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
      this.writing = rows.length;
      try {
        await insertQueryLogRaw(this.handle, rows);
        this.stats.written += rows.length;
      } catch (err) {
        this.stats.failedBatches++;
        this.stats.dropped += rows.length;
        this.logger.error({ err, rows: rows.length }, 'query log batch failed; rows dropped');
      } finally {
        this.writing = 0;
      }
    }
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}
