import dgram from 'node:dgram';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import { canonicalIp } from '@cordon/shared';
import { loadUdpBatch, udpBatchUnavailableReason } from '@cordon/udp-batch';
import type { Logger } from 'pino';
import { decodeQuery, truncatedResponse } from '../dns/message.ts';
import { ResolverCounters } from '../metrics.ts';
import type { Exchange } from './exchange.ts';
import {
  AMPLIFYING_ANSWER_BYTES,
  DEFAULT_LOCATION_RATE,
  DEFAULT_RRL_SLIP,
  ResponseRateLimiter,
  RRL_PASS,
  RRL_SLIP,
  type RrlOptions,
} from './rrl.ts';
import { type DatagramHandler, startBatched } from './udp-batched.ts';

/** A listening UDP DNS server. */
export interface UdpServer {
  readonly address: AddressInfo;
  /** The path in use: `batch` (recvmmsg / sendmmsg) or `dgram`. */
  readonly backend: 'batch' | 'dgram';
  /**
   * `batches`: receive calls that returned datagrams (batch path; 0 on dgram), so queries ÷
   * batches is the mean batch size; `sendErrors`: answers the kernel refused to send (dropped).
   */
  stats(): { batches: number; sendErrors: number };
  /** The socket's receive buffer as the kernel reports it, bytes (Linux reports twice what it grants). */
  readonly recvBufferBytes: number;
  close(): Promise<void>;
}

/** UDP settings (`ResolverOptions.udp` and `ResolverOptions.rrl`). */
export interface UdpOptions {
  /**
   * Receive buffer (SO_RCVBUF) to ask for, bytes, so bursts queue in the kernel instead of being
   * dropped while the thread is busy. Default {@link DEFAULT_UDP_RECV_BUFFER}; 0 keeps the
   * system default. Linux caps it at `net.core.rmem_max`: the effective size is logged, a
   * refusal is logged and ignored.
   */
  recvBufferBytes?: number;
  /**
   * Response-rate limiting (see {@link ResponseRateLimiter}); rate 0 turns it off. It applies to
   * sources no location claims and to amplifying answers ({@link AMPLIFYING_ANSWER_BYTES}, ANY)
   * to claimed ones.
   */
  rrl?: RrlOptions;
  /**
   * Queries per second per claimed location (`--location-rate-limit`); default
   * {@link DEFAULT_LOCATION_RATE}; 0 turns the limit off. Its slip is the RRL's.
   */
  locationRate?: number;
  /**
   * The location claiming a source address by its address (static, dynamic-IP, dynamic-DNS), or 0
   * (`SnapshotStore.claimedLocation`). Without it every source is unclaimed.
   */
  claimedLocation?: (clientIp: string) => number;
  /**
   * Receive/send path: `batch` (recvmmsg / sendmmsg through `@cordon/udp-batch`, docs/decisions.md
   * "Batched UDP"), `dgram` (node:dgram, one system call per datagram), or `auto` (default: `batch`
   * when the addon is built, else `dgram`). `batch` without the addon rejects.
   */
  backend?: UdpBackend;
  /**
   * Bind with SO_REUSEPORT so several threads share the port and the kernel spreads datagrams
   * among them (`--resolver-threads`). Needs the `batch` backend: rejects with `dgram`.
   */
  reusePort?: boolean;
}

/** {@link UdpOptions.backend}. */
export type UdpBackend = 'auto' | 'batch' | 'dgram';

/**
 * Largest UDP query accepted, bytes: the batched path receives into slots of this size and drops
 * a longer datagram (MSG_TRUNC); the dgram path drops it too, so both behave alike. Counted in
 * `malformed`. Real queries are far below it (a name is at most 255 bytes, RFC 1035 §2.3.4).
 */
export const MAX_UDP_QUERY = 4096;

/** Resolution of the response-rate limiter's clock, ms. */
const CLOCK_TICK_MS = 10;

/** Default UDP receive buffer asked for: 8 MiB. */
export const DEFAULT_UDP_RECV_BUFFER = 8 * 1024 * 1024;

/**
 * Serves DNS over UDP (RFC 1035 §4.2.1) on `host:port` (udp6 when `host` is IPv6, else udp4).
 * Each datagram is one query; answers go back to the sender (at once when the pipeline answered
 * synchronously). Port 0 picks a free port. With response-rate limiting on, each datagram is
 * first charged to its source prefix; a limited one is dropped, or answered with an empty TC=1
 * answer when it slips, before any decoding or pipeline work (counted in `rateLimited` and
 * `slipped`). Two receive/send paths behave alike ({@link UdpOptions.backend}): batched
 * `recvmmsg` / `sendmmsg` through `@cordon/udp-batch` when built, else node:dgram.
 * @throws RangeError for invalid RRL settings; rejects when the address cannot be bound (the
 *   error's `code`, e.g. `EADDRINUSE`), for `backend: 'batch'` or `reusePort` without the addon
 */
