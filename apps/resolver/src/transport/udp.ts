import dgram from 'node:dgram';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import { canonicalIp } from '@cordon/shared';
import type { Logger } from 'pino';
import { decodeQuery, truncatedResponse } from '../dns/message.ts';
import { ResolverCounters } from '../metrics.ts';
import type { Exchange } from './exchange.ts';
import { ResponseRateLimiter, RRL_PASS, RRL_SLIP, type RrlOptions } from './rrl.ts';

/** A listening UDP DNS server. */
export interface UdpServer {
  readonly address: AddressInfo;
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
  /** Response-rate limiting (see {@link ResponseRateLimiter}); rate 0 turns it off. */
  rrl?: RrlOptions;
}

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
 * `slipped`).
 * @throws RangeError for invalid RRL settings; rejects when the address cannot be bound
 */
export function startUdpServer(
  host: string,
  port: number,
  exchange: Exchange,
  logger: Logger,
  opts: UdpOptions = {},
  counters: ResolverCounters = new ResolverCounters(),
): Promise<UdpServer> {
  const rate = opts.rrl?.ratePerSecond;
  // A coarse clock for the limiter: reading the real one per datagram costs more than the check.
  let clock = performance.now();
  const rrl = rate === 0 ? null : new ResponseRateLimiter(opts.rrl ?? {}, () => clock);
  const ticker = rrl ? setInterval(() => (clock = performance.now()), CLOCK_TICK_MS).unref() : undefined;
  const socket = dgram.createSocket({ type: net.isIPv6(host) ? 'udp6' : 'udp4' });
  const send = (wire: Buffer, rinfo: dgram.RemoteInfo) => socket.send(wire, rinfo.port, rinfo.address);
  socket.on('message', (msg, rinfo) => {
    const clientIp = canonicalIp(rinfo.address);
    if (rrl !== null) {
      const verdict = rrl.check(clientIp);
      if (verdict !== RRL_PASS) {
        counters.rateLimited++;
        if (verdict === RRL_SLIP) {
          const decoded = decodeQuery(msg, clientIp, 'udp');
          if (decoded.kind === 'ok') {
            counters.slipped++;
            send(truncatedResponse(decoded.request), rinfo);
          }
        }
        return;
      }
    }
    const out = exchange(msg, clientIp, 'udp');
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
  const wanted = opts.recvBufferBytes ?? DEFAULT_UDP_RECV_BUFFER;
  return new Promise((resolve, reject) => {
    const failed = (err: Error) => {
      clearInterval(ticker);
      reject(err);
    };
    socket.once('error', failed);
    socket.bind(port, host, () => {
      socket.off('error', failed);
      socket.on('error', (err) => logger.error({ err }, 'udp socket error'));
      if (wanted > 0) {
        try {
          socket.setRecvBufferSize(wanted);
        } catch (err) {
          logger.warn({ err, requested: wanted }, 'udp receive buffer size refused; keeping the system default');
        }
      }
      const effective = socket.getRecvBufferSize();
      logger.info(
        { requested: wanted, effective },
        'udp receive buffer (Linux caps at net.core.rmem_max and reports twice what it grants)',
      );
      resolve({
        address: socket.address(),
        recvBufferBytes: effective,
        close: () =>
          new Promise((r) => {
            clearInterval(ticker);
            socket.close(() => r());
          }),
      });
    });
  });
}
