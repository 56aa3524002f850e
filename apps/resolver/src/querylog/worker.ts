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
import { insertQueryLogRows } from './writer.ts';

if (parentPort === null) throw new Error('querylog/worker.ts runs only as a worker thread');
const port = parentPort;
const { connection } = workerData as { connection: OpenDatabaseOptions };
const send = (m: FromWriter) => port.postMessage(m);

let handle: ReturnType<typeof openDatabase> | null = null;
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
        await insertQueryLogRows(handle, readRows(m.count, m.nums, m.strs));
        send({ kind: 'batch', count: m.count, error: null });
      } catch (err) {
        send({ kind: 'batch', count: m.count, error: err instanceof Error ? err.message : String(err) });
      }
      return;
    }
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

let chain: Promise<void> = Promise.resolve();
port.on('message', (m: ToWriter) => {
  chain = chain.then(() => handleMessage(m));
});
