/**
 * `@cordon/resolver/dataplane`: runs the data plane (the `resolver` and `blockpage` roles) on its own
 * worker thread, so that in one `cordon serve` process the roles never share an event loop: a
 * synchronous better-sqlite3 statistics query on the API thread cannot delay a DNS answer
 * (docs/operations.md "Threads", docs/decisions.md).
 */
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import type { ChangeTopic, OpenDatabaseOptions } from '@cordon/db';
import { loadUdpBatch, udpBatchUnavailableReason } from '@cordon/udp-batch';
import type { Logger } from 'pino';
import type { ResolverMetrics } from '../index.ts';
import type { StreamStats } from '../querylog/streams/sinks.ts';
import { startModuleWorker } from '../threads.ts';
import { collectGarbageTwice } from './gc.ts';
import {
  type DataPlaneBlockPageOptions,
  type DataPlaneReconfigure,
  type DataPlaneResolverOptions,
  type DataPlaneWorkerData,
  type FromDataPlane,
  fromThreadError,
  type ToDataPlane,
} from './protocol.ts';

export type { DataPlaneBlockPageOptions, DataPlaneReconfigure, DataPlaneResolverOptions } from './protocol.ts';

/**
 * File name of the data-plane thread's entry in the production bundle: apps/cli/scripts/bundle.mjs
 * must emit `dataplane/entry.ts` under this name beside `cordon.mjs`. From TypeScript sources the
 * `.ts` entry is loaded through tsx's ESM hooks instead (see {@link startModuleWorker}).
 */
export const DATA_PLANE_WORKER_BUNDLE_NAME = 'dataplane-worker.mjs';

/** Settings of {@link startDataPlane}. At least one of `resolver` and `blockPage`. */
export interface DataPlaneOptions {
  /**
   * The thread's own database connection: the SQLite file (WAL lets it read beside the API's
   * connection) or the PostgreSQL URL. The query-log writer thread uses it too unless
   * `resolver.queryLog.connection` says otherwise.
   */
  connection: OpenDatabaseOptions;
  /** Logs the thread's failures on this (main) thread; the thread itself logs to fd 1 at `logLevel`. */
  logger: Logger;
  /** pino level of the thread's own logger (default: `logger.level`). */
  logLevel?: string;
  /** Runs the resolver with these settings: `ResolverOptions` as plain data (structured clone). */
  resolver?: DataPlaneResolverOptions;
  /**
   * Runs the block page on these addresses (HTTP, and HTTPS with the CA secret); with the resolver
   * it shares the resolver's snapshot.
   */
  blockPage?: DataPlaneBlockPageOptions;
  /** How often the thread polls for other processes' changes, ms (default 500: seen within 1 s, docs/architecture.md "Decision order"). */
  changePollMs?: number;
  /**
   * Resolver threads (docs/operations.md "Resolver threads", default 1). With N > 1 the first thread
   * runs everything as with 1 (UDP, TCP, DoH, block page) and N − 1 more threads serve UDP only on
   * the same port, all bound with SO_REUSEPORT so the kernel spreads datagrams among them by a
   * hash of the source; each thread keeps its own snapshot, cache and query-log writer (the
   * snapshot directory on disk is the first thread's only).
   * More than 1 needs the batched UDP addon (`@cordon/udp-batch`) and the resolver role.
   */
  resolverThreads?: number;
  /**
   * Runs the (first) data plane on the calling thread instead of a worker thread: for a process
   * without the API and the worker, where nothing else uses this event loop, so one V8 isolate
   * less (≈ 35 MB; bench/README.md "Resolver memory"). Extra resolver threads stay threads.
   * Default false.
   */
  inProcess?: boolean;
}

/** The running data-plane thread. */
export interface RunningDataPlane {
  /** The resolver's bound UDP and TCP addresses; null without the `resolver` role. */
  readonly dns: { udp: AddressInfo; tcp: AddressInfo; doh?: AddressInfo; dot?: AddressInfo } | null;
  /** The block page's bound address; null without the `blockpage` role. */
  readonly blockPage: AddressInfo | null;
  /** The block page's bound HTTPS address; null without the role or without `blockPage.https`. */
  readonly blockPageHttps: AddressInfo | null;
  /**
   * Hands a topic this process published (the API's `changes.publish`) to the thread at once, so
   * the change is enforced without waiting for the thread's poller. Ignored once the thread ended.
   */
  relay(topic: ChangeTopic): void;
  /**
   * The resolver's counters, copied from the thread; null without the resolver or once the thread
   * ended. With several resolver threads: the first thread's, its top-level counters summed over
   * all threads (queries, blocked, cache hits…).
   */
  metrics(): Promise<ResolverMetrics | null>;
  /**
   * Applies settings that need no restart on every thread (SIGHUP; docs/operations.md "Configuration
   * check and reload"): log level, upstreams, the DoH/DoT certificate. Resolves once applied; an
   * ended thread is skipped.
   * @throws Error from the first thread that refused the change (an empty upstream list, a bad pair)
   */
  reconfigure(change: DataPlaneReconfigure): Promise<void>;
  /**
   * Resolves (never rejects) with the cause when the thread ends without {@link close}: an uncaught
   * exception, running out of memory. Stays pending otherwise.
   */
  readonly failed: Promise<Error>;
  /** Stops listening, flushes the query log, closes the thread's connections, ends the thread. Safe to call twice. */
  close(): Promise<void>;
}

