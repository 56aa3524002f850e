import dgram from 'node:dgram';
import { existsSync, readFileSync } from 'node:fs';
import net from 'node:net';
import { type ChangeFeed, createChangeFeed, type DatabaseHandle } from '@cordon/db';
import { createTestDatabase, testDialects } from '@cordon/db/testing';
import dnsPacket, { type Packet } from 'dns-packet';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningResolver, startResolver } from '../src/index.ts';
import { dig } from './helpers/dig.ts';
import { type FakeUpstream, startFakeUpstream } from './helpers/fake-upstream.ts';
import { seedTenants } from './helpers/seed.ts';

/** A wire query; `edns` adds an OPT record (version `edns.version`). */
function query(id: number, name: string, type: string, edns?: { version: number }): Buffer {
  const packet: Packet = {
    id,
    type: 'query',
    flags: dnsPacket.RECURSION_DESIRED,
    questions: [{ name, type: type as 'A', class: 'IN' }],
  };
  if (edns) packet.additionals = [{ type: 'OPT', name: '.', udpPayloadSize: 1232, ednsVersion: edns.version } as never];
  return dnsPacket.encode(packet);
}

/**
 * Sends `datagrams` from one UDP socket (bound to `localAddress`) to the resolver as fast as
 * they go, and returns every reply that arrives within `waitMs` after the last one was sent.
 */
async function udpExchange(
  port: number,
  datagrams: Buffer[],
  waitMs: number,
  localAddress = '127.0.0.1',
): Promise<Buffer[]> {
  const socket = dgram.createSocket('udp4');
  const replies: Buffer[] = [];
  socket.on('message', (msg) => replies.push(msg));
  await new Promise<void>((r) => socket.bind(0, localAddress, () => r()));
  for (const d of datagrams) await new Promise<void>((r) => socket.send(d, port, '127.0.0.1', () => r()));
  await new Promise((r) => setTimeout(r, waitMs));
  socket.close();
  return replies;
}

