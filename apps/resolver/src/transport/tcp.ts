import net, { type AddressInfo } from 'node:net';
import { canonicalIp } from '@cordon/shared';
import type { Logger } from 'pino';
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
 * plain numbers, so the options stay serialisable.
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
    readonly sourceKey: string,
    now: number,
  ) {
    this.lastActive = now;
  }
}

/**
 * Serves DNS over TCP (RFC 1035 §4.2.2, RFC 7766): each message is preceded by its 2-byte length;
 * a connection carries any number of queries, answered as they complete (out of order is allowed,
 * RFC 7766 §7). Hardened against hostile clients (RFC 7766 §6.2):
 * - reading pauses while the connection's output is unread (a write returned false) and resumes
 *   on 'drain', so a client that never reads holds at most about one write high-water mark
 *   (16 KiB) plus its in-flight answers; output unread for `writeTimeoutMs` closes it;
 *   reading also pauses while `maxInFlight` queries are being resolved;
 * - a started message must complete within `messageTimeoutMs`, and a connection with nothing
 *   received nor outstanding for `idleMs` is closed;
 * - beyond `maxConnections` in all or `maxConnectionsPerSource` per IPv4 address / IPv6 /64, a
 *   new connection is destroyed at once;
 * - a frame shorter than a DNS header (12 bytes) closes the connection unanswered.
 * Deadlines are checked by one sweep timer per server (a quarter of the shortest limit, ≥ 5 ms),
 * not a timer per message. Every close is counted in `counters`.
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
  const limits = { ...TCP_DEFAULTS };
  for (const k of Object.keys(TCP_DEFAULTS) as (keyof TcpOptions)[]) {
    const v = opts[k];
    if (v === undefined) continue;
    if (!(v > 0)) throw new RangeError(`TCP ${k} must be a positive number, got ${v}`);
    limits[k] = v;
  }
  const { idleMs, messageTimeoutMs, writeTimeoutMs, maxInFlight, maxConnections, maxConnectionsPerSource } = limits;
  const connections = new Set<Connection>();
  const perSource = new Map<string, number>();

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
      const out = exchange(message, c.clientIp, 'tcp');
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
          logger.error({ err }, 'tcp exchange failed');
          flow(c);
        },
      );
    }
    if (c.pending.length === 0) c.messageStart = -1;
    else if (consumed || c.messageStart < 0) c.messageStart = performance.now();
    flow(c);
  };

  const server = net.createServer((socket) => {
    socket.on('error', () => socket.destroy());
    const clientIp = canonicalIp(socket.remoteAddress ?? '');
    const sourceKey = connectionSourceKey(clientIp);
    const fromSource = perSource.get(sourceKey) ?? 0;
    if (connections.size >= maxConnections || fromSource >= maxConnectionsPerSource) {
      counters.tcpRefused++;
      socket.destroy();
      return;
    }
    perSource.set(sourceKey, fromSource + 1);
    const c = new Connection(socket, clientIp, sourceKey, performance.now());
    connections.add(c);
    socket.setNoDelay(true);
    socket.on('close', () => {
      connections.delete(c);
      const n = (perSource.get(sourceKey) ?? 1) - 1;
      if (n > 0) perSource.set(sourceKey, n);
      else perSource.delete(sourceKey);
    });
    socket.on('drain', () => {
      c.blocked = false;
      c.blockedSince = -1;
      flow(c);
    });
    socket.on('data', (chunk: Buffer) => {
      c.lastActive = performance.now();
      c.pending = c.pending.length === 0 ? chunk : Buffer.concat([c.pending, chunk]);
      work(c);
    });
  });

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
  const sweepEvery = Math.max(5, Math.min(idleMs, messageTimeoutMs, writeTimeoutMs) / 4);
  let sweeper: NodeJS.Timeout | undefined;

  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      server.on('error', (err) => logger.error({ err }, 'tcp server error'));
      sweeper = setInterval(sweep, sweepEvery);
      sweeper.unref();
      resolve({
        address: server.address() as AddressInfo,
        get connections() {
          return connections.size;
        },
        close: () =>
          new Promise((r) => {
            clearInterval(sweeper);
            for (const c of connections) c.socket.destroy();
            server.close(() => r());
          }),
      });
    });
  });
}
