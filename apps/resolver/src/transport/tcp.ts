import net, { type AddressInfo } from 'node:net';
import { canonicalIp } from '@cordon/shared';
import type { Logger } from 'pino';
import type { DnsProtocol } from '../dns/request.ts';
import { ResolverCounters } from '../metrics.ts';
import { connectionSourceKey } from './client-prefix.ts';
import type { Exchange } from './exchange.ts';

/** A listening TCP DNS server. */
export interface TcpServer {
  readonly address: AddressInfo;
  /** Connections open now. */
  readonly connections: number;
  close(): Promise<void>;
}

/**
 * TCP limits (`ResolverOptions.tcp`; RFC 7766 §6.2, docs/operations.md "Hostile clients"). All
 * plain numbers, so the options stay serialisable. DNS over TLS applies the same limits to its
 * connections (RFC 7858 §3.4 keeps RFC 7766's connection handling).
 */
export interface TcpOptions {
  /** Close a connection with nothing received and nothing outstanding for this long, ms (RFC 7766 §6.2.3: seconds). Default 10,000. */
  idleMs?: number;
  /** A message whose first byte has arrived must be complete within this, ms (slow-drip clients). Default 2,000. */
  messageTimeoutMs?: number;
  /** Close a connection whose answers stay unread (write buffer full, no 'drain') this long, ms. Default 5,000. */
  writeTimeoutMs?: number;
  /** Queries of one connection answered concurrently before reading pauses (bounded pipelining). Default 100. */
  maxInFlight?: number;
  /** Open connections in all; more are destroyed at accept. Default 1,000. */
  maxConnections?: number;
  /** Open connections per IPv4 address / IPv6 /64; more are destroyed at accept. Default 20. */
  maxConnectionsPerSource?: number;
}

/** The defaults of {@link TcpOptions}. */
export const TCP_DEFAULTS: Readonly<Required<TcpOptions>> = Object.freeze({
  idleMs: 10_000,
  messageTimeoutMs: 2_000,
  writeTimeoutMs: 5_000,
  maxInFlight: 100,
  maxConnections: 1_000,
  maxConnectionsPerSource: 20,
});

/**
 * The length-prefixed transports that share {@link createStreamHandler}: DNS over TCP (RFC 7766)
 * and DNS over TLS (RFC 7858), which frames its messages the same way inside TLS (§3.3).
 */
export type StreamProtocol = Extract<DnsProtocol, 'tcp' | 'dot'>;

/** One connection's state; a class so every instance has one shape. Times are `performance.now()` ms. */
class Connection {
  pending: Buffer = Buffer.alloc(0);
  inFlight = 0;
  /** The last write returned false: output is not being read; waiting for 'drain'. */
  blocked = false;
  /** Reading paused by us (blocked, or too many queries in flight). */
  paused = false;
  lastActive: number;
  /** When the first byte of the incomplete message at the head of `pending` arrived; -1: none. */
  messageStart = -1;
  /** When the output became blocked; -1: it is not. */
  blockedSince = -1;
  constructor(
    readonly socket: net.Socket,
    readonly clientIp: string,
    /** The key the connection names (DoT: from its SNI host name), checked again per query; null: none. */
    readonly key: string | null,
    now: number,
  ) {
    this.lastActive = now;
  }
}

/**
 * The connection handling of the stream transports: admission under the connection caps, framing,
 * bounded pipelining, backpressure and deadlines. `admit` takes the accepted socket (before any TLS
 * work), `serve` the stream that carries the DNS messages — the same socket for TCP, the
 * `tls.TLSSocket` over it once its handshake is done for DoT.
 */
export interface StreamHandler {
  /**
   * Counts a newly accepted socket against `maxConnections` and `maxConnectionsPerSource`, until
   * it closes.
   * @returns the client's address (canonical, {@link canonicalIp}), or null when over a cap: the
   *   socket is then destroyed and counted as refused
   */
  admit(socket: net.Socket): string | null;
  /** Serves DNS messages on an admitted connection's stream; `key` is handed to the exchange while `knowsKey` accepts it. */
  serve(stream: net.Socket, clientIp: string, key: string | null): void;
  /** Connections being served now. */
  readonly connections: number;
  /** Destroys every connection and stops the deadline sweep. */
  close(): void;
}

/** Settings of {@link createStreamHandler} beyond the limits. */
export interface StreamHandlerOptions {
  /** The protocol handed to the exchange (and so logged); also picks the counters of refusals and queries. */
  protocol: StreamProtocol;
  /** True while a connection's key names a device or a location key (DoT); default: never. */
  knowsKey?: (key: string) => boolean;
}

