import http2 from 'node:http2';
import { request } from 'node:https';
import tls from 'node:tls';
import type { DatabaseHandle } from '@cordon/db';
import { createTestDatabase } from '@cordon/db/testing';
import { ensureRootCa, LeafMinter } from '@cordon/pki';
import dnsPacket from 'dns-packet';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ResolverCounters } from '../src/metrics.ts';
import { type DohServer, minTtl, startDohServer } from '../src/transport/doh.ts';
import type { Exchange } from '../src/transport/exchange.ts';
import { startResolverStack } from './helpers/stack.ts';

/**
 * The DoH transport alone (RFC 8484; docs/agent.md "DoH"), over an exchange that echoes what it
 * was handed: the key reaches the exchange with protocol `doh`, answers carry the freshness of
 * their smallest TTL, and the connection caps hold at accept.
 */
describe('DoH transport', () => {
  let handle: DatabaseHandle;
  let server: DohServer;
  let ca: string;
  const seen: { protocol: string; key: string | null | undefined; clientIp: string }[] = [];
  const counters = new ResolverCounters();

  /** Answers every query with A 192.0.2.1, TTL 42, and an OPT record (TTL field 0 must not count). */
  const exchange: Exchange = (raw, clientIp, protocol, pathKey) => {
    seen.push({ protocol, key: pathKey, clientIp });
    const q = dnsPacket.decode(raw);
    return Promise.resolve(
      dnsPacket.encode({
        type: 'response',
        id: q.id,
        flags: dnsPacket.RECURSION_DESIRED | dnsPacket.RECURSION_AVAILABLE,
        questions: q.questions,
        answers: [{ type: 'A', name: q.questions![0]!.name, ttl: 42, data: '192.0.2.1' }],
        additionals: [{ type: 'OPT', name: '.', udpPayloadSize: 1232 } as never],
      }),
    );
  };

  beforeAll(async () => {
    handle = await createTestDatabase('sqlite');
    const root = await ensureRootCa(handle, Buffer.from('doh-transport-test-secret-0123456789', 'utf8'));
    ca = root.certificatePem;
    const creds = await new LeafMinter(root).fallbackCredentials();
    server = await startDohServer(
      '127.0.0.1',
      0,
      exchange,
      pino({ level: 'silent' }),
      { tls: creds, knowsKey: (k) => k === 'known-key', maxConnectionsPerSource: 2 },
      counters,
    );
  });
  afterAll(async () => {
    await server?.close();
    await handle?.close();
  });

  /** The HTTP status of a GET to the DoH port, trusting the deployment root. */
  const fetchDoh = (port: number, path: string) =>
    new Promise<number>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path, servername: 'localhost', ca }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });

  const query = dnsPacket.encode({
    type: 'query',
    id: 0,
    flags: dnsPacket.RECURSION_DESIRED,
    questions: [{ name: 'a.example', type: 'A' }],
  });

  it('hands the message, its key and protocol doh to the exchange, over HTTP/2 POST and GET', async () => {
    const session = http2.connect(`https://localhost:${server.address.port}`, { ca });
    const ask = (headers: http2.OutgoingHttpHeaders, body?: Buffer) =>
      new Promise<{ status: number; headers: http2.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
        const req = session.request(headers);
        const chunks: Buffer[] = [];
        let head: http2.IncomingHttpHeaders = {};
        req.on('response', (h) => (head = h));
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => resolve({ status: Number(head[':status']), headers: head, body: Buffer.concat(chunks) }));
        req.on('error', reject);
        req.end(body);
      });
    try {
      const post = await ask(
        { ':method': 'POST', ':path': '/dns-query/known-key', 'content-type': 'application/dns-message' },
        query,
      );
      expect(post.status).toBe(200);
      expect(post.headers['content-type']).toBe('application/dns-message');
      expect(post.headers['cache-control']).toBe('max-age=42');
      expect(dnsPacket.decode(post.body).answers?.[0]).toMatchObject({ data: '192.0.2.1' });
      const get = await ask({ ':method': 'GET', ':path': `/dns-query/known-key?dns=${query.toString('base64url')}` });
      expect(get.status).toBe(200);
      expect(seen.at(-1)).toEqual({ protocol: 'doh', key: 'known-key', clientIp: '127.0.0.1' });
      expect(
        (await ask({ ':method': 'GET', ':path': `/dns-query/other-key?dns=${query.toString('base64url')}` })).status,
      ).toBe(404);
      expect(seen).toHaveLength(2);
    } finally {
      session.close();
    }
  });

  it('destroys connections over the per-source cap at accept', async () => {
    const connect = () =>
      new Promise<boolean>((resolve) => {
        const s = tls.connect({
          host: '127.0.0.1',
          port: server.address.port,
          servername: 'localhost',
          ca,
          ALPNProtocols: ['h2'],
        });
        s.once('secureConnect', () => resolve(true));
        s.once('error', () => resolve(false));
        s.once('close', () => resolve(false));
        opened.push(s);
      });
    const opened: tls.TLSSocket[] = [];
    try {
      expect(await connect()).toBe(true);
      expect(await connect()).toBe(true);
      const rejectedBefore = counters.dohRejected;
      expect(await connect()).toBe(false);
      expect(counters.dohRejected).toBe(rejectedBefore + 1);
    } finally {
      for (const s of opened) s.destroy();
    }
  });

  it('serves the resolver over a configured certificate and key (--doh-cert / --doh-key)', async () => {
    const root = await ensureRootCa(handle, Buffer.from('doh-transport-test-secret-0123456789', 'utf8'));
    const creds = await new LeafMinter(root).fallbackCredentials();
    const stack = await startResolverStack(handle, {
      doh: { host: '127.0.0.1', port: 0, tls: { certPem: creds.cert, keyPem: creds.key } },
    });
    try {
      const res = await fetchDoh(stack.resolver.address.doh!.port, '/dns-query/no-such-key');
      // The configured certificate is served (the TLS handshake trusts it) and an unknown key is 404.
      expect(res).toBe(404);
    } finally {
      await stack.close();
    }
  });

  it('takes the freshness from the smallest TTL, OPT excepted (RFC 8484 §5.1)', () => {
    const wire = dnsPacket.encode({
      type: 'response',
      id: 1,
      questions: [{ name: 'x.example', type: 'A' }],
      answers: [
        { type: 'A', name: 'x.example', ttl: 300, data: '192.0.2.1' },
        { type: 'A', name: 'x.example', ttl: 30, data: '192.0.2.2' },
      ],
      additionals: [{ type: 'OPT', name: '.', udpPayloadSize: 1232 } as never],
    });
    expect(minTtl(wire)).toBe(30);
    expect(minTtl(dnsPacket.encode({ type: 'response', id: 1, questions: [{ name: 'x.example', type: 'A' }] }))).toBe(
      0,
    );
    expect(minTtl(Buffer.alloc(5))).toBe(0);
  });
});
