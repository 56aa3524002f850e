import type { AddressInfo, Socket } from 'node:net';
import tls, { type SecureContext, type SecureContextOptions } from 'node:tls';
import { canonicalIp, dotKeyCandidates } from '@cordon/shared';
import type { Logger } from 'pino';
import { ResolverCounters } from '../metrics.ts';
import type { Exchange } from './exchange.ts';
import { createStreamHandler, type TcpOptions } from './tcp.ts';

/** A listening DNS-over-TLS server. */
export interface DotServer {
  readonly address: AddressInfo;
  /** Connections past their TLS handshake, open now. */
  readonly connections: number;
  /**
   * Serves new connections with this certificate chain and key (PEM) from now on; connections open
   * keep theirs (SIGHUP, docs/operations.md "Configuration check and reload").
   * @throws what `setSecureContext` throws for a malformed pair (the old one stays)
   */
  setCredentials(tls: { cert: string; key: string }): void;
  close(): Promise<void>;
}

/** Settings of {@link startDotServer}. */
export interface DotServerOptions {
  /** TLS credentials: a key and certificate chain (PEM), and optionally an SNI callback that mints per host. */
  tls: Pick<SecureContextOptions, 'key' | 'cert'> & {
    SNICallback?: (servername: string, cb: (err: Error | null, ctx?: SecureContext) => void) => void;
  };
  /**
   * The operator's DoT host-name suffix (`--dot-hostname`, e.g. `dot.filter.example.net`): a server
   * name `<label>.<suffix>` carries a key in `<label>`; null: the leftmost label of any server name
   * of two labels or more is tried.
   */
  hostname: string | null;
  /** True when `key` names a device or a virtual or roaming location in the current snapshot. */
  knowsKey: (key: string) => boolean;
  /** The TCP transport's limits, applied to DoT connections too (timeouts, pipelining, caps); defaults in `TCP_DEFAULTS`. */
  limits?: TcpOptions;
  /** A TLS handshake must complete within this, ms (default 5,000). */
  handshakeTimeoutMs?: number;
}

/**
 * Serves DNS over TLS (RFC 7858) on `host:port` (853 in production, §3.1): TLS 1.2 or later, then
 * length-prefixed DNS messages exactly as over TCP (§3.3) — the TCP transport's connection handler
 * ({@link createStreamHandler}) with the same limits: connection caps checked at accept, before
 * any TLS work; idle, slow-message and unread-output deadlines; bounded pipelining.
 *
 * Identification (docs/agent.md "DoT"): the key is read from the leftmost label of the TLS server
 * name (SNI, RFC 6066 §3), `<label>.<hostname>` as NextDNS and DNSFilter do — base32 of the key
 * (`dotLabel` of @cordon/shared), or the key itself; it is handed to the exchange (protocol `dot`)
 * as the DoH path key is, while it names a device or a roaming or virtual location. No server name,
 * one outside `hostname`, or a key naming nothing: the query is identified by its source address,
 * like plain TCP (and an unknown source is REFUSED by `identify`).
 * @throws RangeError for a limit that is not a positive number; rejects when the address cannot be bound
 */
export function startDotServer(
  host: string,
  port: number,
  exchange: Exchange,
  logger: Logger,
  opts: DotServerOptions,
  counters: ResolverCounters = new ResolverCounters(),
): Promise<DotServer> {
  const handler = createStreamHandler(exchange, logger, opts.limits ?? {}, counters, {
    protocol: 'dot',
    knowsKey: opts.knowsKey,
  });
  const server = tls.createServer({
    ...opts.tls,
    minVersion: 'TLSv1.2',
    // No ALPN (RFC 7858 needs none): a server that lists protocols refuses a client offering others
    // with a fatal alert (RFC 7301 §3.2), and a client offering `dot` is served without it.
    handshakeTimeout: opts.handshakeTimeoutMs ?? 5_000,
  });
  /** Accepted sockets not closed yet, handshakes in progress included (close() ends them). */
  const sockets = new Set<Socket>();
  /** Admitted sockets still in their handshake, by peer `address|port` (how a TLS socket finds its own). */
  const handshaking = new Map<string, Socket>();
  const peer = (s: Socket) => `${s.remoteAddress}|${s.remotePort}`;
  // Caps at accept, before the handshake (docs/operations.md "Hostile clients").
  server.on('connection', (socket: Socket) => {
    if (handler.admit(socket) === null) return;
    const id = peer(socket);
    sockets.add(socket);
    handshaking.set(id, socket);
    socket.once('close', () => {
      sockets.delete(socket);
      // Closed before its handshake completed: failed, timed out or abandoned.
      if (handshaking.get(id) === socket) {
        handshaking.delete(id);
        counters.dotHandshakeFailed++;
      }
    });
  });
  server.on('secureConnection', (stream: tls.TLSSocket) => {
    handshaking.delete(peer(stream));
    handler.serve(stream, canonicalIp(stream.remoteAddress ?? ''), keyOf(stream.servername));
  });
  // A failed or timed-out handshake (a client that does not trust the certificate) is the client's
  // business: counted when its socket closes, above.
  server.on('tlsClientError', (_err: Error, socket: tls.TLSSocket) => socket.destroy());

  /** The key the server name carries that names someone now; null: none (the address identifies). */
  const keyOf = (servername: string | false | null | undefined): string | null => {
    if (!servername) return null;
    for (const key of dotKeyCandidates(servername, opts.hostname)) if (opts.knowsKey(key)) return key;
    return null;
  };

  return new Promise((resolve, reject) => {
    server.once('error', (err) => {
      handler.close();
      reject(err);
    });
    server.listen(port, host, () => {
      server.removeAllListeners('error');
      server.on('error', (err) => logger.error({ err }, 'dot server error'));
      resolve({
        address: server.address() as AddressInfo,
        get connections() {
          return handler.connections;
        },
        setCredentials: (tls) => server.setSecureContext(tls),
        close: () =>
          new Promise<void>((r) => {
            handler.close();
            for (const socket of sockets) socket.destroy();
            server.close(() => r());
          }),
      });
    });
  });
}
