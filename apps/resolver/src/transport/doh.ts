import http2 from 'node:http2';
import type { AddressInfo, Socket } from 'node:net';
import type { SecureContext, SecureContextOptions } from 'node:tls';
import { canonicalIp } from '@cordon/shared';
import type { Logger } from 'pino';
import { skipName } from '../dns/wire.ts';
import { ResolverCounters } from '../metrics.ts';
import type { Exchange } from './exchange.ts';

/** The media type of DNS messages over HTTPS (RFC 8484 §6). */
export const DNS_MESSAGE = 'application/dns-message';

/** Largest DNS message accepted in a POST body or a GET `dns` parameter, bytes (RFC 8484 §6: a DNS message, ≤ 65535). */
export const MAX_DOH_MESSAGE = 65_535;

/** A DoH path key: 1–128 characters of `A–Z a–z 0–9 - _` (the keys Cordon issues are base64url or hex). */
const PATH = /^\/dns-query\/([A-Za-z0-9_-]{1,128})$/;

/** A listening DNS-over-HTTPS server. */
export interface DohServer {
  readonly address: AddressInfo;
  /**
   * Serves new connections with this certificate chain and key (PEM) from now on; connections open
   * keep theirs (SIGHUP, docs/operations.md "Configuration check and reload").
   * @throws what `setSecureContext` throws for a malformed pair (the old one stays)
   */
  setCredentials(tls: { cert: string; key: string }): void;
  close(): Promise<void>;
}

/** Settings of {@link startDohServer}. */
export interface DohServerOptions {
  /** TLS credentials: a key and certificate chain (PEM), and optionally an SNI callback that mints per host. */
  tls: Pick<SecureContextOptions, 'key' | 'cert'> & {
    SNICallback?: (servername: string, cb: (err: Error | null, ctx?: SecureContext) => void) => void;
  };
  /**
   * True when `key` names a device or a virtual or roaming location in the current snapshot. An
   * unknown key is answered 404 before anything is decoded: Cordon is never an open resolver.
   */
  knowsKey: (key: string) => boolean;
  /** An idle connection is closed after this, ms (default 30,000). */
  idleMs?: number;
  /** Concurrent streams per HTTP/2 connection (default 100). */
  maxConcurrentStreams?: number;
  /** Open connections in all (default 1,000) and per client address (default 20); more are destroyed at accept. */
  maxConnections?: number;
  maxConnectionsPerSource?: number;
}

/**
 * Serves DNS over HTTPS (RFC 8484) at `/dns-query/{key}` on `host:port`, HTTP/2 with HTTP/1.1
 * allowed (`kdig +https` speaks HTTP/2, curl and most stubs either):
 * - `GET ?dns=<base64url message>` (RFC 8484 §4.1, padding tolerated) and `POST` with a body of
 *   type `application/dns-message` (§4.1); answers are `application/dns-message` with
 *   `cache-control: max-age=` the smallest TTL of the answer (§5.1), 0 when it has no record;
 * - the key (a device's, or a virtual or roaming location's) must be known now, else 404; any
 *   other path 404, other methods 405, another body type 415, a body or parameter over 64 KiB
 *   413, a missing or undecodable message 400 (RFC 8484 §4.2.1: a 2xx carries a DNS answer);
 * - each message goes through the same {@link Exchange} (and so the same pipeline) as UDP and TCP,
 *   with protocol `doh` and the key, which `identify` reads first (docs/architecture.md "Data plane").
 * - hostile clients: connections over `maxConnections` in all or `maxConnectionsPerSource` per
 *   address are destroyed at accept, before any TLS work; idle connections close after `idleMs`;
 *   an HTTP/2 connection carries at most `maxConcurrentStreams` queries at once.
 * @throws rejects when the address cannot be bound
 */
