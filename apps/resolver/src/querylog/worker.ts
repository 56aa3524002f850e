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
import { RollupBuffer } from './rollup.ts';
import { flushRollups, insertQueryLogBatch } from './writer.ts';

if (parentPort === null) throw new Error('querylog/worker.ts runs only as a worker thread');
const port = parentPort;
const { connection } = workerData as { connection: OpenDatabaseOptions };
const send = (m: FromWriter) => port.postMessage(m);

let handle: ReturnType<typeof openDatabase> | null = null;
/** The roll-up deltas of the rows written, upserted when due, on flush and on close (querylog/rollup.ts). */
const rollups = new RollupBuffer();

/** Writes the waiting roll-ups; a failure is reported as a failed batch of 0 rows. */
async function writeRollups(): Promise<void> {
  if (handle === null || !rollups.pending) return;
  try {
    await flushRollups(handle, rollups);
  } catch (err) {
    send({ kind: 'batch', count: 0, error: `roll-ups: ${err instanceof Error ? err.message : String(err)}` });
  }
}
let openError: string | null = null;
try {
  handle = openDatabase({ pgPoolSize: 2, ...connection });
} catch (err) {
  openError = err instanceof Error ? err.message : String(err);
}

async function handleMessage(m: ToWriter): Promise<void> {
  switch (m.kind) {
    case 'rows': {
      if (handle === null) {
        send({ kind: 'batch', count: m.count, error: openError });
        return;
      }
      try {
        await insertQueryLogBatch(handle, readRows(m.count, m.nums, m.strs), rollups);
        send({ kind: 'batch', count: m.count, error: null });
      } catch (err) {
        send({ kind: 'batch', count: m.count, error: err instanceof Error ? err.message : String(err) });
      }
      return;
    }
    case 'flush':
      await writeRollups();
      send({ kind: 'flushed', seq: m.seq });
      return;
    case 'close':
      await writeRollups();
      await handle?.close().catch(() => undefined);
      handle = null;
      openError = 'query log closed';
      send({ kind: 'closed' });
      port.close();
      return;
  }
}

let chain: Promise<void> = Promise.resolve();
port.on('message', (m: ToWriter) => {
  chain = chain.then(() => handleMessage(m));
});
// Roll-ups also go out when due while no rows arrive (they wait at most RollupBuffer's max age).
setInterval(() => {
  if (rollups.due()) chain = chain.then(writeRollups);
}, 250).unref();
