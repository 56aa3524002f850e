import type { DatabaseHandle, OpenDatabaseOptions, QueryLogTable } from '@cordon/db';
import type { Selectable } from 'kysely';
import type { Logger } from 'pino';
import { applyRollups, foldRollups, RollupBuffer } from './rollup.ts';

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

/** Rows per raw INSERT: 15 columns × 1000 stays under both dialects' bind-parameter limits. */
const RAW_CHUNK = 1000;

/**
 * Inserts `rows` into `query_log` (multi-row INSERTs of at most 1000) and adds them to the hourly roll-ups
 * (querylog/rollup.ts), in one transaction: the dashboards' counts never disagree with the log.
 * Rejects on a database error (nothing of the batch is kept).
 */
export async function insertQueryLogRows(handle: DatabaseHandle, rows: readonly QueryLogRow[]): Promise<void> {
  if (rows.length === 0) return;
  const deltas = foldRollups(rows);
  await handle.db.transaction().execute(async (trx) => {
    for (let i = 0; i < rows.length; i += RAW_CHUNK) {
      await trx
        .insertInto('query_log')
        .values(rows.slice(i, i + RAW_CHUNK) as QueryLogRow[])
        .execute();
    }
    await applyRollups(trx, deltas);
  });
}

/**
 * The writers' insert path (docs/architecture.md "Statistics"): inserts `rows` into `query_log` at
 * once and adds them to `rollups`, whose deltas are written (one transaction) when due; call
 * {@link flushRollups} on flush and close. Rejects on a database error.
 */
export async function insertQueryLogBatch(
  handle: DatabaseHandle,
  rows: readonly QueryLogRow[],
  rollups: RollupBuffer,
): Promise<void> {
  if (rows.length === 0) return;
  for (let i = 0; i < rows.length; i += RAW_CHUNK) {
    await handle.db
      .insertInto('query_log')
      .values(rows.slice(i, i + RAW_CHUNK) as QueryLogRow[])
      .execute();
  }
  rollups.add(rows);
  if (rollups.due()) await flushRollups(handle, rollups);
}

/** Writes the roll-up deltas `rollups` holds, in one transaction. Rejects on a database error (the deltas are lost). */
export async function flushRollups(handle: DatabaseHandle, rollups: RollupBuffer): Promise<void> {
  if (!rollups.pending) return;
  const deltas = rollups.take();
  await handle.db.transaction().execute((trx) => applyRollups(trx, deltas));
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
