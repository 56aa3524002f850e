/**
 * The data-plane thread of `cordon serve` (docs/operations.md "Threads"): runs the `resolver` and
 * `blockpage` roles on their own event loop with their own database connection and change feed, so
 * nothing the API thread does (a slow statistics query, an import, a report) can delay a DNS
 * answer. The resolver starts its query-log writer thread from here as it would anywhere.
 * Started by {@link startDataPlane} (dataplane/host.ts); protocol in dataplane/protocol.ts.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { type ChangeFeed, type ChangeListener, type ChangeTopic, createChangeFeed, openDatabase } from '@cordon/db';
import pino from 'pino';
import { type RunningBlockPage, type RunningResolver, startBlockPage, startResolver } from '../index.ts';
import { type DataPlaneWorkerData, type FromDataPlane, type ToDataPlane, toThreadError } from './protocol.ts';

if (parentPort === null) throw new Error('dataplane/entry.ts runs only as a worker thread');
const port = parentPort;
const data = workerData as DataPlaneWorkerData;
const logger = pino({ level: data.logLevel });
const send = (m: FromDataPlane) => port.postMessage(m);

/**
 * The thread's change feed: its own poller (changes other processes make; docs/architecture.md "Decision order") plus the
 * topics the main thread relays as its API publishes them, delivered at once. A relayed change is
 * seen again by the poller (one more, cheap, tenant reload): the poller alone keeps the ≤ 1 s
 * promise even when the main thread is busy.
 */
function withRelay(polled: ChangeFeed): { feed: ChangeFeed; deliver(topic: ChangeTopic): void } {
  const listeners = new Set<ChangeListener>();
  const deliver = (topic: ChangeTopic) => {
    for (const listener of listeners) {
      try {
        listener(topic);
      } catch {
        // As in createChangeFeed: one listener's failure must not stop the others; they log their own.
      }
    }
  };
  polled.subscribe(deliver);
  const feed: ChangeFeed = {
    publish: (topic) => polled.publish(topic),
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    start: () => polled.start(),
    async close() {
      listeners.clear();
      await polled.close();
    },
  };
  return { feed, deliver };
}

/** Shutdown steps of what has started, run last-first. */
const closers: Array<() => Promise<void>> = [];
let deliver: (topic: ChangeTopic) => void = () => undefined;
let resolver: RunningResolver | null = null;

async function closeAll(): Promise<void> {
  while (closers.length > 0) {
    try {
      await closers.pop()?.();
    } catch (err) {
      logger.error({ err }, 'data plane: shutdown step failed');
    }
  }
}

async function start(): Promise<void> {
  const handle = openDatabase({ pgPoolSize: 4, ...data.connection });
  closers.push(() => handle.close());
  const relayed = withRelay(createChangeFeed(handle, data.changePollMs));
  await relayed.feed.start();
  closers.push(() => relayed.feed.close());
  deliver = relayed.deliver;
  if (data.resolver) {
    const running = await startResolver({
      ...data.resolver,
      db: handle,
      changes: relayed.feed,
      logger: logger.child({ role: 'resolver' }),
      // The query-log writer thread opens its own connection: this thread's, unless told otherwise.
      queryLog: { connection: data.connection, ...data.resolver.queryLog },
    });
    resolver = running;
    closers.push(() => running.close());
  }
  let blockPage: RunningBlockPage | null = null;
  if (data.blockPage) {
    const page = await startBlockPage({
      db: handle,
      changes: relayed.feed,
      logger: logger.child({ role: 'blockpage' }),
      http: data.blockPage.http,
      ...(data.blockPage.https ? { https: data.blockPage.https } : {}),
      // One snapshot (and category index) for both roles.
      ...(resolver ? { snapshot: resolver.snapshot } : {}),
    });
    blockPage = page;
    closers.push(() => page.close());
  }
  send({
    kind: 'ready',
    dns: resolver ? resolver.address : null,
    blockPage: blockPage ? blockPage.address : null,
    blockPageHttps: blockPage ? blockPage.httpsAddress : null,
  });
}

const starting = start().then(
  () => true,
  async (err: unknown) => {
    await closeAll();
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
      send({ kind: 'metrics', seq: m.seq, metrics: resolver ? resolver.metrics : null });
      return;
    case 'close':
      void starting.then(async (started) => {
        if (!started) return;
        await closeAll();
        send({ kind: 'closed' });
        port.close();
      });
      return;
  }
});
