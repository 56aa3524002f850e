import { mkdirSync } from 'node:fs';
import type { Worker } from 'node:worker_threads';
import type { DatabaseHandle, OpenDatabaseOptions } from '@cordon/db';
import type { Logger } from 'pino';
import { startModuleWorker } from '../threads.ts';
import { BatchBuilder, type FromWriter, type ToWriter } from './batch.ts';
import { claimSpoolDir, type RowsMessage, releaseSpoolDir, SpoolAppender } from './spool.ts';
import type { MspStreamsOptions, StreamTarget } from './streams/targets.ts';
import {
  type QueryLogOptions,
  type QueryLogRow,
  type QueryLogSink,
  type QueryLogStats,
  QueryLogWriter,
} from './writer.ts';

/**
 * File name of the writer thread's entry when the resolver runs as a bundle: the bundler must emit
 * `querylog/worker.ts` under this name next to the bundle (bench/resolver-dnsperf.sh does). From
 * TypeScript sources (tsx, vitest) the `.ts` entry is loaded through tsx's ESM hooks instead.
 */
export const QUERY_LOG_WORKER_BUNDLE_NAME = 'querylog-worker.mjs';

/**
 * The query-log sink for a resolver (docs/architecture.md "Data plane", docs/contributing.md "Conventions" 7): a {@link QueryLogWorkerWriter}
 * when a writer thread can open its own connection (see {@link QueryLogOptions.connection}) and
 * its entry can be found, else a {@link QueryLogWriter} on the resolving thread (logged at warn
 * for a SQLite file or PostgreSQL, where a worker was expected). Never throws.
 */
export function openQueryLog(handle: DatabaseHandle, logger: Logger, opts: QueryLogOptions = {}): QueryLogSink {
  if (opts.worker === false) return inline(handle, logger, opts);
  const connection =
    opts.connection ??
    (handle.dialect === 'sqlite' && handle.location !== ':memory:' ? { sqlitePath: handle.location } : null);
  if (connection === null) {
    if (handle.dialect === 'postgres') {
      logger.warn('query log: no connection options for a writer thread; writing on the resolving thread');
    }
    return inline(handle, logger, opts);
  }
  try {
    return new QueryLogWorkerWriter(connection, logger, opts);
  } catch (err) {
    logger.warn({ err }, 'query log: cannot start the writer thread; writing on the resolving thread');
    return inline(handle, logger, opts);
  }
}

/** A {@link QueryLogWriter}; log streams need the writer thread (docs/decisions.md "Query-log streaming"): none here. */
function inline(handle: DatabaseHandle, logger: Logger, opts: QueryLogOptions): QueryLogWriter {
  if ((opts.streams?.length ?? 0) > 0) logger.warn('query log: no writer thread; the log streams are off');
  return new QueryLogWriter(handle, logger, opts);
}

/** Starts the writer thread (see {@link startModuleWorker}). @throws when its entry cannot be found */
function startWorker(
  connection: OpenDatabaseOptions,
  spool: { dir: string; run: string } | null,
  idle: boolean,
  streams: readonly StreamTarget[],
  mspStreams: MspStreamsOptions | undefined,
): Worker {
  return startModuleWorker(new URL('./worker.ts', import.meta.url), QUERY_LOG_WORKER_BUNDLE_NAME, {
    workerData: { connection, spool, idle, streams, mspStreams },
    resourceLimits: { maxYoungGenerationSizeMb: WRITER_YOUNG_GENERATION_MB },
  });
}

/**
 * The writer thread's young generation, MB (V8's default lets it grow to 48). The thread's garbage
 * is each batch's decoded rows, dead once inserted; with the default its isolate kept ≈ 10 MB more
 * resident after traffic, for the same ingest rate (bench/README.md "Resolver memory", round 6).
 */
const WRITER_YOUNG_GENERATION_MB = 4;

/** Default {@link QueryLogOptions.maxSpoolBytes}: 1 GiB ≈ 7 million rows. */
export const DEFAULT_MAX_SPOOL_BYTES = 1 << 30;

