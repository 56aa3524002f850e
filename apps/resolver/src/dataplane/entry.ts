/**
 * The data-plane thread of `cordon serve` (docs/operations.md "Threads"): runs the `resolver` and
 * `blockpage` roles on their own event loop with their own database connection and change feed, so
 * nothing the API thread does (a slow statistics query, an import, a report) can delay a DNS
 * answer. The resolver starts its query-log writer thread from here as it would anywhere.
 * Started by {@link startDataPlane} (dataplane/host.ts); protocol in dataplane/protocol.ts; the
 * roles themselves in dataplane/run.ts.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { ChangeTopic } from '@cordon/db';
import pino from 'pino';
import { collectGarbageTwice } from './gc.ts';
import type { DataPlaneWorkerData, FromDataPlane, ToDataPlane } from './protocol.ts';
import { toThreadError } from './protocol.ts';
import { type DataPlaneRun, runDataPlane } from './run.ts';

if (parentPort === null) throw new Error('dataplane/entry.ts runs only as a worker thread');
const port = parentPort;
const data = workerData as DataPlaneWorkerData;
// run.ts logs each role through a child naming it (docs/operations.md "Logs").
const logger = pino({ level: data.logLevel });
const send = (m: FromDataPlane) => port.postMessage(m);

let run: DataPlaneRun | null = null;
let deliver: (topic: ChangeTopic) => void = () => undefined;

const starting = runDataPlane(data, logger).then(
  (started) => {
    run = started;
    deliver = started.deliver;
    // This isolate's share of what the load left (dataplane/host.ts releaseLoadMemory), before the first answer.
    collectGarbageTwice();
    send({ kind: 'ready', dns: started.dns, blockPage: started.blockPage, blockPageHttps: started.blockPageHttps });
    return true;
  },
  (err: unknown) => {
    send({ kind: 'failed', error: toThreadError(err) });
    port.close();
    return false;
  },
);

port.on('message', (m: ToDataPlane) => {
  switch (m.kind) {
    case 'changed':
      deliver(m.topic);
      return;
    case 'metrics':
      send({ kind: 'metrics', seq: m.seq, metrics: run?.resolver ? run.resolver.metrics : null });
      return;
    case 'reconfigure':
      try {
        if (m.change.logLevel) logger.level = m.change.logLevel;
        run?.reconfigure(m.change);
        send({ kind: 'reconfigured', seq: m.seq, error: null });
      } catch (err) {
        send({ kind: 'reconfigured', seq: m.seq, error: toThreadError(err) });
      }
      return;
    case 'close':
      void starting.then(async (started) => {
        if (!started) return;
        await run?.close();
        send({ kind: 'closed' });
        port.close();
      });
      return;
  }
});
