import net, { type AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { unwrapMappedIp } from '../dns/message.ts';
import type { Exchange } from './exchange.ts';

/** A listening TCP DNS server. */
export interface TcpServer {
  readonly address: AddressInfo;
  close(): Promise<void>;
}

/** TCP settings. */
export interface TcpOptions {
  /** Close a connection idle this long, ms (RFC 7766 §6.2.3 suggests seconds). Default 10,000. */
  idleMs?: number;
  /** Queries answered concurrently per connection before reading pauses. Default 100. */
  maxInFlight?: number;
}

/**
 * Serves DNS over TCP (RFC 1035 §4.2.2, RFC 7766): each message is preceded by its 2-byte length;
 * a connection carries any number of queries, answered as they complete (out of order is allowed,
 * RFC 7766 §7). Idle connections are closed after `idleMs`.
 */
export function startTcpServer(
  host: string,
  port: number,
  exchange: Exchange,
  logger: Logger,
  opts: TcpOptions = {},
): Promise<TcpServer> {
  const idleMs = opts.idleMs ?? 10_000;
  const maxInFlight = opts.maxInFlight ?? 100;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    const clientIp = unwrapMappedIp(socket.remoteAddress ?? '');
    let pending: Buffer = Buffer.alloc(0);
    let inFlight = 0;
    socket.setNoDelay(true);
    socket.setTimeout(idleMs, () => socket.destroy());
    socket.on('error', () => socket.destroy());
    socket.on('close', () => sockets.delete(socket));
    socket.on('data', (chunk: Buffer) => {
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      while (pending.length >= 2) {
        const len = pending.readUInt16BE(0);
        if (pending.length < len + 2) break;
        const message = Buffer.from(pending.subarray(2, len + 2));
        pending = pending.subarray(len + 2);
        const out = exchange(message, clientIp, 'tcp');
        if (out === null) continue;
        if (!(out instanceof Promise)) {
          writeFrame(socket, out);
          continue;
        }
        inFlight++;
        if (inFlight >= maxInFlight) socket.pause();
        out.then(
          (wire) => {
            inFlight--;
            if (socket.isPaused() && inFlight < maxInFlight) socket.resume();
            if (wire) writeFrame(socket, wire);
          },
          (err: unknown) => {
            inFlight--;
            logger.error({ err }, 'tcp exchange failed');
          },
        );
      }
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve({
        address: server.address() as AddressInfo,
        close: () =>
          new Promise((r) => {
            for (const s of sockets) s.destroy();
            server.close(() => r());
          }),
      });
    });
  });
}

/** Writes one length-prefixed message (RFC 1035 §4.2.2) unless the connection is gone. */
function writeFrame(socket: net.Socket, wire: Buffer): void {
  if (socket.destroyed) return;
  const frame = Buffer.allocUnsafe(wire.length + 2);
  frame.writeUInt16BE(wire.length, 0);
  wire.copy(frame, 2);
  socket.write(frame);
}
