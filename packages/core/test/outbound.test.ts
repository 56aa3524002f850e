import https from 'node:https';
import net, { type AddressInfo } from 'node:net';
import { createTestDatabase } from '@cordon/db/testing';
import { FeedFetchError, fetchFeed } from '@cordon/feeds';
import { ensureRootCa, LeafMinter } from '@cordon/pki';
import { OUTBOUND_FAILURE, OutboundError, outboundRefusal, setOutboundAllow } from '@cordon/shared/outbound';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { deliver } from '../src/mail/mailer.ts';
import type { MailSettingsRow } from '../src/mail/repository.ts';

/**
 * The outbound-request guard (docs/security.md "Outbound requests"), through the two places that
 * use it on a tenant's behalf: category feed downloads (`fetchFeed`) and tenant SMTP settings
 * (`deliver`). Loopback only; every cap is injected small.
 */

/** Loopback listeners that count accepted connections: a refused target must never reach them. */
let accepts = 0;
const counters: net.Server[] = [];
let v4Port = 0;
let v6Port = 0;

/** An HTTPS server on 127.0.0.2 (certificate for that address) that the operator allows in the tests that need it. */
let allowed: https.Server;
let allowedBase = '';
let ca = '';
/** Connections and responses the servers keep open (silent listeners, `/slow`), ended after the tests. */
const held: Array<{ destroy(): unknown }> = [];

async function listen(server: net.Server, host: string): Promise<number> {
  await new Promise<void>((r) => server.listen(0, host, r));
  return (server.address() as AddressInfo).port;
}

