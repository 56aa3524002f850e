/**
 * Messages between `cordon serve`'s main thread ({@link DataPlane}, dataplane/host.ts) and the
 * data-plane thread (dataplane/entry.ts). Everything here crosses `postMessage`, so it is plain
 * data (structured clone): no functions, no class instances.
 */
import type { AddressInfo } from 'node:net';
import type { ChangeTopic, OpenDatabaseOptions } from '@cordon/db';
import type { ResolverMetrics, ResolverOptions } from '../index.ts';

/**
 * The resolver's settings as the data-plane thread receives them: {@link ResolverOptions} without
 * what the thread makes itself (database handle, change feed, logger). Every other field flows
 * through unchanged, so it must stay plain data.
 */
export type DataPlaneResolverOptions = Omit<ResolverOptions, 'db' | 'changes' | 'logger'>;

/**
 * The block page's listeners: HTTP, and HTTPS with the CA secret's text (the thread loads or
 * creates the root CA itself; docs/decisions.md "Root CA").
 */
export interface DataPlaneBlockPageOptions {
  http: { host: string; port: number };
  https?: { host: string; port: number; caSecret: string };
}

/** `workerData` of the data-plane thread. */
export interface DataPlaneWorkerData {
  /** The thread's own database connection (a SQLite file in WAL mode, or the PostgreSQL URL). */
  connection: OpenDatabaseOptions;
  /** pino level of the thread's logger (it writes to fd 1 itself, never through the main thread). */
  logLevel: string;
  /** Run the `resolver` role with these settings. */
  resolver: DataPlaneResolverOptions | null;
  /** Run the `blockpage` role on these addresses (port 0 picks one). */
  blockPage: DataPlaneBlockPageOptions | null;
  /** How often the thread's own change feed polls for other processes' changes, ms. */
  changePollMs: number;
}

/** An error as it crosses threads: structured clone would drop `code` (e.g. `EADDRINUSE`). */
export interface ThreadError {
  name: string;
  message: string;
  code?: string;
  stack?: string;
}

/**
 * Settings a running data plane takes without a restart (SIGHUP; docs/operations.md "Configuration
 * check and reload"); an absent field is left as it is.
 */
export interface DataPlaneReconfigure {
  /** The thread's pino level. */
  logLevel?: string;
  /** The resolver's upstreams. */
  upstreams?: Array<{ host: string; port: number }>;
  /** The DoH/DoT certificate chain and key (PEM), when they are configured as files. */
  tls?: { certPem: string; keyPem: string };
}

/** Main thread → data-plane thread. */
export type ToDataPlane =
  /** A topic the API published in this process (relayed at once; docs/architecture.md "Decision order" "within one second"). */
  | { kind: 'changed'; topic: ChangeTopic }
  | { kind: 'metrics'; seq: number }
  | { kind: 'reconfigure'; seq: number; change: DataPlaneReconfigure }
  /** Stop listening, flush the query log, close the connection, end the thread. */
  | { kind: 'close' };

/** Data-plane thread → main thread. */
export type FromDataPlane =
  | {
      kind: 'ready';
      dns: { udp: AddressInfo; tcp: AddressInfo; doh?: AddressInfo; dot?: AddressInfo } | null;
      blockPage: AddressInfo | null;
      blockPageHttps: AddressInfo | null;
    }
  /** Start failed; whatever had started is stopped again and the thread ends. */
  | { kind: 'failed'; error: ThreadError }
  | { kind: 'metrics'; seq: number; metrics: ResolverMetrics | null }
  /** The reconfiguration applied, or why not (what was applied before the error stays). */
  | { kind: 'reconfigured'; seq: number; error: ThreadError | null }
  | { kind: 'closed' };

/** `err` as plain data for {@link FromDataPlane}. */
export function toThreadError(err: unknown): ThreadError {
  if (!(err instanceof Error)) return { name: 'Error', message: String(err) };
  const code = (err as NodeJS.ErrnoException).code;
  return {
    name: err.name,
    message: err.message,
    ...(typeof code === 'string' ? { code } : {}),
    ...(err.stack ? { stack: err.stack } : {}),
  };
}

/** A {@link ThreadError} back as an `Error` (with its `code`), for the caller on the main thread. */
export function fromThreadError(e: ThreadError): Error {
  const err = new Error(e.message) as NodeJS.ErrnoException;
  err.name = e.name;
  if (e.code !== undefined) err.code = e.code;
  if (e.stack !== undefined) err.stack = e.stack;
  return err;
}
