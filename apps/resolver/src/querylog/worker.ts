/**
 * The query-log writer thread (docs/architecture.md "Data plane", docs/contributing.md "Conventions" 7): owns its own database connection
 * (`workerData.connection`, an `OpenDatabaseOptions`; SQLite WAL lets it write beside the
 * resolver's connection, PostgreSQL gets its own small pool) and inserts the batches the
 * resolving thread posts, one at a time and in order, so better-sqlite3's synchronous INSERTs
 * block this thread and never the one answering queries. Protocol: querylog/batch.ts.
 * Started by {@link QueryLogWorkerWriter} (querylog/threaded.ts); not imported anywhere else.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { type OpenDatabaseOptions, openDatabase } from '@cordon/db';
import { type FromWriter, readRows, type ToWriter } from './batch.ts';
import { insertQueryLogRaw, type WritePace } from './writer.ts';

if (parentPort === null) throw new Error('querylog/worker.ts runs only as a worker thread');
const port = parentPort;
const { connection } = workerData as { connection: OpenDatabaseOptions };
const send = (m: FromWriter) => port.postMessage(m);

let handle: ReturnType<typeof openDatabase> | null = null;
let openError: string | null = null;
try {
  // One connection: batches are written one at a time, in order.
  handle = openDatabase({ pgPoolSize: 1, ...connection });
} catch (err) {
  openError = err instanceof Error ? err.message : String(err);
}

/**
 * Rows written per transaction at most when batches wait: the resolving thread posts 1,000-row batches,
 * and under load several queue up while one is written; writing them together saves a commit each
 * (the commit was a quarter of this thread's time at saturation: bench/README.md "Issue 12: hot path").
 */
const COALESCE_ROWS = 10_000;

/** Messages received and not handled yet, in order. */
const queue: ToWriter[] = [];
let draining = false;

/**
 * While no other batch waits, a batch is written {@link PACE_ROWS} rows (≈ 0.3 ms) at a time with a
 * 1 ms sleep in between, so that on a core shared with the resolving thread the writer never holds it
 * long while a query waits (the p99 at a steady rate: bench/README.md "Issue 12: hot path" round 3);
 * as soon as another batch queues up the sleeps stop. `CORDON_QUERYLOG_PACE` sets the rows per slice
 * (`0` turns pacing off).
 */
const PACE_ROWS = paceRows(process.env.CORDON_QUERYLOG_PACE);

/**
 * The rows per paced slice for the environment's `value`: 100 when unset, else a whole number from 0
 * (off) to 10,000; anything else keeps 100 and is reported to the resolving thread, which logs it.
 */
function paceRows(value: string | undefined): number {
  if (value === undefined || value === '') return 100;
  const n = Number(value);
  if (Number.isInteger(n) && n >= 0 && n <= 10_000) return n;
  send({
    kind: 'warning',
    message: `CORDON_QUERYLOG_PACE must be a whole number from 0 to 10000 (got "${value}"); using 100`,
  });
  return 100;
}

const PACE: WritePace | undefined =
  PACE_ROWS === 0
    ? undefined
    : {
        rows: PACE_ROWS,
        between: () => (queue.length > 0 ? Promise.resolve() : new Promise((resolve) => setTimeout(resolve, 1))),
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
  if (handle === null) {
    send({ kind: 'batch', count, error: openError });
    return;
  }
  try {
    const rows = batches.length === 1 ? readRows(batches[0]!) : [];
    if (batches.length > 1) for (const b of batches) for (const r of readRows(b)) rows.push(r);
    await insertQueryLogRaw(handle, rows, PACE);
    send({ kind: 'batch', count, error: null });
  } catch (err) {
    send({ kind: 'batch', count, error: err instanceof Error ? err.message : String(err) });
  }
}

async function handleControl(m: Exclude<ToWriter, { kind: 'rows' }>): Promise<void> {
  switch (m.kind) {
    case 'flush':
      send({ kind: 'flushed', seq: m.seq });
      return;
    case 'close':
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

port.on('message', (m: ToWriter) => {
  queue.push(m);
  if (!draining) void drain();
});