export function startUdpServer(
  host: string,
  port: number,
  exchange: Exchange,
  logger: Logger,
  opts: UdpOptions = {},
  counters: ResolverCounters = new ResolverCounters(),
): Promise<UdpServer> {
  const backend = opts.backend ?? 'auto';
  const binding = backend === 'dgram' ? null : loadUdpBatch();
  if (backend === 'batch' && binding === null) {
    return Promise.reject(
      new Error(
        `udp: the batch backend is not built (@cordon/udp-batch: ${udpBatchUnavailableReason() ?? 'not loaded'})`,
      ),
    );
  }
  if (opts.reusePort && binding === null) {
    return Promise.reject(
      new Error(
        backend === 'dgram'
          ? 'udp: SO_REUSEPORT (several resolver threads) needs the batch backend, not dgram'
          : `udp: SO_REUSEPORT (several resolver threads) needs the batch backend (@cordon/udp-batch), which is not built: ${udpBatchUnavailableReason() ?? 'not loaded'}`,
      ),
    );
  }
  const rate = opts.rrl?.ratePerSecond;
  const locationRate = opts.locationRate ?? DEFAULT_LOCATION_RATE;
  // A coarse clock for the limiters: reading the real one per datagram costs more than the check.
  const clock = coarseClock(CLOCK_TICK_MS);
  const rrl = rate === 0 ? null : new ResponseRateLimiter(opts.rrl ?? {}, clock.read);
  const perLocation =
    locationRate === 0 || opts.claimedLocation === undefined
      ? null
      : new ResponseRateLimiter(
          { ratePerSecond: locationRate, slip: opts.rrl?.slip ?? DEFAULT_RRL_SLIP, tableSize: LOCATION_TABLE },
          clock.read,
        );
  const answer = datagramHandler(exchange, rrl, perLocation, opts.claimedLocation ?? null, counters);
  const handle: DatagramHandler =
    rrl || perLocation
      ? (msg, clientIp) => {
          clock.touch();
          return answer(msg, clientIp);
        }
      : answer;
  const wanted = opts.recvBufferBytes ?? DEFAULT_UDP_RECV_BUFFER;
  const started =
    binding !== null
      ? startBatched(binding, host, port, handle, () => counters.malformed++, logger, wanted, opts.reusePort === true)
      : startDgram(host, port, handle, logger, wanted);
  return started.then(
    (server) => {
      logger.info(
        { backend: server.backend, requested: wanted, effective: server.recvBufferBytes },
        'udp receive buffer (Linux caps at net.core.rmem_max and reports twice what it grants)',
      );
      return {
        ...server,
        close: async () => {
          clock.stop();
          await server.close();
        },
      };
    },
    (err: unknown) => {
      clock.stop();
      throw err;
    },
  );
}

/**
 * A clock read without asking the system, refreshed every `tickMs` while datagrams arrive: `touch()`
 * (called per datagram: a test and a store) starts the refresh and reads the real clock when it was
 * stopped; a tick that finds no datagram since the one before stops it. An idle resolver then does
 * not wake 100 times a second (≈ 18 ms of CPU each second, per process, for nothing), and the first
 * datagram after a pause still sees the time of its arrival.
 * @param tickMs the resolution while datagrams arrive, ms
 * @returns `read` (ms, `performance.now()`'s scale), `touch`, and `stop` (for closing)
 */
function coarseClock(tickMs: number): { read: () => number; touch: () => void; stop: () => void } {
  let now = performance.now();
  let seen = false;
  let timer: NodeJS.Timeout | undefined;
  const stop = () => {
    clearInterval(timer);
    timer = undefined;
  };
  const tick = () => {
    now = performance.now();
    if (!seen) stop();
    seen = false;
  };
  return {
    read: () => now,
    touch: () => {
      seen = true;
      if (timer !== undefined) return;
      now = performance.now();
      timer = setInterval(tick, tickMs).unref();
    },
    stop,
  };
}

/** Locations tracked at once by the per-location limiter (the memory bound: 29 bytes a slot). */
const LOCATION_TABLE = 16_384;

/** QTYPE ANY (RFC 8482). */
const QTYPE_ANY = 255;

/**
 * The QTYPE of a query's first question (RFC 1035 §4.1.2), read in place; -1 when the name runs
 * past the message or is compressed (never in a well-formed query). No allocation.
 */
