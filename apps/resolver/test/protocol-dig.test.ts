import dgram from 'node:dgram';
import type { DatabaseHandle } from '@cordon/db';
import { createTestDatabase } from '@cordon/db/testing';
import dnsPacket from 'dns-packet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChainUpstream, startChainUpstream } from './helpers/chain-upstream.ts';
import { dig } from './helpers/dig.ts';
import { seedTenants } from './helpers/seed.ts';
import { type ResolverStack, startResolverStack } from './helpers/stack.ts';

/** Sends one raw datagram to the resolver and returns its answer, or null after 1 s. */
async function exchange(port: number, message: Buffer): Promise<Buffer | null> {
  const socket = dgram.createSocket('udp4');
  try {
    return await new Promise<Buffer | null>((resolve) => {
      const timer = setTimeout(() => resolve(null), 1000);
      socket.on('message', (msg) => {
        clearTimeout(timer);
        resolve(msg);
      });
      socket.send(message, port, '127.0.0.1');
    });
  } finally {
    socket.close();
  }
}

/** A wire OPT record (RFC 6891 §6.1.2): root owner, type 41, payload 1232, no options. */
const OPT = Buffer.from([0, 0, 41, 0x04, 0xd0, 0, 0, 0, 0, 0, 0]);

/** A query for `example.org A` with `extra` records after the question and the given header counts. */
function rawQuery(id: number, flags: number, counts: [number, number, number], extra: Buffer[]): Buffer {
  const header = Buffer.alloc(12);
  header.writeUInt16BE(id, 0);
  header.writeUInt16BE(flags, 2);
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(counts[0], 6);
  header.writeUInt16BE(counts[1], 8);
  header.writeUInt16BE(counts[2], 10);
  const question = Buffer.from([7, ...Buffer.from('example'), 3, ...Buffer.from('org'), 0, 0, 1, 0, 1]);
  return Buffer.concat([header, question, ...extra]);
}

/**
 * Checks that a response's names are compressed wherever RFC 1035 §4.1.4 and RFC 3597 §4 allow:
 * no owner name, and no NS/CNAME/SOA/PTR/MX RDATA name, spells out in full a suffix that an earlier
 * name of the message already wrote. Returns the offending names.
 */
function uncompressedRepeats(msg: Buffer): string[] {
  const seen = new Set<string>();
  const bad: string[] = [];
  const readLabels = (off: number): { labels: string[]; end: number; pointerAt: number } => {
    const labels: string[] = [];
    let end = -1;
    let pointerAt = -1;
    for (;;) {
      const len = msg[off]!;
      if (len === 0) return { labels, end: end < 0 ? off + 1 : end, pointerAt };
      if ((len & 0xc0) === 0xc0) {
        if (end < 0) {
          end = off + 2;
          pointerAt = labels.length;
        }
        off = ((len & 0x3f) << 8) | msg[off + 1]!;
        continue;
      }
      labels.push(msg.toString('latin1', off + 1, off + 1 + len).toLowerCase());
      off += len + 1;
    }
  };
  const visit = (off: number, compressible: boolean): number => {
    const { labels, end, pointerAt } = readLabels(off);
    const literal = pointerAt < 0 ? labels.length : pointerAt;
    for (let i = 0; i < labels.length; i++) {
      const suffix = labels.slice(i).join('.');
      if (compressible && i < literal && seen.has(suffix)) bad.push(labels.join('.'));
      seen.add(suffix);
    }
    return end;
  };
  let off = visit(12, false) + 4;
  const count = msg.readUInt16BE(6) + msg.readUInt16BE(8) + msg.readUInt16BE(10);
  for (let r = 0; r < count; r++) {
    off = visit(off, true);
    const type = msg.readUInt16BE(off);
    const rdlen = msg.readUInt16BE(off + 8);
    const rdata = off + 10;
    if (type === 5 || type === 2 || type === 12) visit(rdata, true);
    if (type === 6) visit(visit(rdata, true), true);
    if (type === 15) visit(rdata + 2, true);
    off = rdata + rdlen;
  }
  return [...new Set(bad)];
}

