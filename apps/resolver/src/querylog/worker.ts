/**
 * The query-log writer thread (docs/architecture.md "Data plane", docs/contributing.md "Conventions" 7): owns its own database connection
 * (`workerData.connection`, an `OpenDatabaseOptions`; SQLite WAL lets it write beside the
 * resolver's connection, PostgreSQL gets its own small pool) and inserts the batches the
 * resolving thread posts, one at a time and in order, so better-sqlite3's synchronous INSERTs
 * block this thread and never the one answering queries. Protocol: querylog/batch.ts.
 * Started by {@link QueryLogWorkerWriter} (querylog/threaded.ts); not imported anywhere else.
 */
import { rmSync, statSync, writeFileSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import type { OpenDatabaseOptions } from '@cordon/db';
import { DATA_PLANE_SQLITE_CACHE_KIB, openSqliteFile } from '@cordon/db/sqlite-file';
import { loadSchedIdle, type SchedIdleBinding } from '@cordon/udp-batch';
import { type FromWriter, readRows, type ToWriter } from './batch.ts';
import { retryReason } from './retry.ts';
import type { QueryLogRow } from './row.ts';
import { decodeFrames, leftoverSpoolFiles, type RowsMessage, readSpoolRange, SpoolAppender } from './spool.ts';
import { insertQueryLogBatchesSqlite, type WritePace } from './sqlite-raw.ts';
import type { MspStreamStatus, StreamHub } from './streams/hub.ts';
import type { MspStreamRow } from './streams/msp.ts';
import type { MspStreamsOptions, StreamTarget } from './streams/targets.ts';

if (parentPort === null) throw new Error('querylog/worker.ts runs only as a worker thread');
const port = parentPort;
/** `spool`: the spool directory and this run's file prefix (querylog/spool.ts); `idle`: wait at the idle gate. */
const { connection, spool, idle, streams, mspStreams } = workerData as {
  connection: OpenDatabaseOptions;
  spool: { dir: string; run: string } | null;
  idle: boolean;
  /** The log streams (querylog/streams/*): every row received is handed to them, before its insert. */
  streams: readonly StreamTarget[];
  /** What the MSPs' destinations need (the secret opening their sealed values, the outbound allowance). */
  mspStreams?: MspStreamsOptions;
};
const send = (m: FromWriter) => port.postMessage(m);

// Answering before logging (docs/decisions.md "Query-log spool", "Query-log writes wait for an
// idle core"): the log is written when a core has nothing else to do; the rows not written yet wait
// in memory, then in the spool. This thread keeps the process's priority and starts each transaction
// once the addon's gate thread, at `SCHED_IDLE`, has run. A transaction holds locks others wait for
// (SQLite's one write lock, which every API change takes; on PostgreSQL what the retention's
// partition drop needs), and a thread at `SCHED_IDLE` holding them could be starved by other work
// for as long as that work lasts.
/** The gate each transaction waits at, or null (not asked for, the addon not built, or dropped: {@link idleCore}). */
let idleGate: SchedIdleBinding | null = idle ? loadSchedIdle() : null;

/** This thread's connection, as the inserts need it: `rows` messages, written in order in one transaction. */
interface RawLog {
  insert(batches: readonly RowsMessage[], pace: WritePace | undefined): Promise<void>;
  /** Customer id → MSP id, for the log streams. */
  msps(): Promise<Map<number, number>>;
  /** The enabled MSP destinations (`msp_log_streams`, migration 0040), by id. */
  mspStreams(): Promise<MspStreamRow[]>;
  /** Writes destinations' delivery state to their rows, unless a row changed since (its stamp). */
  reportMspStreams(status: readonly MspStreamStatus[]): Promise<void>;
  close(): Promise<void>;
}

/** The columns of an enabled MSP destination the writer thread reads ("authorization" quoted: reserved in PostgreSQL). */
const MSP_STREAMS_SQL =
  'select id, msp_id, format, address, ca_pem, "authorization", updated_at from msp_log_streams where enabled = 1 order by id';
/** Epoch ms as the tables' ISO text, null for 0 (never). */
const isoOrNull = (ms: number) => (ms === 0 ? null : new Date(ms).toISOString());

/**
 * Opens this thread's one connection (batches are written one at a time, in order; appends need no
 * large page cache). A SQLite file goes through better-sqlite3 alone; only PostgreSQL loads Kysely,
 * pg and the COPY path, so a SQLite writer's isolate stays small (bench/README.md "Resolver memory",
 * round 7). Rejects with what the connection throws.
 */
async function openRawLog(options: OpenDatabaseOptions): Promise<RawLog> {
  if (!options.url) {
    const lite = openSqliteFile(
      options.sqlitePath ?? ':memory:',
      DATA_PLANE_SQLITE_CACHE_KIB,
      options.sqliteMaxPageCount,
    );
    return {
      // Bound from the batches' columns: no row objects to promote (bench/README.md "Resolver memory", round 8).
      insert: (batches, pace) => insertQueryLogBatchesSqlite(lite, batches, pace),
      msps: async () =>
        new Map(
          (lite.prepare('select id, msp_id from customers').all() as Array<{ id: number; msp_id: number }>).map((r) => [
            r.id,
            r.msp_id,
          ]),
        ),
      mspStreams: async () => lite.prepare(MSP_STREAMS_SQL).all() as MspStreamRow[],
      reportMspStreams: async (status) => {
        const update = lite.prepare(
          `update msp_log_streams set last_delivered_at = coalesce(?, last_delivered_at),
             last_error = coalesce(?, last_error), last_error_at = coalesce(?, last_error_at)
           where id = ? and updated_at = ?`,
        );
        for (const s of status) {
          update.run(isoOrNull(s.deliveredAt), s.errorAt ? s.error : null, isoOrNull(s.errorAt), s.id, s.stamp);
        }
      },
      close: async () => void lite.close(),
    };
  }
  const [{ openDatabase }, { insertQueryLogRaw }, { sql }] = await Promise.all([
    import('@cordon/db'),
    import('./writer.ts'),
    import('kysely'),
  ]);
  const handle = openDatabase({ pgPoolSize: 1, ...options });
  return {
    insert: (batches, pace) => {
      const rows: QueryLogRow[] = [];
      for (const b of batches) for (const r of readRows(b)) rows.push(r);
      return insertQueryLogRaw(handle, rows, pace);
    },
    msps: async () =>
      new Map(
        (await handle.db.selectFrom('customers').select(['id', 'msp_id']).execute()).map((r) => [r.id, r.msp_id]),
      ),
    mspStreams: async () => (await sql<MspStreamRow>`${sql.raw(MSP_STREAMS_SQL)}`.execute(handle.db)).rows,
    reportMspStreams: async (status) => {
      for (const s of status) {
        await handle.db
          .updateTable('msp_log_streams')
          .set((eb) => ({
            last_delivered_at: eb.fn.coalesce(eb.val(isoOrNull(s.deliveredAt)), 'last_delivered_at'),
            last_error: eb.fn.coalesce(eb.val(s.errorAt ? s.error : null), 'last_error'),
            last_error_at: eb.fn.coalesce(eb.val(isoOrNull(s.errorAt)), 'last_error_at'),
          }))
          .where('id', '=', s.id)
          .where('updated_at', '=', s.stamp)
          .execute();
      }
    },
    close: () => handle.close(),
  };
}

let handle: RawLog | null = null;
let openError: string | null = null;
try {
  handle = await openRawLog(connection);
} catch (err) {
  openError = err instanceof Error ? err.message : String(err);
}

/**
 * The log streams, or null without any (docs/decisions.md "Query-log streaming"). Loaded only when
 * configured, or once an MSP destination is enabled: the thread's static modules stay better-sqlite3
 * and a few node: ones (serve-threads.test.ts).
 */
let hub: StreamHub | null = streams.length === 0 ? null : await openHub();

async function openHub(): Promise<StreamHub> {
  return new (await import('./streams/hub.ts')).StreamHub(
    streams,
    (message) => send({ kind: 'warning', message, level: 'info' }),
    handle === null ? null : () => handle?.msps() ?? Promise.resolve(new Map()),
    streamBufferRows(process.env.CORDON_LOG_STREAM_BUFFER),
  );
}

/**
 * How often the MSPs' enabled destinations are read again, ms (docs/operations.md "Query-log
 * streaming" "Per-MSP destinations"): a periodic re-read with each row's `updated_at` as its change
 * stamp — the writer thread follows no change feed, and the table is a few rows.
 */
const MSP_STREAMS_POLL_MS = 5000;
/** Whether a failed read was logged (once until one succeeds). */
let mspReadFailed = false;
let mspPolling = false;
/** Set once a `close` arrived: no destination is opened any more. */
let mspClosed = false;

/** Reads the enabled MSP destinations, opens the streams on the first one, hands them the set, writes back their state. */
async function pollMspStreams(): Promise<void> {
  if (handle === null || mspPolling || mspClosed) return;
  mspPolling = true;
  try {
    const rows = await handle.mspStreams();
    mspReadFailed = false;
    if (mspClosed) return;
    if (rows.length > 0 && hub === null) hub = await openHub();
    hub?.setMspDestinations(rows, mspStreams ?? {});
    const status = hub?.mspStatus() ?? [];
    if (status.length > 0) await handle.reportMspStreams(status);
  } catch (err) {
    if (!mspReadFailed) {
      send({ kind: 'warning', message: `log streams: cannot read the MSPs' destinations (${(err as Error).message})` });
    }
    mspReadFailed = true;
  } finally {
    mspPolling = false;
  }
}
void pollMspStreams();
setInterval(() => void pollMspStreams(), MSP_STREAMS_POLL_MS).unref();
/**
 * Rows each log stream buffers at most (`CORDON_LOG_STREAM_BUFFER`, 10 to 1,000,000): undefined (the
 * sinks' default) when unset; anything else keeps the default and is reported.
 */
function streamBufferRows(value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  const n = Number(value);
  if (Number.isInteger(n) && n >= 10 && n <= 1_000_000) return n;
  send({
    kind: 'warning',
    message: `CORDON_LOG_STREAM_BUFFER must be a whole number from 10 to 1000000 (got "${value}")`,
  });
  return undefined;
}

/**
 * Hands a batch's rows to the streams, if any. A batch that cannot be read is the insert's to report
 * (it reads it too); here it is only not streamed: nothing of the streams may end this thread.
 */
function streamRows(m: RowsMessage): void {
  if (hub === null) return;
  try {
    hub.push(readRows(m));
  } catch {
    // Reported by the insert as a failed batch.
  }
}

/** Reports the streams' counters to the resolving thread (metrics). */
const sendStreamStats = () => {
  // The operator's streams only: the MSPs' destinations report to their rows, not to the metrics.
  if (hub !== null && streams.length > 0) send({ kind: 'streams', stats: hub.stats() });
};
setInterval(sendStreamStats, 1000).unref();

/**
 * Rows written per transaction at most when batches wait: the resolving thread posts 1,000-row batches,
 * and under load several queue up while one is written; writing them together saves a commit each
 * (the commit was a quarter of this thread's time at saturation: bench/README.md "Issue 12: hot path").
 * Behind the idle gate a transaction runs at normal priority once started; on SQLite it is 1,000
 * rows (≈ 3 ms) at most, so that it holds neither the core nor the write lock long (PostgreSQL's
 * commit waits for its WAL flush: larger transactions keep its ingest rate, bench/README.md "Ingest").
 */
const COALESCE_ROWS = idleGate !== null && !connection.url ? 1_000 : 10_000;

/**
 * How long one wait at the idle gate blocks this thread, ms, before it looks at its messages again
 * (a `close` ends the waiting: what is left is written at once).
 */
const GATE_WAIT_MS = 20;

/**
 * Resolves once a core has been free since the call (the gate thread ran: {@link idleGate}), at
 * once without a gate or when the resolver is closing. A gate that cannot work (no gate thread,
 * `SCHED_IDLE` refused) is reported once and dropped: the writes then go ahead at normal priority.
 */
async function idleCore(): Promise<void> {
  while (idleGate !== null && !closeRequested()) {
    const answer = idleGate.waitForIdleCore(GATE_WAIT_MS);
    if (answer === 1) return;
    if (answer < 0) {
      idleGate = null;
      send({ kind: 'warning', message: `query-log writer: idle gate unavailable (errno ${-answer}); normal priority` });
      return;
    }
    // Let the port deliver what arrived meanwhile (a `close`, more batches to coalesce).
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** Bytes of an earlier run's spool file read per transaction (≈ 13,000 rows). */
const LEFTOVER_CHUNK_BYTES = 2 << 20;

/** A spooled range of an earlier run (its row count unknown until read). */
type Leftover = { kind: 'leftover'; file: string; offset: number; length: number };
type Queued = ToWriter | Leftover;

/** Messages received and not handled yet, in order: an earlier run's spool files first. */
const queue: Queued[] = [];
let draining = false;
if (spool !== null) {
  for (const f of leftoverSpoolFiles(spool.dir, spool.run)) {
    queue.push({ kind: 'leftover', ...f }, { kind: 'spoolEnd', file: f.file });
  }
}

/**
 * While no other batch waits, a batch is written {@link PACE_ROWS} rows (≈ 0.3 ms) at a time with a
 * 1 ms sleep in between, so that on a core shared with the resolving thread the writer never holds it
 * long while a query waits (the p99 at a steady rate: bench/README.md "Issue 12: hot path" round 3);
 * as soon as another batch queues up the sleeps stop. Behind the idle gate the pause is a wait at the
 * gate instead ({@link PACE_GATE_MS} at most), so the transaction goes on as soon as the core is free
 * (the unpaced transaction at normal priority raised the steady p99: docs/decisions.md "Query-log
 * writes wait for an idle core"). PostgreSQL's COPY is not paced. `CORDON_QUERYLOG_PACE` sets the
 * rows per slice (`0`: off).
 */
const PACE_ROWS = paceRows(process.env.CORDON_QUERYLOG_PACE, 100);

/**
 * Behind the idle gate, how long a paced transaction waits at the gate between two slices at most,
 * ms: the resolving thread takes the core back within a slice (≈ 0.3 ms), and on a host other work
 * keeps busy a 1,000-row transaction holds its locks at most ≈ 10 × this longer.
 */
const PACE_GATE_MS = 2;

/**
 * The rows per paced slice for the environment's `value`: `fallback` when unset, else a whole number
 * from 0 (off) to 10,000; anything else keeps `fallback` and is reported to the resolving thread,
 * which logs it.
 */
function paceRows(value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (Number.isInteger(n) && n >= 0 && n <= 10_000) return n;
  send({
    kind: 'warning',
    message: `CORDON_QUERYLOG_PACE must be a whole number from 0 to 10000 (got "${value}"); using ${fallback}`,
  });
  return fallback;
}

const PACE: WritePace | undefined =
  PACE_ROWS === 0
    ? undefined
    : {
        rows: PACE_ROWS,
        between: () => {
          if (idleGate !== null) {
            idleGate.waitForIdleCore(PACE_GATE_MS);
            return Promise.resolve();
          }
          return queue.length > 0 ? Promise.resolve() : new Promise((resolve) => setTimeout(resolve, 1));
        },
      };

/** Writes the `rows` messages at the head of the queue (up to {@link COALESCE_ROWS} rows) in one transaction. */
async function writeWaitingRows(): Promise<void> {
  const batches: Array<Extract<ToWriter, { kind: 'rows' }>> = [];
  let count = 0;
  while (queue.length > 0 && queue[0]!.kind === 'rows' && (count === 0 || count + queue[0]!.count <= COALESCE_ROWS)) {
    const m = queue.shift() as Extract<ToWriter, { kind: 'rows' }>;
    batches.push(m);
    count += m.count;
  }
  await insertAndReport(() => batches, count, 'memory');
}

/**
 * Writes the spooled ranges at the head of the queue — consecutive ranges of one file, up to
 * {@link COALESCE_ROWS} rows — in one transaction, then moves the file's `.done` note past them.
 */
async function writeSpooledRows(): Promise<void> {
  const head = queue.shift() as Extract<Queued, { kind: 'spooled' | 'leftover' }>;
  const source = head.kind === 'spooled' ? 'spool' : 'leftover';
  // An earlier run's file (up to 64 MB) is read a chunk at a time.
  const range = { file: head.file, offset: head.offset, length: Math.min(head.length, LEFTOVER_CHUNK_BYTES) };
  let count = head.kind === 'spooled' ? head.count : 0;
  for (;;) {
    const next = queue[0];
    if (next?.kind !== 'spooled' || head.kind !== 'spooled' || next.file !== range.file) break;
    if (next.offset !== range.offset + range.length || count + next.count > COALESCE_ROWS) break;
    queue.shift();
    range.length += next.length;
    count += next.count;
  }
  let used = range.length;
  // Spooled rows reach the streams when read back, once (a retried insert reads them again).
  let streamed = false;
  const ok = await insertAndReport(
    () => {
      const decoded = decodeFrames(readSpoolRange(range));
      used = decoded.used;
      if (!streamed) for (const m of decoded.messages) streamRows(m);
      streamed = true;
      return decoded.messages;
    },
    count,
    source,
  );
  // Past these frames whether written or lost (a failed batch is counted, as from memory); kept in
  // the file for the next start when closing with the database unreachable (`parked`).
  if (ok === null) return;
  if (head.kind === 'leftover' && used > 0 && used < head.length) {
    queue.unshift({ ...head, offset: head.offset + used, length: head.length - used });
  }
  try {
    writeFileSync(`${range.file}.done`, String(range.offset + used));
  } catch (err) {
    send({
      kind: 'warning',
      message: `query-log spool: cannot note progress in ${range.file}: ${(err as Error).message}`,
    });
  }
}

/**
 * Backoff of the inserts retried while the database is unreachable, full or locked
 * ({@link retryReason}), ms: doubles from the first to the last (docs/operations.md "When the
 * database goes away", "A full disk").
 */
const UNREACHABLE_RETRY_MS = [250, 5000] as const;

/**
 * Once the resolver is closing, how long inserts are still retried while the database is
 * unreachable, ms; then the rows still in memory go to the spool for the next start.
 */
const CLOSING_RETRY_MS = 2000;

/** When the database was first found unreachable, full or locked in the current outage (ms), else null. */
let unreachableSince: number | null = null;
/** When the current retries began after a `close` arrived (ms), else null. */
let closingSince: number | null = null;
/**
 * Set once the resolver is closing with the database unreachable: nothing more is inserted; rows
 * from memory are kept in {@link parkedSpool}, spooled ranges stay in their files, and no spool file
 * is deleted, so the next start writes them all (its leftovers).
 */
let parked = false;
/** The spool file of rows kept at a close with the database unreachable, opened on first use. */
let parkedSpool: SpoolAppender | null = null;

/** Ends the current wait between retries at once (a `close` arrived); null when not waiting. */
let wakeRetry: (() => void) | null = null;

/** True once a `close` message waits in the queue: the resolver is shutting down. */
function closeRequested(): boolean {
  return queue.some((m) => m.kind === 'close');
}

/**
 * Inserts the rows of the messages `read` returns and reports them to the resolving thread: as many
 * as they hold, or `announced` when `read` failed or was not called (no connection).
 *
 * While the database is unreachable (`isDatabaseUnreachable`: refused, reset or terminated
 * connections), full (`SQLITE_FULL`) or locked past the busy timeout ({@link retryReason}) the
 * insert is retried with backoff ({@link UNREACHABLE_RETRY_MS}) instead of losing the rows: the
 * batches behind it wait in the queue, and the resolving thread spools what exceeds its memory bound
 * as at any backlog (docs/decisions.md "Query-log spool"), so the log drains once the database is
 * back. Closing with the database still in that state after {@link CLOSING_RETRY_MS}, rows
 * of `source` `memory` are appended to a spool file for the next start and spooled ones left where
 * they are (without a spool directory they are lost and counted, as any other failed batch).
 * @returns true when written, false when lost, null when the connection is closed or the rows were kept for the next start
 */
async function insertAndReport(
  read: () => readonly RowsMessage[],
  announced: number,
  source: 'memory' | 'spool' | 'leftover',
): Promise<boolean | null> {
  let count = announced;
  if (handle === null) {
    send({ kind: 'batch', count, error: openError, source });
    return null;
  }
  let retryMs: number = UNREACHABLE_RETRY_MS[0];
  for (;;) {
    try {
      if (parked) return keepForNextStart(read, source);
      await idleCore();
      const batches = read();
      count = 0;
      for (const b of batches) count += b.count;
      await handle.insert(batches, PACE);
      if (unreachableSince !== null) {
        send({
          kind: 'warning',
          message: `query-log writer: the database takes rows again after ${Date.now() - unreachableSince} ms; writing the rows that waited`,
        });
        unreachableSince = null;
      }
      send({ kind: 'batch', count, error: null, source });
      return true;
    } catch (err) {
      const reason = retryReason(err);
      if (reason === null) {
        send({ kind: 'batch', count, error: err instanceof Error ? err.message : String(err), source });
        return false;
      }
      if (unreachableSince === null) {
        unreachableSince = Date.now();
        send({
          kind: 'warning',
          message: `query-log writer: database ${reason === 'busy' ? 'locked' : reason} (${(err as Error).message}); rows wait in memory, then in the spool, and are retried`,
        });
      }
      if (closeRequested()) {
        closingSince ??= Date.now();
        if (Date.now() - closingSince >= CLOSING_RETRY_MS && spool !== null) parked = true;
        else if (Date.now() - closingSince >= CLOSING_RETRY_MS) {
          send({ kind: 'batch', count, error: (err as Error).message, source });
          return false;
        }
      }
      if (!parked) {
        // Closing: short waits, so the rows are kept within about CLOSING_RETRY_MS of the `close`.
        await new Promise<void>((resolve) => {
          wakeRetry = resolve;
          setTimeout(resolve, closingSince === null ? retryMs : CLOSING_RETRY_MS / 4);
        });
        wakeRetry = null;
        retryMs = Math.min(retryMs * 2, UNREACHABLE_RETRY_MS[1]);
      }
    }
  }
}

/**
 * Closing with the database unreachable ({@link parked}): rows from memory are appended to a spool
 * file of their own, which the next start writes as a leftover; spooled rows stay in their file.
 * Nothing is reported as written or lost for them (the resolving thread is closing).
 * @returns null (kept), or false when they could not be kept (reported lost)
 */
function keepForNextStart(read: () => readonly RowsMessage[], source: 'memory' | 'spool' | 'leftover'): null | false {
  if (source !== 'memory') return null;
  const batches = read();
  let count = 0;
  for (const b of batches) count += b.count;
  try {
    // `spool` is set whenever `parked` is; its own run prefix keeps it apart from the resolving thread's files.
    parkedSpool ??= new SpoolAppender(spool!.dir, `${spool!.run}-closing`);
    for (const b of batches) parkedSpool.append(b);
    send({
      kind: 'warning',
      message: `query-log writer: database unreachable, full or locked at close; ${count} rows kept in the spool for the next start`,
    });
    return null;
  } catch (err) {
    send({ kind: 'batch', count, error: (err as Error).message, source });
    return false;
  }
}

/** A file's size in bytes, 0 when it is gone. */
function statSizeOf(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

/** Deletes a spool file whose frames are all handled, and its note. */
function deleteSpoolFile(file: string): void {
  const bytes = statSizeOf(file);
  try {
    rmSync(file, { force: true });
    rmSync(`${file}.done`, { force: true });
  } catch (err) {
    send({ kind: 'warning', message: `query-log spool: cannot delete ${file}: ${(err as Error).message}` });
  }
  send({ kind: 'spoolDeleted', bytes });
}

async function handleControl(m: Extract<ToWriter, { kind: 'flush' | 'close' | 'spoolEnd' }>): Promise<void> {
  switch (m.kind) {
    case 'spoolEnd':
      // Closing with the database unreachable: the file's frames are not all in the database.
      if (!parked) deleteSpoolFile(m.file);
      return;
    case 'flush':
      sendStreamStats();
      send({ kind: 'flushed', seq: m.seq });
      return;
    case 'close':
      mspClosed = true;
      if (hub !== null) {
        await hub.close(STREAM_CLOSE_GRACE_MS);
        sendStreamStats();
      }
      parkedSpool?.end();
      await handle?.close().catch(() => undefined);
      handle = null;
      openError = 'query log closed';
      send({ kind: 'closed' });
      port.close();
      return;
  }
}

/** Handles the queue in order; lets the port deliver what arrived meanwhile before each step, so waiting batches coalesce. */
async function drain(): Promise<void> {
  draining = true;
  try {
    while (queue.length > 0) {
      const head = queue[0]!;
      if (head.kind === 'rows') await writeWaitingRows();
      else if (head.kind === 'spooled' || head.kind === 'leftover') await writeSpooledRows();
      else {
        queue.shift();
        await handleControl(head);
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
  } finally {
    draining = false;
  }
}

/** Longest the log streams may take to send what waits when the resolver closes, ms. */
const STREAM_CLOSE_GRACE_MS = 2000;

port.on('message', (m: ToWriter) => {
  // Streamed on arrival: a slow database delays the inserts, not the streams.
  if (m.kind === 'rows') streamRows(m);
  queue.push(m);
  // Closing during an outage: stop waiting out the backoff (the rows are kept for the next start).
  if (m.kind === 'close') wakeRetry?.();
  if (!draining) void drain();
});
if (queue.length > 0) void drain();