/** What {@link releaseLoadMemory} gave back. */
export interface ReleasedLoadMemory {
  /** V8 heap pages released by the collections, bytes (this isolate; may be negative by a page). */
  heapBytes: number;
}

/**
 * Once the data plane's first snapshot is loaded on this thread: gives back the V8 heap pages the
 * loaders' dead objects hold (two full collections, dataplane/gc.ts), which V8's memory reducer
 * would otherwise return only after a minute of idling. Public Node APIs only; the young
 * generation is bounded by the service's node flag (`--max-semi-space-size`) and the C heap by its
 * environment (`MALLOC_ARENA_MAX`, `MALLOC_TRIM_THRESHOLD_`: deploy/systemd/cordon-resolver.service),
 * docs/decisions.md "The addon does UDP I/O only". Pauses this thread ≈ 50–100 ms once, before the
 * first query is answered.
 */
export function releaseLoadMemory(): ReleasedLoadMemory {
  return { heapBytes: collectGarbageTwice() };
}

/** Starts the real thread: `dataplane/entry.ts`, or {@link DATA_PLANE_WORKER_BUNDLE_NAME} in the bundle. */
function startEntry(workerData: DataPlaneWorkerData): Worker {
  return startModuleWorker(new URL('./entry.ts', import.meta.url), DATA_PLANE_WORKER_BUNDLE_NAME, { workerData });
}

/**
 * Starts the data-plane thread and waits until its roles listen (snapshot loaded, addresses bound).
 * The thread keeps the process alive until {@link RunningDataPlane.close}.
 * @param startThread starts the thread from its `workerData`; tests substitute a stand-in
 * @throws Error when neither role is asked for, when the entry cannot be found, when a role
 *   fails to start (its `code`, e.g. `EADDRINUSE`, is kept; every thread has ended by then), or
 *   when more than one resolver thread is asked for without the batched UDP addon (or on dgram);
 *   RangeError for a thread count below 1
 */
export async function startDataPlane(
  opts: DataPlaneOptions,
  startThread: (workerData: DataPlaneWorkerData) => Worker = startEntry,
): Promise<RunningDataPlane> {
  if (!opts.resolver && !opts.blockPage) throw new Error('data plane: neither the resolver nor the block page');
  const threads = opts.resolverThreads ?? 1;
  if (!Number.isInteger(threads) || threads < 1)
    throw new RangeError(`data plane: resolver threads must be 1 or more, got ${threads}`);
  if (threads > 1) {
    if (!opts.resolver) throw new Error('data plane: several resolver threads need the resolver role');
    if (opts.resolver.udpBackend === 'dgram' || loadUdpBatch() === null) {
      throw new Error(
        `data plane: ${threads} resolver threads need the batched UDP addon (SO_REUSEPORT), ` +
          `${opts.resolver.udpBackend === 'dgram' ? 'but the dgram backend was asked for' : `which is not built (${udpBatchUnavailableReason()}); run npm rebuild @cordon/udp-batch with a C++ compiler, or use 1 thread`}`,
      );
    }
  }
  const resolver = opts.resolver && threads > 1 ? { ...opts.resolver, udpReusePort: true } : (opts.resolver ?? null);
  const first = opts.inProcess
    ? await startInProcess(opts, resolver, opts.blockPage ?? null)
    : await startOne(opts, resolver, opts.blockPage ?? null, startThread);
  const extra: RunningDataPlane[] = [];
  if (resolver !== null && first.dns !== null) {
    // The same port as the first thread's UDP (port 0 picked it); DoH, DoT and TCP stay on the first.
    // No snapshot directory: its files are written per process (one temporary name per pid), so
    // only the first thread keeps it; the others need the database at start.
    const { doh: _doh, dot: _dot, ...rest } = resolver;
    const udpPort = first.dns.udp.port;
    const udpOnly = (thread: number): DataPlaneResolverOptions => ({
      ...rest,
      dns: { ...resolver.dns, port: udpPort },
      udpOnly: true,
      snapshotDir: null,
      // Each writer thread its own query-log spool (querylog/spool.ts: one appender per directory).
      ...(resolver.queryLog?.spoolDir
        ? { queryLog: { ...resolver.queryLog, spoolDir: join(resolver.queryLog.spoolDir, `thread-${thread}`) } }
        : {}),
    });
    // Started together: each loads its own snapshot.
    const started = await Promise.allSettled(
      Array.from({ length: threads - 1 }, (_, i) => startOne(opts, udpOnly(i + 1), null, startThread)),
    );
    for (const r of started) if (r.status === 'fulfilled') extra.push(r.value);
    const failed = started.find((r) => r.status === 'rejected');
    if (failed) {
      await Promise.all([first, ...extra].map((t) => t.close()));
      throw failed.reason;
    }
  }
  if (extra.length === 0) return first;
  const all = [first, ...extra];
  return {
    dns: first.dns,
    blockPage: first.blockPage,
    blockPageHttps: first.blockPageHttps,
    relay(topic) {
      for (const t of all) t.relay(topic);
    },
    async reconfigure(change) {
      await Promise.all(all.map((t) => t.reconfigure(change)));
    },
    async metrics() {
      const each = await Promise.all(all.map((t) => t.metrics()));
      const head = each[0];
      if (!head) return null;
      return sumMetrics(head, each.slice(1));
    },
    failed: Promise.race(all.map((t) => t.failed)),
    async close() {
      await Promise.all(all.map((t) => t.close()));
    },
  };
}