/**
 * Query-log writes off the resolving thread (docs/architecture.md "Data plane", docs/contributing.md "Conventions" 7). `push` copies the row
 * into the current batch's columns (querylog/batch.ts: a `Float64Array` and a flat string
 * array); a full batch (`batchSize` rows), or any rows every `flushMs`, is posted to the writer
 * thread with its `Float64Array` transferred, and the thread INSERTs it on its own connection. The
 * thread waits for the addon's idle gate before each transaction (when the batched-UDP addon is
 * built and `idleWriter` is not false): answering first, writing when a core is free, and never
 * holding a lock while starved (docs/decisions.md "Query-log spool", "Query-log writes wait for an
 * idle core").
 *
 * Bounded: rows buffered plus rows posted and not yet acknowledged never exceed `maxBuffer`. Beyond
 * it, with a `spoolDir`, each further batch is appended to a spool file and the thread writes it in
 * its turn (querylog/spool.ts; order kept); without one, or once the spool holds `maxSpoolBytes` or
 * cannot be written, rows are dropped and counted (a slow or stuck database costs log rows, never
 * answers or unbounded memory). A batch the database rejects is counted in `failedBatches` and
 * its rows in `dropped`. If the thread dies, everything unacknowledged in memory is counted as
 * dropped (the spool stays for the next start) and later rows are dropped too (logged at error).
 *
 * `flush()` resolves once everything pushed before it is written (or counted lost); `close()`
 * flushes, closes the thread's connection and ends the thread — so a resolver closed on SIGTERM
 * loses no row it acknowledged.
 */
export class QueryLogWorkerWriter implements QueryLogSink {
  readonly stats: QueryLogStats = (() => {
    const writer = this;
    return {
      written: 0,
      dropped: 0,
      failedBatches: 0,
      spooled: 0,
      get queued() {
        return writer.batch.count + writer.inFlight;
      },
      get spoolBytes() {
        return writer.spool?.pendingBytes ?? 0;
      },
    };
  })();
  private readonly worker: Worker;
  private readonly batchSize: number;
  private readonly maxBuffer: number;
  private readonly maxSpoolBytes: number;
  /** Appends batches beyond `maxBuffer` to the spool; null without a spool directory. */
  private readonly spool: SpoolAppender | null;
  /** When the last spool failure was logged (ms), to log one a minute at most. */
  private spoolFailureLoggedAt = 0;
  private readonly timer: NodeJS.Timeout;
  private batch: BatchBuilder;
  /** Rows posted and not yet acknowledged. */
  private inFlight = 0;
  private seq = 0;
  private readonly flushWaiters = new Map<number, () => void>();
  private closeWaiter: (() => void) | null = null;
  private closing: Promise<void> | null = null;
  private dead = false;

  /** @throws when the writer thread cannot be started (see {@link openQueryLog} for the fallback) */
  constructor(
    connection: OpenDatabaseOptions,
    private readonly logger: Logger,
    opts: QueryLogOptions = {},
  ) {
    this.batchSize = Math.max(1, Math.min(opts.batchSize ?? 1000, 1000));
    this.maxBuffer = Math.max(this.batchSize, opts.maxBuffer ?? 50_000);
    this.maxSpoolBytes = opts.maxSpoolBytes ?? DEFAULT_MAX_SPOOL_BYTES;
    this.batch = new BatchBuilder(this.batchSize);
    this.spool = openSpool(opts.spoolDir ?? null, logger);
    this.worker = startWorker(
      connection,
      this.spool === null ? null : { dir: this.spool.dir, run: this.spool.run },
      opts.idleWriter ?? true,
      opts.streams ?? [],
      opts.mspStreams,
    );
    this.worker.unref();
    this.worker.on('message', (m: FromWriter) => this.onMessage(m));
    this.worker.on('error', (err) => this.logger.error({ err }, 'query-log writer thread failed'));
    this.worker.on('exit', () => this.onExit());
    this.timer = setInterval(() => this.post(), opts.flushMs ?? 500);
    this.timer.unref();
  }

  push(row: QueryLogRow): boolean {
    if (
      this.dead ||
      this.closing !== null ||
      (this.spool === null && this.batch.count + this.inFlight >= this.maxBuffer)
    ) {
      this.stats.dropped++;
      return false;
    }
    this.batch.add(row);
    if (this.batch.count >= this.batchSize) this.post();
    return true;
  }

  /**
   * Hands the current batch to the thread (its `Float64Array` transferred; a fresh batch replaces
   * it), or to the spool when `maxBuffer` rows are in memory already.
   */
  private post(): void {
    if (this.batch.count === 0 || this.dead) return;
    const msg = this.batch.take();
    if (this.spool !== null) {
      if (this.inFlight + msg.count > this.maxBuffer) {
        this.spill(msg);
        return;
      }
      // Back to memory: the spool file in use is complete (the thread deletes it after its frames).
      this.endSpoolFile();
    }
    this.inFlight += msg.count;
    this.worker.postMessage(msg, [msg.nums.buffer]);
  }