export function queryType(msg: Buffer): number {
  let off = 12;
  for (;;) {
    if (off >= msg.length) return -1;
    const len = msg[off]!;
    if (len === 0) break;
    if (len >= 0xc0) return -1;
    off += len + 1;
  }
  return off + 2 < msg.length ? (msg[off + 1]! << 8) | msg[off + 2]! : -1;
}

/**
 * One datagram's work, the same on both paths (docs/operations.md "Response-rate limiting"):
 *
 * - a source some location claims by address is charged to that location's limit (`perLocation`)
 *   before any decoding or pipeline work; its answer is then charged to its prefix's RRL bucket only
 *   when amplifying (more than {@link AMPLIFYING_ANSWER_BYTES} bytes, or an ANY question);
 * - any other source is charged to its prefix's RRL bucket first, as BIND and Knot do.
 *
 * A limited query is dropped, or answered with an empty TC=1 answer when it slips. Returns what to
 * send (null: nothing), or a promise of it.
 */
function datagramHandler(
  exchange: Exchange,
  rrl: ResponseRateLimiter | null,
  perLocation: ResponseRateLimiter | null,
  claimedLocation: ((clientIp: string) => number) | null,
  counters: ResolverCounters,
): DatagramHandler {
  /** What a limited query gets: nothing, or the empty TC=1 answer of a slip. */
  const limited = (verdict: number, msg: Buffer, clientIp: string): Buffer | null => {
    if (verdict !== RRL_SLIP) return null;
    const decoded = decodeQuery(msg, clientIp, 'udp');
    if (decoded.kind !== 'ok') return null;
    counters.slipped++;
    return truncatedResponse(decoded.request);
  };
  /** The answer to a claimed source, unless amplifying and over its prefix's RRL. */
  const amplifying = (wire: Buffer | null, msg: Buffer, clientIp: string): Buffer | null => {
    if (wire === null || rrl === null) return wire;
    if (wire.length <= AMPLIFYING_ANSWER_BYTES && queryType(msg) !== QTYPE_ANY) return wire;
    const verdict = rrl.check(clientIp);
    if (verdict === RRL_PASS) return wire;
    counters.rateLimited++;
    return limited(verdict, msg, clientIp);
  };
  return (msg, clientIp) => {
    if (msg.length > MAX_UDP_QUERY) {
      counters.malformed++;
      return null;
    }
    const location = claimedLocation === null ? 0 : claimedLocation(clientIp);
    if (location > 0) {
      if (perLocation !== null) {
        const verdict = perLocation.checkLocation(location);
        if (verdict !== RRL_PASS) {
          counters.locationLimited++;
          return limited(verdict, msg, clientIp);
        }
      }
      const out = exchange(msg, clientIp, 'udp');
      if (rrl === null) return out;
      if (!(out instanceof Promise)) return amplifying(out, msg, clientIp);
      return out.then((wire) => amplifying(wire, msg, clientIp));
    }
    if (rrl !== null) {
      const verdict = rrl.check(clientIp);
      if (verdict !== RRL_PASS) {
        counters.rateLimited++;
        return limited(verdict, msg, clientIp);
      }
    }
    return exchange(msg, clientIp, 'udp');
  };
}

/** The node:dgram path: one `message` event and one `send` per datagram. */
function startDgram(
  host: string,
  port: number,
  handle: DatagramHandler,
  logger: Logger,
  wanted: number,
): Promise<UdpServer> {
  const socket = dgram.createSocket({ type: net.isIPv6(host) ? 'udp6' : 'udp4' });
  let sendErrors = 0;
  const sent = (err: Error | null) => {
    if (err) sendErrors++;
  };
  const send = (wire: Buffer, rinfo: dgram.RemoteInfo) => socket.send(wire, rinfo.port, rinfo.address, sent);
  socket.on('message', (msg, rinfo) => {
    const out = handle(msg, canonicalIp(rinfo.address));
    if (out === null) return;
    if (!(out instanceof Promise)) {
      send(out, rinfo);
      return;
    }
    out.then(
      (wire) => {
        if (wire) send(wire, rinfo);
      },
      (err: unknown) => logger.error({ err }, 'udp exchange failed'),
    );
  });
  return new Promise((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(port, host, () => {
      socket.off('error', reject);
      socket.on('error', (err) => logger.error({ err }, 'udp socket error'));
      if (wanted > 0) {
        try {
          socket.setRecvBufferSize(wanted);
        } catch (err) {
          logger.warn({ err, requested: wanted }, 'udp receive buffer size refused; keeping the system default');
        }
      }
      resolve({
        address: socket.address(),
        backend: 'dgram',
        recvBufferBytes: socket.getRecvBufferSize(),
        stats: () => ({ batches: 0, sendErrors }),
        close: () => new Promise((r) => socket.close(() => r())),
      });
    });
  });
}