beforeAll(async () => {
  for (const host of ['127.0.0.1', '::1']) {
    const s = net.createServer((socket) => {
      accepts += 1;
      socket.on('error', () => undefined);
      // Says nothing and keeps the connection open: only a time cap ends it.
      held.push(socket);
    });
    counters.push(s);
    const port = await listen(s, host);
    if (host === '127.0.0.1') v4Port = port;
    else v6Port = port;
  }
  const handle = await createTestDatabase('sqlite');
  const root = await ensureRootCa(handle, Buffer.alloc(32, 5));
  await handle.close();
  ca = root.certificatePem;
  const minter = new LeafMinter(root, { fallback: { dnsNames: ['localhost'], ipAddresses: ['127.0.0.2'] } });
  allowed = https.createServer(await minter.fallbackCredentials(), (req, res) => {
    if (req.url === '/ok') {
      res.end('ads.example\n');
    } else if (req.url === '/to-loopback') {
      res.writeHead(302, { location: `https://127.0.0.1:${v4Port}/feed.txt` });
      res.end();
    } else if (req.url === '/big') {
      res.writeHead(200);
      res.end(Buffer.alloc(4096, 97));
    } else if (req.url === '/slow') {
      res.writeHead(200);
      res.write('ads.example\n');
      held.push(res);
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  allowedBase = `https://127.0.0.2:${await listen(allowed, '127.0.0.2')}`;
});

afterAll(async () => {
  for (const h of held) h.destroy();
  await Promise.all([...counters, allowed].map((s) => new Promise((r) => s.close(r))));
});

beforeEach(() => {
  accepts = 0;
  setOutboundAllow([], () => undefined); // the default: nothing internal is reachable (details not logged here)
});

const mailSettings = (server: string, port: number): MailSettingsRow =>
  ({
    server,
    port,
    security: 'none',
    username: '',
    password: '',
    sender: '',
    from_email: 'cordon@example.test',
  }) as unknown as MailSettingsRow;
const message = { to: 'ops@example.test', subject: 's', text: 't' };

/** Every target the guard refuses by default, with the listener port it would reach if it were not refused. */
const REFUSED: ReadonlyArray<{ host: string; url: string; kind: RegExp }> = [
  { host: '127.0.0.1', url: '127.0.0.1', kind: /Loopback/ },
  { host: '::1', url: '[::1]', kind: /Loopback/ },
  { host: '::ffff:127.0.0.1', url: '[::ffff:127.0.0.1]', kind: /Loopback/ },
  { host: '0.0.0.0', url: '0.0.0.0', kind: /Unspecified/ },
  { host: 'localhost', url: 'localhost', kind: /Loopback/ },
  { host: '10.1.2.3', url: '10.1.2.3', kind: /Private/ },
  { host: '192.168.1.1', url: '192.168.1.1', kind: /Private/ },
  { host: '172.16.0.1', url: '172.16.0.1', kind: /Private/ },
  { host: '100.64.0.1', url: '100.64.0.1', kind: /Private/ },
  { host: 'fd00::1', url: '[fd00::1]', kind: /Private/ },
  { host: '169.254.169.254', url: '169.254.169.254', kind: /Link-local/ },
  { host: '::ffff:169.254.169.254', url: '[::ffff:169.254.169.254]', kind: /Link-local/ },
  { host: 'fe80::1', url: '[fe80::1]', kind: /Link-local/ },
  { host: '224.0.0.1', url: '224.0.0.1', kind: /Multicast/ },
  { host: '255.255.255.255', url: '255.255.255.255', kind: /Broadcast/ },
];

describe('the outbound-request guard (docs/security.md "Outbound requests")', () => {
  it.each(REFUSED)('refuses $host for a feed and for mail: one generic message, no connection', async (t) => {
    const port = t.host.includes(':') && !t.host.includes('ffff') ? v6Port : v4Port;
    const started = Date.now();
    const feed = await fetchFeed(`https://${t.url}:${port}/feed.txt`, { ca, connectTimeoutMs: 5000 }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(feed).toBeInstanceOf(FeedFetchError);
    expect((feed as FeedFetchError).message).toBe(OUTBOUND_FAILURE);
    expect((feed as FeedFetchError).detail).toMatch(t.kind);
    const mail = await deliver(mailSettings(t.host, port), message, { connectTimeoutMs: 5000 }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(mail).toBeInstanceOf(OutboundError);
    expect((mail as OutboundError).message).toBe(OUTBOUND_FAILURE);
    expect((mail as OutboundError).detail).toMatch(t.kind);
    expect(accepts).toBe(0);
    expect(Date.now() - started).toBeLessThan(2000); // refused before connecting, not timed out
  });

  it('classifies public addresses as reachable and honours an allowed range', () => {
    expect(outboundRefusal('93.184.216.34')).toBeNull();
    expect(outboundRefusal('2606:2800:220:1:248:1893:25c8:1946')).toBeNull();
    expect(outboundRefusal('127.0.0.1')).toMatch(/Loopback/);
    expect(outboundRefusal('127.0.0.1', { allow: ['127.0.0.0/8'] })).toBeNull();
    expect(outboundRefusal('::ffff:127.0.0.1', { allow: ['127.0.0.1/32'] })).toBeNull();
    expect(outboundRefusal('10.0.0.1', { allow: ['127.0.0.0/8'] })).toMatch(/Private/);
  });

  it('lets a loopback server through when the operator allows its range (per call and process-wide)', async () => {
    expect(await fetchFeed(`${allowedBase}/ok`, { ca, outbound: { allow: ['127.0.0.2/32'] } })).toBe('ads.example\n');
    setOutboundAllow('127.0.0.2/32');
    expect(await fetchFeed(`${allowedBase}/ok`, { ca })).toBe('ads.example\n');
    // Mail to an allowed loopback listener connects (counted), and a silent server is cut off by the connect cap.
    setOutboundAllow('127.0.0.1/32');
    const started = Date.now();
    await expect(deliver(mailSettings('127.0.0.1', v4Port), message, { connectTimeoutMs: 200 })).rejects.toThrow(
      OUTBOUND_FAILURE,
    );
    expect(accepts).toBe(1);
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('refuses a redirect from an allowed server to 127.0.0.1 without connecting there', async () => {
    const e = await fetchFeed(`${allowedBase}/to-loopback`, { ca, outbound: { allow: ['127.0.0.2/32'] } }).then(
      () => null,
      (err: unknown) => err,
    );
    expect((e as FeedFetchError).message).toBe(OUTBOUND_FAILURE);
    expect((e as FeedFetchError).detail).toMatch(/127\.0\.0\.1.*Loopback/);
    expect(accepts).toBe(0);
  });

  it('cuts off an oversized body and a slow server with the same generic message', async () => {
    const outbound = { allow: ['127.0.0.2/32'] };
    const big = await fetchFeed(`${allowedBase}/big`, { ca, outbound, maxBytes: 1024 }).catch((e: unknown) => e);
    expect((big as FeedFetchError).message).toBe(OUTBOUND_FAILURE);
    expect((big as FeedFetchError).detail).toMatch(/exceeds 1024/);
    const started = Date.now();
    const slow = await fetchFeed(`${allowedBase}/slow`, { ca, outbound, totalTimeoutMs: 300 }).catch((e: unknown) => e);
    expect((slow as FeedFetchError).message).toBe(OUTBOUND_FAILURE);
    expect((slow as FeedFetchError).detail).toMatch(/total time/);
    expect(Date.now() - started).toBeLessThan(3000);
    // A server that accepts and never answers the TLS handshake: the connect cap ends it.
    const silent = await fetchFeed(`https://127.0.0.1:${v4Port}/feed.txt`, {
      ca,
      outbound: { allow: ['127.0.0.1/32'] },
      connectTimeoutMs: 200,
    }).catch((e: unknown) => e);
    expect((silent as FeedFetchError).message).toBe(OUTBOUND_FAILURE);
    expect((silent as FeedFetchError).detail).toMatch(/connect time/);
    expect(accepts).toBe(1);
  });
});