/**
 * Builds the one connection handler of DNS over TCP and DNS over TLS (RFC 1035 §4.2.2, RFC 7766,
 * RFC 7858 §3.3): each message is preceded by its 2-byte length; a connection carries any number
 * of queries, answered as they complete (out of order is allowed, RFC 7766 §7). Hardened against
 * hostile clients (RFC 7766 §6.2, docs/operations.md "Hostile clients"):
 * - reading pauses while the connection's output is unread (a write returned false) and resumes
 *   on 'drain', so a client that never reads holds at most about one write high-water mark
 *   (16 KiB) plus its in-flight answers; output unread for `writeTimeoutMs` closes it;
 *   reading also pauses while `maxInFlight` queries are being resolved;
 * - a started message must complete within `messageTimeoutMs`, and a connection with nothing
 *   received nor outstanding for `idleMs` is closed;
 * - beyond `maxConnections` in all or `maxConnectionsPerSource` per IPv4 address / IPv6 /64, a
 *   new connection is destroyed at once (at accept: before any TLS work for DoT);
 * - a frame shorter than a DNS header (12 bytes) closes the connection unanswered.
 * Deadlines are checked by one sweep timer per handler (a quarter of the shortest limit, ≥ 5 ms),
 * not a timer per message. Every close is counted in `counters` (the `tcp*` counters, for both
 * protocols); refusals at accept in `tcpRefused` or `dotRejected`, DoT queries in `dotQueries`.
 * @throws RangeError for a limit that is not a positive number
 */