describe('the resolver as a DNS citizen (dig and raw packets against a scripted recursive upstream)', () => {
  let handle: DatabaseHandle;
  let chain: ChainUpstream;
  let stack: ResolverStack;
  let chaosStack: ResolverStack;
  let port: number;

  beforeAll(async () => {
    handle = await createTestDatabase('sqlite');
    await seedTenants(handle);
    chain = await startChainUpstream([
      { name: 'signed.example', type: 'A', class: 'IN', ttl: 300, data: '192.0.2.80' },
      { name: 'a.bogus', type: 'A', class: 'IN', ttl: 300, data: '192.0.2.81' },
      { name: 'ede.example', type: 'A', class: 'IN', ttl: 300, data: '192.0.2.82' },
      { name: 'www.shop.example', type: 'CNAME', class: 'IN', ttl: 300, data: 'shop.example.cdn.example' },
      { name: 'shop.example.cdn.example', type: 'CNAME', class: 'IN', ttl: 300, data: 'edge1.cdn.example' },
      { name: 'edge1.cdn.example', type: 'A', class: 'IN', ttl: 300, data: '192.0.2.83' },
      { name: 'edge1.cdn.example', type: 'A', class: 'IN', ttl: 300, data: '192.0.2.84' },
      {
        name: 'mail.example',
        type: 'MX',
        class: 'IN',
        ttl: 300,
        data: { preference: 10, exchange: 'mx1.mail.example' },
      },
      {
        name: 'mail.example',
        type: 'MX',
        class: 'IN',
        ttl: 300,
        data: { preference: 20, exchange: 'mx2.mail.example' },
      },
    ] as never);
    chain.setEde('ede.example', 6, 'upstream says bogus');
    const upstreams = [{ host: '127.0.0.1', port: chain.port }];
    stack = await startResolverStack(handle, { upstreams });
    chaosStack = await startResolverStack(handle, { upstreams, chaos: { version: 'Cordon', identity: 'resolver-7' } });
    port = stack.port;
  });

  afterAll(async () => {
    await stack?.close();
    await chaosStack?.close();
    await chain?.close();
    await handle?.close();
  });

  it('forwards the client’s CD bit, so a validating stub gets the data a validation failure withholds, and caches CD apart', async () => {
    const withCd = await dig(port, '+cd', 'a.bogus', 'A');
    expect(withCd.status).toBe('NOERROR');
    expect(withCd.flags).toContain('cd');
    expect(withCd.answers[0]?.data).toBe('192.0.2.81');
    // The CD answer is cached under its own key: a client without CD still gets the upstream's SERVFAIL.
    const withoutCd = await dig(port, '+nocd', 'a.bogus', 'A');
    expect(withoutCd.status).toBe('SERVFAIL');
    const sent = chain.received.filter((q) => q.name === 'a.bogus');
    expect(sent.map((q) => (q.flags & dnsPacket.CHECKING_DISABLED) !== 0)).toEqual([true, false]);
  });

  it('forwards DO and returns AD to a client that set AD or DO, and to nobody else', async () => {
    const ad = await dig(port, '+adflag', '+nodnssec', 'signed.example', 'A');
    expect(ad.flags).toContain('ad');
    const plain = await dig(port, '+noadflag', '+nodnssec', 'signed.example', 'A');
    expect(plain.flags).not.toContain('ad');
    const dnssec = await dig(port, '+noadflag', '+dnssec', 'signed.example', 'A');
    expect(dnssec.flags).toContain('ad');
    const sent = chain.received.filter((q) => q.name === 'signed.example');
    // Every upstream query asks for AD (RFC 6840 §5.7); DO only for the DO client (its own cache key).
    expect(sent.every((q) => (q.flags & dnsPacket.AUTHENTIC_DATA) !== 0)).toBe(true);
    expect(sent.map((q) => q.dnssecOk)).toEqual([false, true]);
  });

  it('relays the upstream’s Extended DNS Errors and sends 18 Prohibited with REFUSED', async () => {
    const relayed = await dig(port, 'ede.example', 'A');
    expect(relayed.raw).toMatch(/EDE: 6 \(DNSSEC Bogus\): \(upstream says bogus\)/);
    const refused = await dig(port, '-b', '127.0.0.9', 'ede.example', 'A');
    expect(refused.status).toBe('REFUSED');
    expect(refused.raw).toMatch(/EDE: 18 \(Prohibited\)/);
  });

  it('gives a blocked name’s other qtypes NODATA with an SOA that downstream caches can use (RFC 2308 §5)', async () => {
    const mx = await dig(port, '+noall', '+authority', '+comments', 'gambling.example', 'MX');
    expect(mx.status).toBe('NOERROR');
    expect(mx.raw).toMatch(
      /gambling\.example\.\s+60\s+IN\s+SOA\s+blocked\.cordon\.invalid\. hostmaster\.cordon\.invalid\. 1 3600 600 86400 60/,
    );
  });

  it('never forwards CHAOS: version.bind is REFUSED by default, answered from the configured text otherwise', async () => {
    const before = chain.received.length;
    const refused = await dig(port, 'version.bind', 'CH', 'TXT');
    expect(refused.status).toBe('REFUSED');
    const version = await dig(chaosStack.port, 'version.bind', 'CH', 'TXT');
    expect(version.status).toBe('NOERROR');
    expect(version.answers).toEqual([{ name: 'version.bind.', ttl: 0, type: 'TXT', data: '"Cordon"' }]);
    const id = await dig(chaosStack.port, 'id.server', 'CH', 'TXT');
    expect(id.answers[0]?.data).toBe('"resolver-7"');
    expect((await dig(chaosStack.port, 'authors.bind', 'CH', 'TXT')).status).toBe('REFUSED');
    expect((await dig(port, 'example.org', 'HS', 'A')).status).toBe('REFUSED');
    expect(chain.received.length).toBe(before);
  });

  it('answers FORMERR to two OPT records or an OPT outside the additional section, and NOTIMP without RA to an unknown opcode (RFC 6891 §6.1.1)', async () => {
    const twoOpts = await exchange(port, rawQuery(1, 0x0100, [0, 0, 2], [OPT, OPT]));
    expect((twoOpts?.readUInt16BE(2) ?? -1) & 0xf).toBe(1);
    const optInAnswer = await exchange(port, rawQuery(2, 0x0100, [1, 0, 0], [OPT]));
    expect((optInAnswer?.readUInt16BE(2) ?? -1) & 0xf).toBe(1);
    const opcode5 = await exchange(port, rawQuery(3, 0x2900, [0, 0, 0], []));
    const flags = opcode5!.readUInt16BE(2);
    expect(flags & 0xf).toBe(4);
    expect(flags & 0x80).toBe(0);
    // One OPT in the additional section is fine: the upstream's NXDOMAIN for example.org comes back.
    const ok = await exchange(port, rawQuery(4, 0x0100, [0, 0, 1], [OPT]));
    expect((ok?.readUInt16BE(2) ?? -1) & 0xf).toBe(3);
  });

  it('answers a qname with a dot inside a label without the shared cache (its text does not fix its wire layout)', async () => {
    // `signed\.example` as ONE label: its text equals signed.example's, its wire layout does not.
    const question = Buffer.concat([Buffer.from([14]), Buffer.from('signed.example'), Buffer.from([0, 0, 1, 0, 1])]);
    const header = Buffer.from([0, 77, 1, 0, 0, 1, 0, 0, 0, 0, 0, 1]);
    const hits = stack.resolver.metrics.cacheHits;
    const misses = stack.resolver.metrics.cacheMisses;
    for (let i = 0; i < 2; i++) {
      const answer = await exchange(port, Buffer.concat([header, question, OPT]));
      expect(answer, 'answered').not.toBeNull();
      // The question comes back byte for byte: one 14-byte label.
      expect(answer!.subarray(12, 12 + question.length).equals(question)).toBe(true);
    }
    // Neither looked up nor stored: no hit, and no miss counted either (the cache link let it pass).
    expect(stack.resolver.metrics.cacheHits).toBe(hits);
    expect(stack.resolver.metrics.cacheMisses).toBe(misses);
  });

  it('compresses relayed answers: no name repeats a suffix in full (RFC 1035 §4.1.4)', async () => {
    for (const [name, type] of [
      ['www.shop.example', 'A'],
      ['mail.example', 'MX'],
      ['nothing.example', 'A'],
    ] as const) {
      const query = dnsPacket.encode({
        id: 9,
        type: 'query',
        flags: dnsPacket.RECURSION_DESIRED,
        questions: [{ name, type }],
        additionals: [{ type: 'OPT', name: '.', udpPayloadSize: 1232, flags: 0, options: [] } as never],
      });
      const answer = (await exchange(port, query))!;
      expect(uncompressedRepeats(answer), name).toEqual([]);
      // And it says what the upstream said.
      const decoded = dnsPacket.decode(answer);
      if (name === 'www.shop.example') {
        expect(decoded.answers?.map((a) => (a as { data: string }).data)).toEqual([
          'shop.example.cdn.example',
          'edge1.cdn.example',
          '192.0.2.83',
          '192.0.2.84',
        ]);
        // Header, question (18 + 4), CNAME `→ shop.example.cdn.<ptr example>`, CNAME `<ptr> → edge1.<ptr cdn.example>`,
        // two A records owned by a pointer, OPT: 128 bytes, where the uncompressed relay took 188.
        expect(answer.length).toBe(12 + 22 + (2 + 10 + 19) + (2 + 10 + 8) + 2 * (2 + 10 + 4) + 11);
      }
      if (name === 'mail.example') {
        expect(decoded.answers?.map((a) => (a as { data: { exchange: string } }).data.exchange)).toEqual([
          'mx1.mail.example',
          'mx2.mail.example',
        ]);
      }
      if (name === 'nothing.example') expect((decoded.flags ?? 0) & 0xf).toBe(3);
    }
  });
});