  /** Appends `msg` to the spool and announces it to the thread; drops it when the spool is full or fails. */
  private spill(msg: RowsMessage): void {
    const spool = this.spool!;
    if (spool.pendingBytes >= this.maxSpoolBytes) {
      this.stats.dropped += msg.count;
      this.logSpoolFailure({ spoolBytes: spool.pendingBytes }, 'query-log spool full; rows dropped');
      return;
    }
    if (spool.full) this.endSpoolFile();
    try {
      const range = spool.append(msg);
      this.worker.postMessage({ kind: 'spooled', ...range, count: msg.count } satisfies ToWriter);
      this.stats.spooled += msg.count;
    } catch (err) {
      this.stats.dropped += msg.count;
      this.logSpoolFailure({ err }, 'query-log spool cannot be written; rows dropped');
      // The file ends here: the thread deletes it after the frames announced before.
      this.endSpoolFile();
    }
  }

  private endSpoolFile(): void {
    const ended = this.spool?.end() ?? null;
    if (ended !== null) this.worker.postMessage({ kind: 'spoolEnd', file: ended } satisfies ToWriter);
  }

  private logSpoolFailure(details: object, message: string): void {
    const now = Date.now();
    if (now - this.spoolFailureLoggedAt < 60_000) return;
    this.spoolFailureLoggedAt = now;
    this.logger.error({ ...details, dir: this.spool?.dir }, message);
  }

  private onMessage(m: FromWriter): void {
    switch (m.kind) {
      case 'batch':
        if (m.source === 'memory') this.inFlight -= m.count;
        if (m.error === null) {
          this.stats.written += m.count;
        } else {
          this.stats.failedBatches++;
          this.stats.dropped += m.count;
          this.logger.error({ err: m.error, rows: m.count }, 'query log batch failed; rows dropped');
        }
        return;
      case 'spoolDeleted':
        if (this.spool !== null) this.spool.pendingBytes = Math.max(0, this.spool.pendingBytes - m.bytes);
        return;
      case 'flushed':
        this.flushWaiters.get(m.seq)?.();
        this.flushWaiters.delete(m.seq);
        return;
      case 'closed':
        this.closeWaiter?.();
        return;
      case 'warning':
        if (m.level === 'info') this.logger.info(m.message);
        else this.logger.warn(m.message);
        return;
      case 'streams':
        this.stats.streams = m.stats;
        return;
    }
  }

  private onExit(): void {
    if (!this.dead && this.closeWaiter === null) {
      this.logger.error({ lost: this.inFlight + this.batch.count }, 'query-log writer thread exited; rows dropped');
    }
    this.dead = true;
    this.stats.dropped += this.inFlight + this.batch.count;
    this.inFlight = 0;
    this.batch.take();
    for (const done of this.flushWaiters.values()) done();
    this.flushWaiters.clear();
    this.closeWaiter?.();
  }

  flush(): Promise<void> {
    if (this.dead) return Promise.resolve();
    this.post();
    this.endSpoolFile();
    const seq = ++this.seq;
    return new Promise((resolve) => {
      this.flushWaiters.set(seq, resolve);
      this.worker.postMessage({ kind: 'flush', seq } satisfies ToWriter);
    });
  }

  close(): Promise<void> {
    if (this.closing) return this.closing;
    clearInterval(this.timer);
    this.post();
    if (!this.dead) this.endSpoolFile();
    this.closing = this.dead
      ? Promise.resolve()
      : new Promise<void>((resolve) => {
          this.closeWaiter = resolve;
          // Keep the process alive until the thread has written everything (e.g. during SIGTERM).
          this.worker.ref();
          this.worker.postMessage({ kind: 'close' } satisfies ToWriter);
        }).then(async () => {
          this.dead = true;
          await this.worker.terminate();
          // Everything spooled is written and its files deleted: another resolver may use the directory.
          if (this.spool !== null) releaseSpoolDir(this.spool.dir);
        });
    return this.closing;
  }
}

/**
 * The spool appender for `dir` (created when missing), or null without a directory or when it
 * cannot be created (logged: rows beyond `maxBuffer` are then dropped, as without a spool).
 */
function openSpool(dir: string | null, logger: Logger): SpoolAppender | null {
  if (dir === null) return null;
  try {
    mkdirSync(dir, { recursive: true });
    const { owner } = claimSpoolDir(dir);
    if (owner !== null) {
      logger.error(
        { dir, owner },
        'query-log spool directory is in use by another running resolver; rows beyond the buffer are dropped (give each resolver its own --data-dir)',
      );
      return null;
    }
  } catch (err) {
    logger.error({ err, dir }, 'query-log spool directory cannot be used; rows beyond the buffer are dropped');
    return null;
  }
  // A new prefix each start: files under other prefixes are an earlier run's, imported first.
  return new SpoolAppender(dir, `${Date.now().toString(36)}-${process.pid}-${Math.random().toString(36).slice(2, 8)}`);
}
