/**
 * The data plane itself (the `resolver` and `blockpage` roles with their own database connection
 * and change feed), wherever it runs: on its own worker thread (dataplane/entry.ts) or, in a
 * process without the API, on the calling thread (dataplane/host.ts; docs/operations.md "Threads").
 */
import type { AddressInfo } from 'node:net';
import {
  type ChangeFeed,
  type ChangeListener,
  type ChangeTopic,
  createChangeFeed,
  DATA_PLANE_SQLITE_CACHE_KIB,
  openDatabase,
} from '@cordon/db';
import type { Logger } from 'pino';
import { type RunningBlockPage, type RunningResolver, startBlockPage, startResolver } from '../index.ts';
import type { DataPlaneReconfigure, DataPlaneWorkerData } from './protocol.ts';

/** A started data plane, on whichever thread. */
export interface DataPlaneRun {
  dns: { udp: AddressInfo; tcp: AddressInfo; doh?: AddressInfo; dot?: AddressInfo } | null;
  blockPage: AddressInfo | null;
  blockPageHttps: AddressInfo | null;
  /** The resolver's live counters; null without the resolver role. */
  readonly resolver: RunningResolver | null;
  /** Hands a topic published in this process to the data plane's listeners at once. */
  deliver(topic: ChangeTopic): void;
  /**
   * Applies settings that need no restart: the logger's level, then the resolver's upstreams and
   * certificate ({@link RunningResolver.reconfigure}).
   * @throws what the resolver's reconfigure throws
   */
  reconfigure(change: DataPlaneReconfigure): void;
  /** Stops listening, flushes the query log, closes the connection. Safe to call twice. */
  close(): Promise<void>;
}

/**
 * The data plane's change feed: its own poller (changes other processes make; docs/architecture.md
 * "Decision order") plus the topics this process's API publishes, delivered at once. A relayed
 * change is seen again by the poller (one more, cheap, tenant reload): the poller alone keeps the
 * ≤ 1 s promise even when the API's thread is busy.
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

/**
 * Opens the data plane's connection and change feed and starts its roles; resolves once they
 * listen (snapshot loaded, addresses bound).
 * @param data the settings, as plain data (the worker thread's `workerData`)
 * @param logger the data plane's logger (`role` children per role)
 * @throws Error when the database cannot be opened or a role fails to start (its `code`, e.g.
 *   `EADDRINUSE`, kept); whatever had started is stopped again first
 */
export async function runDataPlane(data: DataPlaneWorkerData, logger: Logger): Promise<DataPlaneRun> {
  // Every line names its role (docs/operations.md "Logs").
  const resolverLog = logger.child({ role: 'resolver' });
  const blockPageLog = logger.child({ role: 'blockpage' });
  const roles = [data.resolver ? 'resolver' : null, data.blockPage ? 'blockpage' : null].filter(Boolean).join(',');
  const closers: Array<() => Promise<void>> = [];
  const closeAll = async () => {
    while (closers.length > 0) {
      try {
        await closers.pop()?.();
      } catch (err) {
        logger.error({ role: roles, err }, 'data plane: shutdown step failed');
      }
    }
  };
  try {
    const handle = openDatabase({ pgPoolSize: 4, sqliteCacheKiB: DATA_PLANE_SQLITE_CACHE_KIB, ...data.connection });
    closers.push(() => handle.close());
    const relayed = withRelay(createChangeFeed(handle, data.changePollMs));
    await relayed.feed.start();
    closers.push(() => relayed.feed.close());
    let resolver: RunningResolver | null = null;
    if (data.resolver) {
      const running = await startResolver({
        ...data.resolver,
        db: handle,
        changes: relayed.feed,
        logger: resolverLog,
        // The query-log writer thread opens its own connection: this one's, unless told otherwise.
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
        logger: blockPageLog,
        http: data.blockPage.http,
        ...(data.blockPage.https ? { https: data.blockPage.https } : {}),
        // One snapshot (and category index) for both roles.
        ...(resolver ? { snapshot: resolver.snapshot } : {}),
      });
      blockPage = page;
      closers.push(() => page.close());
    }
    let closing: Promise<void> | null = null;
    return {
      dns: resolver ? resolver.address : null,
      blockPage: blockPage ? blockPage.address : null,
      blockPageHttps: blockPage ? blockPage.httpsAddress : null,
      resolver,
      deliver: relayed.deliver,
      reconfigure(change) {
        // A pino child keeps the level it was made with: each is set.
        if (change.logLevel) for (const l of [logger, resolverLog, blockPageLog]) l.level = change.logLevel;
        const { upstreams, tls } = change;
        if (resolver && (upstreams || tls)) {
          resolver.reconfigure({ ...(upstreams ? { upstreams } : {}), ...(tls ? { tls } : {}) });
        }
      },
      close() {
        closing ??= closeAll();
        return closing;
      },
    };
  } catch (err) {
    await closeAll();
    throw err;
  }
}