/** Polls `check` until true or `ms` pass; throws on timeout. */
async function within(ms: number, check: () => boolean | Promise<boolean>): Promise<void> {
  const start = Date.now();
  while (!(await check())) {
    if (Date.now() - start > ms) throw new Error(`not true within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const header = (wire: Buffer) => ({
  id: wire.readUInt16BE(0),
  flags: wire.readUInt16BE(2),
  qd: wire.readUInt16BE(4),
  an: wire.readUInt16BE(6),
  ns: wire.readUInt16BE(8),
  ar: wire.readUInt16BE(10),
});
const TC = 0x200;

describe.each(testDialects())('resolver wire-level hardening (%s)', (dialect) => {
  let handle: DatabaseHandle;
  let changes: ChangeFeed;
  let upstream: FakeUpstream;
  /** Default settings: RRL on at 200/s, default TCP limits. */
  let resolver: RunningResolver;
  /** A low response rate (20/s, slip 2) and two TCP connections per source. */
  let limited: RunningResolver;
  let port: number;
  let limitedPort: number;

  beforeAll(async () => {
    handle = await createTestDatabase(dialect);
    await seedTenants(handle);
    changes = createChangeFeed(handle);
    await changes.start();
    upstream = await startFakeUpstream();
    const common = {
      db: handle,
      changes,
      logger: pino({ level: 'silent' }),
      dns: { host: '127.0.0.1', port: 0 },
      upstreams: [{ host: '127.0.0.1', port: upstream.port }],
      blockAddresses: { ipv4: '127.0.0.1', ipv6: '::1' },
      queryLog: { flushMs: 50 },
      upstreamTimeoutMs: 500,
    };
    resolver = await startResolver(common);
    limited = await startResolver({
      ...common,
      rrl: { ratePerSecond: 20, slip: 2 },
      tcp: { maxConnectionsPerSource: 2 },
    });
    port = resolver.address.udp.port;
    limitedPort = limited.address.udp.port;
  });

  afterAll(async () => {
    await resolver?.close();
    await limited?.close();
    await changes?.close();
    await upstream?.close();
    await handle?.close();
  });

  it('sends nothing back for a UDP datagram shorter than a DNS header, or for a response (QR=1)', async () => {
    const before = resolver.metrics.malformed;
    const valid = query(0x1234, 'gambling.example', 'A');
    const short = Array.from({ length: 12 }, (_, n) => valid.subarray(0, n));
    const response = Buffer.from(valid);
    response[2] = response[2]! | 0x80;
    const replies = await udpExchange(port, [...short, response], 300);
    expect(replies).toEqual([]);
    expect(resolver.metrics.malformed - before).toBe(13);
    // The same socket's next real query is answered: silence was about the datagrams.
    const ok = await udpExchange(port, [valid], 300);
    expect(ok.map((r) => header(r).id)).toEqual([0x1234]);
  });

  it('closes a TCP connection whose frame is shorter than a DNS header, unanswered', async () => {
    const socket = net.connect({ host: '127.0.0.1', port });
    let received = 0;
    socket.on('data', (d: Buffer) => {
      received += d.length;
    });
    socket.on('error', () => {});
    await new Promise<void>((r) => socket.once('connect', () => r()));
    socket.write(Buffer.from([0, 5, 0x12, 0x34, 1, 0, 0]));
    const closed = await Promise.race([
      new Promise((r) => socket.once('close', () => r('closed'))),
      new Promise((r) => setTimeout(() => r('open'), 1000)),
    ]);
    socket.destroy();
    expect(closed).toBe('closed');
    expect(received).toBe(0);
    expect(resolver.metrics.tcp.malformedClosed).toBeGreaterThanOrEqual(1);
  });

  it('answers an EDNS VERSION other than 0 with BADVERS (dig +edns=1)', async () => {
    const r = await dig(port, '+edns=1', '+noednsneg', 'ok.example', 'A');
    expect(r.status).toBe('BADVERS');
    expect(r.answers).toEqual([]);
    expect(r.raw).toMatch(/EDNS: version: 0/);
  });

  it('answers BADVERS on the wire: extended RCODE 16 split between header and OPT, our OPT version 0, no answers', async () => {
    const before = upstream.total();
    const [reply] = await udpExchange(port, [query(0xabcd, 'ok.example', 'A', { version: 1 })], 300);
    expect(reply).toBeDefined();
    const h = header(reply!);
    expect(h).toMatchObject({ id: 0xabcd, qd: 1, an: 0, ns: 0, ar: 1 });
    expect(h.flags & 0x8000).toBe(0x8000); // QR
    expect(h.flags & 0xf).toBe(0); // 16 & 0xF
    const decoded = dnsPacket.decode(reply!);
    expect(decoded.questions?.[0]).toMatchObject({ name: 'ok.example', type: 'A' });
    const opt = decoded.additionals?.[0] as unknown as { type: string; extendedRcode: number; ednsVersion: number };
    expect(opt).toMatchObject({ type: 'OPT', extendedRcode: 1, ednsVersion: 0 });
    expect((opt.extendedRcode << 4) | (h.flags & 0xf)).toBe(16);
    expect(upstream.total()).toBe(before);
    // Version 0 is served as usual.
    const [normal] = await udpExchange(port, [query(0xabce, 'ok.example', 'A', { version: 0 })], 300);
    expect(header(normal!).an).toBe(1);
  });

  it('answers ANY with one synthesized HINFO, over UDP and TCP, without asking the upstream', async () => {
    for (const transport of ['+notcp', '+tcp']) {
      const r = await dig(port, transport, 'any.example', 'ANY');
      expect(r.status).toBe('NOERROR');
      expect(r.answers).toEqual([{ name: 'any.example.', ttl: 3600, type: 'HINFO', data: '"RFC8482" ""' }]);
    }
    expect(upstream.queries.get('any.example')).toBeUndefined();
    expect(resolver.metrics.minimalAny).toBeGreaterThanOrEqual(2);
  });

  it('keeps a blocked name blocked for ANY: NODATA, logged as blocked', async () => {
    const r = await dig(port, 'gambling.example', 'ANY');
    expect(r.status).toBe('NOERROR');
    expect(r.answers).toEqual([]);
    await within(2000, async () => {
      const row = await handle.db
        .selectFrom('query_log')
        .selectAll()
        .where('qname', '=', 'gambling.example')
        .where('qtype', '=', 'ANY')
        .executeTakeFirst();
      return row?.action === 'blocked' && row.reason === 'category' && row.answer_source === 'synthesized';
    });
  });

  it('limits a UDP burst from one unclaimed /24: answers up to the rate, truncates every 2nd limited query, drops the rest', async () => {
    const sent = 100;
    const burst = Array.from({ length: sent }, (_, i) => query(1000 + i, 'gambling.example', 'A'));
    // 127.0.1.1 is claimed by no location: RRL applies (claimed locations have their own limit: location-rate-limit.test.ts).
    const replies = await udpExchange(limitedPort, burst, 300, '127.0.1.1');
    const full = replies.filter((r) => (header(r).flags & TC) === 0);
    const truncated = replies.filter((r) => (header(r).flags & TC) !== 0);
    // 20 tokens of burst, plus what refills while the burst is being sent.
    expect(full.length).toBeGreaterThanOrEqual(20);
    expect(full.length).toBeLessThan(30);
    const m = limited.metrics;
    expect(m.rateLimited).toBe(sent - full.length);
    expect(truncated.length).toBe(m.slipped);
    expect(m.slipped).toBe(Math.floor(m.rateLimited / 2));
    for (const t of truncated) {
      expect(header(t)).toMatchObject({ qd: 1, an: 0, ns: 0, ar: 0 });
      expect(dnsPacket.decode(t).questions?.[0]?.name).toBe('gambling.example');
    }
    // Another /24 is unaffected (127.0.2.1, claimed by no location either: answered REFUSED, not dropped)…
    const other = await dig(limitedPort, '-b', '127.0.2.1', 'gambling.example', 'A');
    expect(other.status).toBe('REFUSED');
    // …and the limited client itself is still answered over TCP, where RRL does not apply.
    const tcp = await dig(limitedPort, '+tcp', '-b', '127.0.1.1', 'gambling.example', 'A');
    expect(tcp.status).toBe('REFUSED');
  });

  it('passes TCP limits through its options: a third connection from one address is refused', async () => {
    const sockets = await Promise.all(
      [1, 2, 3].map(
        (i) =>
          new Promise<net.Socket>((resolve) => {
            const s = net.connect({ host: '127.0.0.1', port: limitedPort }, () => setTimeout(() => resolve(s), i * 50));
            s.on('error', () => {});
          }),
      ),
    );
    await within(1000, () => limited.metrics.tcp.refused === 1);
    expect(limited.metrics.tcp.connections).toBe(2);
    for (const s of sockets) s.destroy();
  });

  it('asks for a large UDP receive buffer and reports what the kernel granted', () => {
    const rmemMax = existsSync('/proc/sys/net/core/rmem_max')
      ? Number(readFileSync('/proc/sys/net/core/rmem_max', 'utf8'))
      : 0;
    // Linux grants min(asked, rmem_max) and reports twice that.
    expect(resolver.metrics.udpRecvBufferBytes).toBeGreaterThanOrEqual(Math.min(8 * 1024 * 1024, rmemMax));
  });
});