export function createStreamHandler(
  exchange: Exchange,
  logger: Logger,
  opts: TcpOptions,
  counters: ResolverCounters,
  settings: StreamHandlerOptions,
): StreamHandler {
  const limits = { ...TCP_DEFAULTS };
  for (const k of Object.keys(TCP_DEFAULTS) as (keyof TcpOptions)[]) {
    const v = opts[k];
    if (v === undefined) continue;
    if (!(v > 0)) throw new RangeError(`TCP ${k} must be a positive number, got ${v}`);
    limits[k] = v;
  }
  const { idleMs, messageTimeoutMs, writeTimeoutMs, maxInFlight, maxConnections, maxConnectionsPerSource } = limits;
  const protocol = settings.protocol;
  const dot = protocol === 'dot';
  const knowsKey = settings.knowsKey ?? (() => false);
  const connections = new Set<Connection>();
  const perSource = new Map<string, number>();
  /** Sockets admitted and not yet closed (DoT: handshakes in progress included). */
  let admitted = 0;

  const write = (c: Connection, wire: Buffer): void => {
    const socket = c.socket;
    if (socket.destroyed) return;
    const frame = Buffer.allocUnsafe(wire.length + 2);
    frame.writeUInt16BE(wire.length, 0);
    wire.copy(frame, 2);
    const flowing = socket.write(frame);
    const buffered = socket.writableLength;
    if (buffered > counters.tcpPeakWriteBuffer) counters.tcpPeakWriteBuffer = buffered;
    if (!flowing && !c.blocked) {
      c.blocked = true;
      c.blockedSince = performance.now();
      counters.tcpBackpressurePauses++;
    }
  };

  /** Pauses or resumes reading to match the connection's state; on resume, works off what is buffered. */
  const flow = (c: Connection): void => {
    const hold = c.blocked || c.inFlight >= maxInFlight;
    if (hold && !c.paused) {
      c.paused = true;
      c.socket.pause();
    } else if (!hold && c.paused && !c.socket.destroyed) {
      c.paused = false;
      c.messageStart = -1;
      c.socket.resume();
      if (c.pending.length > 0) work(c);
    }
  };

  /** Answers the complete messages buffered, until the connection must hold. */
  const work = (c: Connection): void => {
    const socket = c.socket;
    let consumed = false;
    while (!c.blocked && c.inFlight < maxInFlight && c.pending.length >= 2) {
      const len = c.pending.readUInt16BE(0);
      if (len < 12) {
        // No DNS message is shorter than its header: nothing to answer, and the stream is not DNS.
        counters.malformed++;
        counters.tcpMalformedClosed++;
        socket.destroy();
        return;
      }
      if (c.pending.length < len + 2) break;
      const message = Buffer.from(c.pending.subarray(2, len + 2));
      c.pending = c.pending.subarray(len + 2);
      consumed = true;
      if (dot) counters.dotQueries++;
      // A key removed since the handshake no longer identifies: the source address does.
      const out = exchange(message, c.clientIp, protocol, c.key !== null && knowsKey(c.key) ? c.key : null);
      if (out === null) continue;
      if (!(out instanceof Promise)) {
        write(c, out);
        continue;
      }
      c.inFlight++;
      out.then(
        (wire) => {
          c.inFlight--;
          c.lastActive = performance.now();
          if (wire) write(c, wire);
          flow(c);
        },
        (err: unknown) => {
          c.inFlight--;
          logger.error({ err, protocol }, 'stream exchange failed');
          flow(c);
        },
      );
    }
    if (c.pending.length === 0) c.messageStart = -1;
    else if (consumed || c.messageStart < 0) c.messageStart = performance.now();
    flow(c);
  };

  const sweep = (): void => {
    const now = performance.now();
    for (const c of connections) {
      if (c.socket.destroyed) continue;
      if (c.blocked) {
        if (now - c.blockedSince > writeTimeoutMs) {
          counters.tcpStalledClosed++;
          c.socket.destroy();
        }
      } else if (!c.paused && c.messageStart >= 0 && now - c.messageStart > messageTimeoutMs) {
        counters.tcpDeadlineClosed++;
        c.socket.destroy();
      } else if (c.inFlight === 0 && c.pending.length === 0 && now - c.lastActive > idleMs) {
        counters.tcpIdleClosed++;
        c.socket.destroy();
      }
    }
  };
  const sweeper = setInterval(sweep, Math.max(5, Math.min(idleMs, messageTimeoutMs, writeTimeoutMs) / 4));
  sweeper.unref();

  return {
    admit(socket) {
      socket.on('error', () => socket.destroy());
      const clientIp = canonicalIp(socket.remoteAddress ?? '');
      const sourceKey = connectionSourceKey(clientIp);
      const fromSource = perSource.get(sourceKey) ?? 0;
      if (admitted >= maxConnections || fromSource >= maxConnectionsPerSource) {
        if (dot) counters.dotRejected++;
        else counters.tcpRefused++;
        socket.destroy();
        return null;
      }
      admitted++;
      perSource.set(sourceKey, fromSource + 1);
      socket.setNoDelay(true);
      socket.once('close', () => {
        admitted--;
        const n = (perSource.get(sourceKey) ?? 1) - 1;
        if (n > 0) perSource.set(sourceKey, n);
        else perSource.delete(sourceKey);
      });
      return clientIp;
    },
    serve(stream, clientIp, key) {
      if (stream.destroyed) return;
      const c = new Connection(stream, clientIp, key, performance.now());
      connections.add(c);
      stream.on('error', () => stream.destroy());
      stream.on('close', () => connections.delete(c));
      stream.on('drain', () => {
        c.blocked = false;
        c.blockedSince = -1;
        flow(c);
      });
      stream.on('data', (chunk: Buffer) => {
        c.lastActive = performance.now();
        c.pending = c.pending.length === 0 ? chunk : Buffer.concat([c.pending, chunk]);
        work(c);
      });
    },
    get connections() {
      return connections.size;
    },
    close() {
      clearInterval(sweeper);
      for (const c of connections) c.socket.destroy();
    },
  };
}

/**
 * Serves DNS over TCP (RFC 1035 §4.2.2, RFC 7766) on `host:port` with the connection handling and
 * hostile-client limits of {@link createStreamHandler} (protocol `tcp`).
 * @throws RangeError for a limit that is not a positive number; rejects when the address cannot be bound
 */
export function startTcpServer(
  host: string,
  port: number,
  exchange: Exchange,
  logger: Logger,
  opts: TcpOptions = {},
  counters: ResolverCounters = new ResolverCounters(),
): Promise<TcpServer> {
  const handler = createStreamHandler(exchange, logger, opts, counters, { protocol: 'tcp' });
  const server = net.createServer((socket) => {
    const clientIp = handler.admit(socket);
    if (clientIp !== null) handler.serve(socket, clientIp, null);
  });
  return new Promise((resolve, reject) => {
    server.once('error', (err) => {
      handler.close();
      reject(err);
    });
    server.listen(port, host, () => {
      server.removeAllListeners('error');
      server.on('error', (err) => logger.error({ err }, 'tcp server error'));
      resolve({
        address: server.address() as AddressInfo,
        get connections() {
          return handler.connections;
        },
        close: () =>
          new Promise((r) => {
            handler.close();
            server.close(() => r());
          }),
      });
    });
  });
}
