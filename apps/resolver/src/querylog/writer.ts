import type { DatabaseHandle, OpenDatabaseOptions, QueryLogTable } from '@cordon/db';
import type { Selectable } from 'kysely';
import type { Logger } from 'pino';

/** One query-log row as inserted (docs/architecture.md "Statistics"): the `query_log` table of @cordon/db but its id. */
export type QueryLogRow = Omit<Selectable<QueryLogTable>, 'id'>;

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

/**
 * Inserts `rows` (at most 1000: 15 columns × 1000 stays under both dialects' bind-parameter
 * limits) into `query_log` as one multi-row INSERT. Rejects on a database error.
 */
export async function insertQueryLogRows(handle: DatabaseHandle, rows: readonly QueryLogRow[]): Promise<void> {
  await handle.db
    .insertInto('query_log')
    .values(rows as QueryLogRow[])
    .execute();
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
 * buffer flushed every `flushMs` or as soon as `batchSize` rows wait, multi-row INSERTs of at most
 * `batchSize` rows (15 columns × 1000 rows stays under both dialects' bind-parameter limits), one
 * flush at a time. When the buffer is full, new rows are dropped and counted — resolution never
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

  constructor(
    private readonly handle: DatabaseHandle,
    private readonly logger: Logger,
    opts: QueryLogOptions = {},
  ) {
    this.batchSize = Math.max(1, Math.min(opts.batchSize ?? 1000, 1000));
    this.maxBuffer = Math.max(this.batchSize, opts.maxBuffer ?? 50_000);
    this.timer = setInterval(() => void this.flush(), opts.flushMs ?? 500);
    this.timer.unref();
  }

  push(row: QueryLogRow): boolean {
    if (this.buffer.length >= this.maxBuffer) {
      this.stats.dropped++;
      return false;
    }
    this.buffer.push(row);
    if (this.buffer.length >= this.batchSize && !this.flushing) void this.flush();
    return true;
  }

  flush(): Promise<void> {
    if (this.flushing) return this.flushing.then(() => (this.buffer.length > 0 ? this.flush() : undefined));
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
        await insertQueryLogRows(this.handle, rows);
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
