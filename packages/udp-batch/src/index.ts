/**
 * `@cordon/udp-batch`: batched UDP receive and send (Linux `recvmmsg(2)` / `sendmmsg(2)`) for the
 * resolver's UDP transport (docs/decisions.md "Batched UDP"). The native part (src/udp_batch.cc)
 * is built from source by the package's `install` script when a compiler is present; without it
 * {@link loadUdpBatch} returns null and the resolver uses `node:dgram`.
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
   * @throws Error with `code` (`EADDRINUSE`, `EACCES`…) when the socket cannot be bound; TypeError for bad arguments
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
   * @returns 0, or the errno of a failed send (the datagram is dropped)
   */
  sendTo(handle: UdpBatchHandle, bytes: Uint8Array, addr: Uint8Array): number;
  /** The bound port and family, the kernel's SO_RCVBUF (Linux reports twice what it grants) and the counters. */
  info(handle: UdpBatchHandle): UdpBatchInfo;
  /**
   * Moves thread `tid` of this process (0: the calling thread) to `SCHED_IDLE` (sched(7)): it runs
   * only when nothing else wants its core — the query-log writer thread, the runtime's helper
   * threads (docs/decisions.md "Query-log spool"). Lowering a priority needs no privilege.
   * @returns 0, or the errno of `sched_setscheduler(2)` (`ESRCH`: no such thread)
   * @throws TypeError when `tid` is not a whole number ≥ 0
   */
  idleThread(tid: number): number;
  /**
   * Gives the C heap's free pages back to the kernel (glibc `malloc_trim(3)` over every arena):
   * freed memory otherwise stays resident for reuse — after a snapshot load, tens of megabytes
   * (bench/README.md "Resolver memory").
   * @returns 1 when memory was released, 0 when none could be, -1 when the C library is not glibc
   */
  trimHeap(): number;
  /**
   * glibc `mallopt(3)`: `M_TRIM_THRESHOLD`, `M_MMAP_THRESHOLD` and `M_ARENA_MAX`, each left as it is
   * when -1. Setting either threshold turns off the dynamic thresholds (one freed large block
   * otherwise raises them up to 32 / 64 MiB, and the main heap's freed top is then kept);
   * `M_ARENA_MAX` bounds the arenas of threads that first allocate after the call.
   * bench/README.md "Resolver memory".
   * @returns 1 when set, 0 when glibc refused a value, -1 when the C library is not glibc
   * @throws TypeError when a value is neither -1 nor a whole number in range (trim 0 to 2^31 − 1
   *   bytes, mmap 0 to 32 MiB, arenas 1 to 1024)
   */
  tuneHeap(trimThresholdBytes: number, mmapThresholdBytes: number, arenaMax: number): number;
  /**
   * Takes the running executable's read-only pages out of the resident set (madvise(2)
   * `MADV_DONTNEED` on its private, read-only file mappings that hold no written page): startup
   * touches far more of node's code and data than a resolver then uses; what is used comes back
   * from the page cache on its next access (a minor fault). Mappings with a written page (RELRO)
   * are left alone. bench/README.md "Resolver memory", round 8.
   * @returns the bytes that were resident in the released mappings; -1 when `/proc/self` cannot be
   *   read (not Linux)
   */
  releaseExecutablePages(): number;
  /**
   * V8's `LowMemoryNotification` on the calling thread's isolate: full collections that compact the
   * old generation, shrink the young generation to its minimum and give the freed pages back at once
   * (one ordinary collection after a snapshot load left half of the old space committed, and the
   * young generation at its maximum). Pauses the thread ≈ 50–100 ms. bench/README.md "Resolver
   * memory", round 8.
   * @returns true when the thread has an isolate (always, from JavaScript)
   */
  releaseIsolateMemory(): boolean;
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

let loaded: UdpBatchBinding | null | undefined;
let loadError: string | null = null;

/**
 * The native binding, or null when it was not built (no compiler at install, not Linux) or fails
 * to load; {@link udpBatchUnavailableReason} says why. Loaded once per thread.
 */
export function loadUdpBatch(): UdpBatchBinding | null {
  if (loaded !== undefined) return loaded;
  const require = createRequire(import.meta.url);
  // From the sources the build sits beside src/; from the CLI bundle (one file in apps/cli/dist)
  // the package is found through node_modules/@cordon/udp-batch, resolved at run time.
  const candidates = [new URL('../build/Release/udp_batch.node', import.meta.url).pathname];
  try {
    candidates.push(
      path.join(path.dirname(require.resolve('@cordon/udp-batch/package.json')), 'build/Release/udp_batch.node'),
    );
  } catch {
    // Not installed as a package: only the path beside the sources is tried.
  }
  loaded = null;
  for (const file of candidates) {
    try {
      loaded = require(file) as UdpBatchBinding;
      loadError = null;
      break;
    } catch (err) {
      loadError = err instanceof Error ? err.message : String(err);
    }
  }
  return loaded;
}

/** Why {@link loadUdpBatch} returned null (null when it loaded or was not tried). */
export function udpBatchUnavailableReason(): string | null {
  return loadError;
}