export function startDohServer(
  host: string,
  port: number,
  exchange: Exchange,
  logger: Logger,
  opts: DohServerOptions,
  counters: ResolverCounters = new ResolverCounters(),
): Promise<DohServer> {
  const server = http2.createSecureServer({
    ...opts.tls,
    allowHTTP1: true,
    minVersion: 'TLSv1.2',
    settings: { maxConcurrentStreams: opts.maxConcurrentStreams ?? 100 },
    maxSessionMemory: 10,
  });
  server.setTimeout(opts.idleMs ?? 30_000, () => undefined);
  // Tracked so close() can end open HTTP/2 sessions (an http2 server has no closeAllConnections).
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on('session', (s: http2.ServerHttp2Session) => {
    sessions.add(s);
    s.on('close', () => sessions.delete(s));
  });
  // A failed handshake (a client that does not trust the certificate) is the client's business.
  server.on('tlsClientError', () => undefined);
  // Connection caps at accept, before any TLS work (docs/operations.md "Hostile clients", as for TCP).
  const maxAll = opts.maxConnections ?? 1_000;
  const maxPerSource = opts.maxConnectionsPerSource ?? 20;
  const perSource = new Map<string, number>();
  let open = 0;
  server.on('connection', (socket: Socket) => {
    const source = canonicalIp(socket.remoteAddress ?? '');
    const mine = perSource.get(source) ?? 0;
    if (open >= maxAll || mine >= maxPerSource) {
      counters.dohRejected++;
      socket.destroy();
      return;
    }
    open++;
    perSource.set(source, mine + 1);
    socket.once('close', () => {
      open--;
      const n = (perSource.get(source) ?? 1) - 1;
      if (n <= 0) perSource.delete(source);
      else perSource.set(source, n);
    });
  });
  server.on('request', (req: http2.Http2ServerRequest, res: http2.Http2ServerResponse) => {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    const match = PATH.exec(path);
    if (!match || !opts.knowsKey(match[1]!)) {
      counters.dohRejected++;
      reply(res, 404, 'not found\n');
      return;
    }
    const key = match[1]!;
    const clientIp = canonicalIp(req.socket?.remoteAddress ?? '');
    if (req.method === 'GET') {
      const dns = new URLSearchParams(q < 0 ? '' : url.slice(q + 1)).get('dns');
      if (dns === null || dns.length === 0) return bad(res, 400, 'missing dns parameter\n');
      if (dns.length > Math.ceil((MAX_DOH_MESSAGE * 4) / 3) + 4) return bad(res, 413, 'message too large\n');
      if (!/^[A-Za-z0-9_-]+={0,2}$/.test(dns)) return bad(res, 400, 'dns is not base64url\n');
      answer(res, Buffer.from(dns, 'base64url'), clientIp, key);
      return;
    }
    if (req.method === 'POST') {
      const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
      if (type !== DNS_MESSAGE) return bad(res, 415, `content-type must be ${DNS_MESSAGE}\n`);
      const chunks: Buffer[] = [];
      let size = 0;
      let over = false;
      req.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_DOH_MESSAGE) {
          if (!over) bad(res, 413, 'message too large\n');
          over = true;
          return;
        }
        chunks.push(chunk);
      });
      req.on('end', () => {
        if (!over) answer(res, Buffer.concat(chunks, size), clientIp, key);
      });
      req.on('error', () => undefined);
      return;
    }
    res.setHeader('allow', 'GET, POST');
    bad(res, 405, 'method not allowed\n');
  });

  function bad(res: http2.Http2ServerResponse, status: number, text: string): void {
    counters.dohRejected++;
    reply(res, status, text);
  }

  function answer(res: http2.Http2ServerResponse, raw: Buffer, clientIp: string, key: string): void {
    counters.dohQueries++;
    let out: Buffer | null | Promise<Buffer | null>;
    try {
      out = exchange(raw, clientIp, 'doh', key);
    } catch (err) {
      logger.error({ err }, 'doh exchange failed');
      reply(res, 500, 'internal error\n');
      return;
    }
    const send = (wire: Buffer | null) => {
      // Nothing to answer (shorter than a header, or a response): not a DNS query.
      if (wire === null) return reply(res, 400, 'not a DNS query\n');
      if (res.closed || res.destroyed) return;
      res.writeHead(200, {
        'content-type': DNS_MESSAGE,
        'content-length': wire.length,
        'cache-control': `max-age=${minTtl(wire)}`,
      });
      res.end(wire);
    };
    if (out instanceof Promise) {
      out.then(send, (err: unknown) => {
        logger.error({ err }, 'doh exchange failed');
        reply(res, 500, 'internal error\n');
      });
    } else send(out);
  }

  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      server.on('error', (err) => logger.error({ err }, 'doh server error'));
      resolve({
        address: server.address() as AddressInfo,
        setCredentials: (tls) => server.setSecureContext(tls),
        close: () =>
          new Promise<void>((r) => {
            server.close(() => r());
            // Open HTTP/2 sessions would keep close() waiting: end them.
            for (const s of sessions) s.destroy();
          }),
      });
    });
  });
}

/** Sends a small plain-text answer, once. */
function reply(res: http2.Http2ServerResponse, status: number, text: string): void {
  if (res.headersSent || res.closed || res.destroyed) return;
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/**
 * The smallest TTL of the records of a DNS message's answer, authority and additional sections,
 * the OPT pseudo-record excepted (RFC 8484 §5.1: the HTTP freshness lifetime must not exceed it),
 * seconds; 0 when there is none or the message cannot be walked.
 */
export function minTtl(wire: Buffer): number {
  if (wire.length < 12) return 0;
  const qd = wire.readUInt16BE(4);
  const rr = wire.readUInt16BE(6) + wire.readUInt16BE(8) + wire.readUInt16BE(10);
  let off = 12;
  for (let i = 0; i < qd; i++) {
    off = skipName(wire, off);
    if (off < 0 || off + 4 > wire.length) return 0;
    off += 4;
  }
  let min = -1;
  for (let i = 0; i < rr; i++) {
    off = skipName(wire, off);
    if (off < 0 || off + 10 > wire.length) return 0;
    const type = wire.readUInt16BE(off);
    const ttl = wire.readUInt32BE(off + 4);
    if (type !== 41 && (min < 0 || ttl < min)) min = ttl;
    off += 10 + wire.readUInt16BE(off + 8);
  }
  return min < 0 ? 0 : min;
}
