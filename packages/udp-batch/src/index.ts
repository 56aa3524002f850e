/**
 * `@cordon/udp-batch`: batched UDP receive and send (Linux `recvmmsg(2)` / `sendmmsg(2)`) for the
 * resolver's UDP transport (docs/decisions.md "Batched UDP"). The native part (src/udp_batch.cc)
 * is built from source by the package's `install` script when a compiler is present; without it
 * {@link loadUdpBatch} returns null and the resolver uses `node:dgram`. The binding does UDP I/O
 * only; the query-log writer's `SCHED_IDLE` and idle gate are a second module, {@link loadSchedIdle}
 * (docs/decisions.md "The addon does UDP I/O only"). `test/sanitize.sh` runs the package's tests
 * against a build with AddressSanitizer and UndefinedBehaviorSanitizer.
 */
import { createRequire } from 'node:module';
import path from 'node:path';

/** Bytes of one source-address record: [0] family 4 | 6, [2..3] port (big-endian), [4..19] address. */
export const ADDR_BYTES = 20;

/** The native module's functions (src/udp_batch.cc). */
export interface UdpBatchBinding {
  /**
   * Binds a non-blocking UDP socket (dual-stack when `host` is IPv6; SO_REUSEPORT when asked) and
   * watches it on the calling thread's event loop. When readable it receives up to `lens.length / 2`
   * datagrams into `inArena` (slot i at `i * inSlot`; `lens[i]` its length, -1 when larger than
   * the slot: MSG_TRUNC), their sources into `addrs`, zeroes `lens[batch + i]` and calls
   * `onBatch(count)` once; then sends, in one `sendmmsg`, every slot i for which `onBatch` wrote
   * an answer into `outArena` at `i * outSlot` and its length into `lens[batch + i]`.
   * `onBatch(count)` runs with the microtask queue drained after it, like any I/O callback.
   * The arenas must stay attached and as long as at open: one detached (its buffer transferred) or
   * shrunk is found before the next receive or send, the socket is closed and an uncaught
   * `ERR_UDP_BATCH_ARENA` error raised (nothing is read or written through the old memory).
   * A socket error reported by the event loop closes it likewise (`ERR_UDP_BATCH_SOCKET`).
   * @throws Error with `code` (`EADDRINUSE`, `EACCES`, `ENOMEM`…) when the socket cannot be bound
   *   or set up; TypeError for bad arguments: a detached arena, slots outside 1..65536 bytes,
   *   `lens` outside 2..2048 entries, arenas shorter than the batch, a host that is no IP address
   */
  open(
    host: string,
    port: number,
    recvBufferBytes: number,
    reusePort: boolean,
    inArena: Uint8Array,
    outArena: Uint8Array,
    inSlot: number,
    outSlot: number,
    lens: Int32Array,
    addrs: Uint8Array,
    onBatch: (count: number) => void,
  ): UdpBatchHandle;
  /** Stops receiving and closes the socket; safe to call twice (also from inside `onBatch`). */
  close(handle: UdpBatchHandle): void;
  /**
   * Sends one datagram to the source of an address record (an answer that came after its batch).
   * @returns 0, or the errno of a failed send (the datagram is dropped): `EBADF` once closed,
   *   `EAFNOSUPPORT` for a record of no family the socket reaches, `EMSGSIZE` beyond 65,527 bytes
   * @throws TypeError when `bytes` or `addr` is not a Uint8Array, is detached, or `addr` is shorter than {@link ADDR_BYTES}
   */
  sendTo(handle: UdpBatchHandle, bytes: Uint8Array, addr: Uint8Array): number;
  /** The bound port and family, the kernel's SO_RCVBUF (Linux reports twice what it grants) and the counters. */
  info(handle: UdpBatchHandle): UdpBatchInfo;
}

/** An open batched socket (opaque). */
export type UdpBatchHandle = { readonly __udpBatch: unique symbol };

/** {@link UdpBatchBinding.info}: counters are totals since open. */
export interface UdpBatchInfo {
  port: number;
  family: 4 | 6;
  recvBufferBytes: number;
  /** recvmmsg calls that returned at least one datagram. */
  batches: number;
  received: number;
  sent: number;
  sendErrors: number;
  /** Datagrams larger than their slot (dropped). */
  truncated: number;
  recvErrors: number;
}

/**
 * The query-log writer's thread scheduling (src/sched_idle.cc), a module of its own so that the
 * batched UDP binding does UDP I/O only (docs/decisions.md "The addon does UDP I/O only").
 */
export interface SchedIdleBinding {
  /**
   * Blocks the calling thread until a core has had nothing else to run since the call: the
   * process's gate thread, at `SCHED_IDLE` and started at the first call, answers each request when
   * the kernel lets it run. The query-log writer waits here before each transaction and then writes
   * at normal priority, so that it never holds a lock while starved
   * (docs/decisions.md "Query-log writes wait for an idle core").
   * @param timeoutMs how long to block at most, ms
   * @returns 1 once a core was free, 0 when `timeoutMs` passed first, or -errno when the gate thread
   *   cannot be started (`pthread_create(3)`) or was refused `SCHED_IDLE` (`sched_setscheduler(2)`)
   * @throws TypeError when `timeoutMs` is not a whole number ≥ 0
   */
  waitForIdleCore(timeoutMs: number): number;
}

/** A native module of this package: the binding (null when absent) and why it is absent. */
interface Loaded<T> {
  binding: T | null;
  error: string | null;
}

/**
 * Loads `build/Release/<name>.node`: beside the sources, or, from the CLI bundle (one file in
 * apps/cli/dist), through node_modules/@cordon/udp-batch resolved at run time.
 */
function loadNative<T>(name: string): Loaded<T> {
  const require = createRequire(import.meta.url);
  const candidates = [new URL(`../build/Release/${name}.node`, import.meta.url).pathname];
  try {
    candidates.push(
      path.join(path.dirname(require.resolve('@cordon/udp-batch/package.json')), `build/Release/${name}.node`),
    );
  } catch {
    // Not installed as a package: only the path beside the sources is tried.
  }
  let error: string | null = null;
  for (const file of candidates) {
    try {
      return { binding: require(file) as T, error: null };
    } catch (err) {
      error = err instanceof Error ? err.message : String(err);
    }
  }
  return { binding: null, error };
}

let udpBatch: Loaded<UdpBatchBinding> | undefined;
let schedIdle: Loaded<SchedIdleBinding> | undefined;

/**
 * The native binding, or null when it was not built (no compiler at install, not Linux) or fails
 * to load; {@link udpBatchUnavailableReason} says why. Loaded once per thread.
 */
export function loadUdpBatch(): UdpBatchBinding | null {
  udpBatch ??= loadNative<UdpBatchBinding>('udp_batch');
  return udpBatch.binding;
}

/** Why {@link loadUdpBatch} returned null (null when it loaded or was not tried). */
export function udpBatchUnavailableReason(): string | null {
  return udpBatch?.error ?? null;
}

/** The thread-scheduling binding, or null when it was not built or fails to load. Loaded once per thread. */
export function loadSchedIdle(): SchedIdleBinding | null {
  schedIdle ??= loadNative<SchedIdleBinding>('sched_idle');
  return schedIdle.binding;
}
