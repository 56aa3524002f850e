import dgram from 'node:dgram';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import type { Logger } from 'pino';
import { unwrapMappedIp } from '../dns/message.ts';
import type { Exchange } from './exchange.ts';

/** A listening UDP DNS server. */
export interface UdpServer {
  readonly address: AddressInfo;
  close(): Promise<void>;
}

/**
 * Serves DNS over UDP (RFC 1035 §4.2.1) on `host:port` (udp6 when `host` is IPv6, else udp4).
 * Each datagram is one query; answers go back to the sender (at once when the pipeline answered
 * synchronously). Port 0 picks a free port.
 */
export function startUdpServer(host: string, port: number, exchange: Exchange, logger: Logger): Promise<UdpServer> {
  const socket = dgram.createSocket({ type: net.isIPv6(host) ? 'udp6' : 'udp4' });
  socket.on('message', (msg, rinfo) => {
    const out = exchange(msg, unwrapMappedIp(rinfo.address), 'udp');
    if (out === null) return;
    if (!(out instanceof Promise)) {
      socket.send(out, rinfo.port, rinfo.address);
      return;
    }
    out.then(
      (wire) => {
        if (wire) socket.send(wire, rinfo.port, rinfo.address);
      },
      (err: unknown) => logger.error({ err }, 'udp exchange failed'),
    );
  });
  return new Promise((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(port, host, () => {
      socket.off('error', reject);
      socket.on('error', (err) => logger.error({ err }, 'udp socket error'));
      resolve({
        address: socket.address(),
        close: () => new Promise((r) => socket.close(() => r())),
      });
    });
  });
}