/** Each thread's log-stream counters added sink by sink; connected: how many threads' sinks are. */
function sumStreams(a: StreamStats[] | undefined, b: StreamStats[]): StreamStats[] {
  if (a === undefined) return b;
  return a.map((s, i) => {
    const o = b[i];
    return o
      ? { ...s, sent: s.sent + o.sent, dropped: s.dropped + o.dropped, connected: s.connected + o.connected }
      : s;
  });
}

/** Counters grouped in an object, summed member by member over threads. */
const SUMMED_GROUPS = new Set(['queryLog', 'byTransport', 'byQtype', 'byRcode']);

/** `head` with its top-level number fields added up over `others` (null: an ended thread, skipped). */
function sumMetrics(head: ResolverMetrics, others: Array<ResolverMetrics | null>): ResolverMetrics {
  const sum = { ...head } as unknown as Record<string, unknown>;
  for (const m of others) {
    if (m === null) continue;
    for (const [key, value] of Object.entries(m)) {
      // The receive buffer is per socket, not a count: the first thread's stands for all.
      if (typeof value === 'number' && key !== 'udpRecvBufferBytes') sum[key] = (sum[key] as number) + value;
      // Counters grouped in an object (the query log's): summed member by member.
      else if (key === 'upstreamHealth' && Array.isArray(value)) {
        // Each thread has its own upstream client: the first's health, every thread's latency counts.
        sum[key] = (sum[key] as ResolverMetrics['upstreamHealth']).map((u, i) => {
          const other = (value as ResolverMetrics['upstreamHealth'])[i];
          if (!other) return u;
          return {
            ...u,
            latency: {
              ...u.latency,
              counts: u.latency.counts.map((n, j) => n + (other.latency.counts[j] ?? 0)),
              sumMs: u.latency.sumMs + other.latency.sumMs,
            },
          };
        });
      } else if (SUMMED_GROUPS.has(key) && typeof value === 'object' && value !== null) {
        const total = { ...(sum[key] as Record<string, number>) };
        for (const [k, v] of Object.entries(value as Record<string, number>)) {
          // The log streams' counters (one list per thread, same targets): summed sink by sink.
          if (Array.isArray(v)) total[k] = sumStreams(total[k] as unknown as StreamStats[] | undefined, v) as never;
          else total[k] = (total[k] ?? 0) + v;
        }
        sum[key] = total;
      }
    }
  }
  return sum as unknown as ResolverMetrics;
}

/**
 * Starts the data plane on this thread and waits until its roles listen. Its `failed` never
 * resolves: a failure at run time is an uncaught exception of this process, which ends it with
 * status 1 as the death of a data-plane thread would (docs/operations.md "Threads").
 */
async function startInProcess(
  opts: DataPlaneOptions,
  resolver: DataPlaneResolverOptions | null,
  blockPage: DataPlaneBlockPageOptions | null,
): Promise<RunningDataPlane> {
  // Loaded only here: a host that starts threads does not evaluate the roles' code itself.
  const { runDataPlane } = await import('./run.ts');
  const run = await runDataPlane(
    {
      connection: opts.connection,
      logLevel: opts.logLevel ?? opts.logger.level,
      resolver,
      blockPage,
      changePollMs: opts.changePollMs ?? 500,
    },
    opts.logger,
  );
  let closed = false;
  return {
    dns: run.dns,
    blockPage: run.blockPage,
    blockPageHttps: run.blockPageHttps,
    relay(topic) {
      if (!closed) run.deliver(topic);
    },
    metrics() {
      // A copy, as from a thread: the caller may keep it while the counters move on.
      return Promise.resolve(!closed && run.resolver ? structuredClone(run.resolver.metrics) : null);
    },
    async reconfigure(change) {
      if (!closed) run.reconfigure(change);
    },
    failed: new Promise<Error>(() => undefined),
    close() {
      closed = true;
      return run.close();
    },
  };
}

/** Starts one data-plane thread and waits until its roles listen. */
async function startOne(
  opts: DataPlaneOptions,
  resolver: DataPlaneResolverOptions | null,
  blockPage: DataPlaneBlockPageOptions | null,
  startThread: (workerData: DataPlaneWorkerData) => Worker,
): Promise<RunningDataPlane> {
  const worker = startThread({
    connection: opts.connection,
    logLevel: opts.logLevel ?? opts.logger.level,
    resolver,
    blockPage,
    changePollMs: opts.changePollMs ?? 500,
  });
  const post = (m: ToDataPlane) => worker.postMessage(m);

  let state: 'starting' | 'running' | 'closing' | 'ended' = 'starting';
  let lastError: Error | null = null;
  let seq = 0;
  const metricsWaiters = new Map<number, (m: ResolverMetrics | null) => void>();
  const reconfigureWaiters = new Map<number, (error: Error | null) => void>();
  let onReady: (m: Extract<FromDataPlane, { kind: 'ready' }>) => void = () => undefined;
  let onStartFailed: (err: Error) => void = () => undefined;
  let onClosed: () => void = () => undefined;
  let fail: (err: Error) => void = () => undefined;
  const failed = new Promise<Error>((resolve) => {
    fail = resolve;
  });

  worker.on('message', (m: FromDataPlane) => {
    switch (m.kind) {
      case 'ready':
        onReady(m);
        return;
      case 'failed':
        onStartFailed(fromThreadError(m.error));
        return;
      case 'metrics':
        metricsWaiters.get(m.seq)?.(m.metrics);
        metricsWaiters.delete(m.seq);
        return;
      case 'reconfigured':
        reconfigureWaiters.get(m.seq)?.(m.error ? fromThreadError(m.error) : null);
        reconfigureWaiters.delete(m.seq);
        return;
      case 'closed':
        onClosed();
        return;
    }
  });
  worker.on('error', (err) => {
    lastError = err;
    if (state !== 'starting') opts.logger.error({ role: 'serve', err }, 'data-plane thread failed');
  });
  worker.on('exit', (code) => {
    const was = state;
    state = 'ended';
    for (const done of metricsWaiters.values()) done(null);
    metricsWaiters.clear();
    for (const done of reconfigureWaiters.values()) done(null);
    reconfigureWaiters.clear();
    const cause = lastError ?? new Error(`data-plane thread exited with code ${code}`);
    if (was === 'starting') onStartFailed(cause);
    else if (was === 'running') fail(cause);
    onClosed();
  });

  const ready = await new Promise<Extract<FromDataPlane, { kind: 'ready' }>>((resolve, reject) => {
    onReady = resolve;
    onStartFailed = reject;
  }).catch(async (err: unknown) => {
    state = 'ended';
    await worker.terminate();
    throw err;
  });
  state = 'running';

  let closing: Promise<void> | null = null;
  return {
    dns: ready.dns,
    blockPage: ready.blockPage,
    blockPageHttps: ready.blockPageHttps ?? null,
    relay(topic) {
      if (state === 'running') post({ kind: 'changed', topic });
    },
    metrics() {
      if (state !== 'running') return Promise.resolve(null);
      const id = ++seq;
      return new Promise((resolve) => {
        metricsWaiters.set(id, resolve);
        post({ kind: 'metrics', seq: id });
      });
    },
    async reconfigure(change) {
      if (state !== 'running') return;
      const id = ++seq;
      const error = await new Promise<Error | null>((resolve) => {
        reconfigureWaiters.set(id, resolve);
        post({ kind: 'reconfigure', seq: id, change });
      });
      if (error) throw error;
    },
    failed,
    close() {
      if (closing) return closing;
      if (state !== 'running') {
        closing = Promise.resolve();
        return closing;
      }
      state = 'closing';
      closing = new Promise<void>((resolve) => {
        onClosed = resolve;
        post({ kind: 'close' });
      }).then(async () => {
        await worker.terminate();
      });
      return closing;
    },
  };
}
