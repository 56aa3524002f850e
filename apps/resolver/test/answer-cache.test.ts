import dnsPacket, { type Packet } from 'dns-packet';
import { describe, expect, it } from 'vitest';
import { AnswerCache, SECOND_CHANCES, STALE_TTL } from '../src/cache/answer-cache.ts';
import { type CompiledAnswer, compileAnswer, renderAnswer } from '../src/cache/compiled-answer.ts';
import { batchReceiveTime, decodeQuery } from '../src/dns/message.ts';
import { ResolverCounters } from '../src/metrics.ts';
import { cacheLink } from '../src/pipeline/cache.ts';
import type { DnsRequest } from '../src/request.ts';

const positive = (ttls: number[], flags = 0): Packet => ({
  type: 'response',
  flags,
  answers: ttls.map((ttl, i) => ({ name: 'Www.Example', type: 'A', class: 'IN', ttl, data: `192.0.2.${i + 1}` })),
  authorities: [],
  additionals: [{ type: 'OPT', name: '.', udpPayloadSize: 1232, flags: 0, options: [] } as never],
});

const negative = (soaTtl: number, minimum: number): Packet => ({
  type: 'response',
  flags: 3,
  answers: [],
  authorities: [
    {
      name: 'example',
      type: 'SOA',
      class: 'IN',
      ttl: soaTtl,
      data: { mname: 'ns', rname: 'h', serial: 1, refresh: 1, retry: 1, expire: 1, minimum },
    },
  ],
});

/** Compiles `p` as the upstream's answer to `qname` `type` (the wire message, its question included). */
const compile = (p: Packet, qname = 'www.example', type = 'A'): CompiledAnswer =>
  compileAnswer(dnsPacket.encode({ ...p, questions: [{ name: qname, type: type as 'A', class: 'IN' }] }), qname);

function request(name: string, type = 'A', id = 99, edns = true, flags = 0): DnsRequest {
  const raw = dnsPacket.encode({
    id,
    type: 'query',
    flags: dnsPacket.RECURSION_DESIRED | flags,
    questions: [{ name, type: type as 'A' }],
    additionals: edns ? [{ type: 'OPT', name: '.', udpPayloadSize: 4096, flags: 0, options: [] } as never] : [],
  });
  const r = decodeQuery(raw, '127.0.0.1', 'udp');
  if (r.kind !== 'ok') throw new Error('bad test query');
  return r.request;
}

function clock(start = 1_000_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

const ttlsOf = (wire: Buffer) => (dnsPacket.decode(wire).answers ?? []).map((a) => (a as { ttl: number }).ttl);

describe('AnswerCache', () => {
  it('keys by lower-case qname, qtype, qclass and DO bit', () => {
    expect(AnswerCache.key('example.com', 1, 1, false)).not.toBe(AnswerCache.key('example.com', 1, 1, true));
    expect(AnswerCache.key('example.com', 1, 1, false)).not.toBe(AnswerCache.key('example.com', 28, 1, false));
    expect(AnswerCache.key('example.com', 1, 1, false)).not.toBe(AnswerCache.key('example.com', 1, 3, false));
  });

  it('never gives two questions one key, names with "|" included', () => {
    // A name whose labels hold '|' must not meet another question's key (labels may hold any octet).
    const questions: [string, number, number, boolean][] = [
      ['a', 1, 1, false],
      ['a', 28, 1, false],
      ['a|28|1|0', 1, 1, false],
      ['a|28|1', 1, 1, false],
      ['a|1|1|0', 1, 1, false],
      ['a', 1, 1, true],
      ['a|1|1|1', 1, 1, false],
      ['a|1', 1, 1, false],
      ['a', 1, 1, false],
    ];
    const keys = new Map<string, string>();
    for (const q of questions) {
      const key = AnswerCache.key(...q);
      const owner = JSON.stringify(q);
      expect(keys.get(key) ?? owner, `${owner} vs ${keys.get(key)}`).toBe(owner);
      keys.set(key, owner);
    }
    expect(keys.size).toBe(questions.length - 1);
  });

  it('keeps a positive answer for the smallest record TTL and decrements TTLs', () => {
    const c = clock();
    const cache = new AnswerCache({ now: c.now });
    expect(cache.set('k', compile(positive([300, 120])))).toBe(120);
    c.advance(10_500);
    const hit = cache.get('k');
    expect(hit).toBeDefined();
    const wire = renderAnswer(request('www.EXAMPLE'), hit!.answer, cache.elapsedSeconds(hit!));
    const decoded = dnsPacket.decode(wire);
    expect(ttlsOf(wire)).toEqual([290, 110]);
    expect(decoded.id).toBe(99);
    expect(decoded.answers?.[0]?.name).toBe('www.EXAMPLE'); // the asker's spelling, via 0xC00C
    // The upstream's OPT is never replayed: the only OPT is ours.
    expect(decoded.additionals).toMatchObject([{ type: 'OPT', udpPayloadSize: 1232 }]);
    c.advance(110_000);
    expect(cache.get('k')).toBeUndefined();
  });

  it('ages a hit by the receive batch’s clock reading when the cache runs on the wall clock', async () => {
    const counters = new ResolverCounters();
    const upstream = () => Promise.reject(new Error('no upstream in this test'));
    const ttlOfHit = (cache: AnswerCache) => {
      const answer = cacheLink(cache, counters)(upstream)({
        request: request('www.example'),
        identity: null,
        decision: null,
      });
      if (answer instanceof Promise) throw new Error('expected a cache hit');
      return ttlsOf(answer.wire);
    };
    const wall = new AnswerCache();
    const injected = new AnswerCache({ now: clock(Date.now()).now });
    expect(wall.wallClock && !injected.wallClock).toBe(true);
    wall.set('www.example', compile(positive([300])));
    injected.set('www.example', compile(positive([300])));
    batchReceiveTime.wall = Date.now() + 100_000;
    batchReceiveTime.set = true;
    try {
      expect(ttlOfHit(wall)).toEqual([200]);
      // An injected clock is the cache's only clock.
      expect(ttlOfHit(injected)).toEqual([300]);
    } finally {
      batchReceiveTime.set = false;
    }
    expect(ttlOfHit(wall)).toEqual([300]);
    expect(counters.cacheHits).toBe(3);
  });

  it('keeps NXDOMAIN for min(SOA TTL, SOA MINIMUM) and skips negative answers without SOA', () => {
    const c = clock();
    const cache = new AnswerCache({ now: c.now });
    expect(cache.set('nx', compile(negative(3600, 60)))).toBe(60);
    expect(cache.get('nx')?.answer.rcode).toBe(3);
    expect(cache.set('nosoa', compile({ type: 'response', flags: 3, answers: [], authorities: [] }))).toBe(0);
    expect(cache.set('servfail', compile({ ...positive([300]), flags: 2 }))).toBe(0);
    expect(cache.set('zero', compile(positive([0])))).toBe(0);
  });

  it('serves an expired answer stale with TTL 30 until maxStale', () => {
    const c = clock();
    const cache = new AnswerCache({ now: c.now, maxStale: 3600 });
    cache.set('k', compile(positive([60])));
    c.advance(61_000);
    expect(cache.get('k')).toBeUndefined();
    const stale = cache.getStale('k');
    expect(ttlsOf(renderAnswer(request('www.example'), stale!.answer, 0, STALE_TTL))).toEqual([STALE_TTL]);
    c.advance(3600_000);
    expect(cache.getStale('k')).toBeUndefined();
  });

  it('evicts the oldest entry not hit since it was stored when full', () => {
    const cache = new AnswerCache({ maxEntries: 2, now: () => 1_000_000 });
    cache.set('a', compile(positive([300])));
    cache.set('b', compile(positive([300])));
    cache.get('a');
    cache.set('c', compile(positive([300])));
    expect(cache.get('a')).toBeDefined();
    expect(cache.get('b')).toBeUndefined();
    expect(cache.size).toBe(2);
  });

  it('gives a hit entry one second chance: unhit after its move, it is the next to go', () => {
    const cache = new AnswerCache({ maxEntries: 2, now: () => 1_000_000 });
    cache.set('a', compile(positive([300])));
    cache.set('b', compile(positive([300])));
    cache.get('a');
    cache.get('b');
    // Both hit: 'a' then 'b' move to the young end unmarked, and 'a', the oldest again, goes.
    cache.set('c', compile(positive([300])));
    expect([cache.getStale('a'), cache.getStale('b'), cache.getStale('c')].map((e) => e !== undefined)).toEqual([
      false,
      true,
      true,
    ]);
    // 'c' hit, 'b' not since its move: 'b' goes next.
    cache.get('c');
    cache.set('d', compile(positive([300])));
    expect([cache.getStale('b'), cache.getStale('c'), cache.getStale('d')].map((e) => e !== undefined)).toEqual([
      false,
      true,
      true,
    ]);
  });

  it(`evicts after ${SECOND_CHANCES} second chances even when every older entry was hit`, () => {
    const cache = new AnswerCache({ maxEntries: 20, now: () => 1_000_000 });
    const keys = Array.from({ length: 20 }, (_, i) => `k${i}`);
    for (const k of keys) cache.set(k, compile(positive([300])));
    for (const k of keys) cache.get(k);
    cache.set('new', compile(positive([300])));
    expect(cache.size).toBe(20);
    // The first SECOND_CHANCES moved to the young end; the next oldest was evicted regardless.
    const kept = keys.map((k) => cache.getStale(k) !== undefined);
    expect(kept.indexOf(false)).toBe(SECOND_CHANCES);
    expect(kept.filter((k) => !k)).toHaveLength(1);
  });
});

describe('compiled answers (wire bytes with TTL offsets)', () => {
  const rich: Packet = {
    type: 'response',
    flags: dnsPacket.AUTHENTIC_DATA | dnsPacket.AUTHORITATIVE_ANSWER,
    answers: [
      { name: 'www.example.com', type: 'CNAME', class: 'IN', ttl: 100, data: 'cdn.example.net' },
      { name: 'cdn.example.net', type: 'A', class: 'IN', ttl: 50, data: '192.0.2.7' },
      { name: 'cdn.example.net', type: 'TXT', class: 'IN', ttl: 70, data: ['hello'] },
    ],
    authorities: [{ name: 'example.net', type: 'NS', class: 'IN', ttl: 3000, data: 'ns1.example.net' }],
    additionals: [
      { type: 'OPT', name: '.', udpPayloadSize: 1232, flags: 0, options: [] } as never,
      { name: 'ns1.example.net', type: 'AAAA', class: 'IN', ttl: 3000, data: '2001:db8::53' },
    ],
  };

  it('round-trips every section through dns-packet, keeping AD for a client that set AD and dropping AA and the upstream OPT', () => {
    const compiled = compile(rich, 'www.example.com');
    expect(compiled.cacheTtl).toBe(50);
    expect(compiled.aliases).toEqual(['cdn.example.net']);
    const wire = renderAnswer(request('WWW.example.com', 'A', 7, true, dnsPacket.AUTHENTIC_DATA), compiled, 0);
    const d = dnsPacket.decode(wire);
    expect(d.id).toBe(7);
    expect(d.flags! & 0x8000 ? 1 : 0).toBe(0); // dns-packet's flags omit QR; type says response
    expect(d.type).toBe('response');
    expect(d.flags! & dnsPacket.AUTHENTIC_DATA).toBe(dnsPacket.AUTHENTIC_DATA);
    expect(d.flags! & dnsPacket.AUTHORITATIVE_ANSWER).toBe(0);
    expect(d.flags! & dnsPacket.RECURSION_AVAILABLE).toBe(dnsPacket.RECURSION_AVAILABLE);
    expect(d.questions).toEqual([{ name: 'WWW.example.com', type: 'A', class: 'IN' }]);
    expect(d.answers).toMatchObject([
      { name: 'WWW.example.com', type: 'CNAME', ttl: 100, data: 'cdn.example.net' },
      { name: 'cdn.example.net', type: 'A', ttl: 50, data: '192.0.2.7' },
      { name: 'cdn.example.net', type: 'TXT', ttl: 70 },
    ]);
    expect(d.authorities).toMatchObject([{ name: 'example.net', type: 'NS', ttl: 3000, data: 'ns1.example.net' }]);
    expect(d.additionals).toMatchObject([
      { name: 'ns1.example.net', type: 'AAAA', ttl: 3000, data: '2001:db8::53' },
      { type: 'OPT', udpPayloadSize: 1232 },
    ]);
  });

  it('keeps every byte value and patches TTLs past the body’s first 256 bytes', () => {
    const many: Packet = {
      type: 'response',
      flags: 0,
      answers: Array.from({ length: 40 }, (_, i) => ({
        name: i % 2 === 0 ? 'www.example.com' : `n${i}.example.net`,
        type: 'AAAA' as const,
        class: 'IN' as const,
        ttl: 1000 + i,
        data: `2001:db8:ff${i.toString(16).padStart(2, '0')}::${(0xfe80 + i).toString(16)}`,
      })),
      authorities: [],
      additionals: [
        { name: 'x.example', type: 'TXT', class: 'IN', ttl: 5000, data: [Buffer.from([0, 0x7f, 0x80, 0xff])] },
      ],
    };
    const compiled = compile(many, 'www.example.com', 'AAAA');
    expect(compiled.bodyLength).toBeGreaterThan(600);
    const d = dnsPacket.decode(renderAnswer(request('www.example.com', 'AAAA', 9, false), compiled, 999));
    expect(d.answers).toEqual(
      many.answers!.map((a) => ({ ...a, ttl: (a as { ttl: number }).ttl - 999, flush: false })),
    );
    expect(d.additionals).toMatchObject([{ type: 'TXT', ttl: 4001, data: [Buffer.from([0, 0x7f, 0x80, 0xff])] }]);
  });

  it('patches every TTL in place (elapsed, floored at 0) and omits OPT for a client without EDNS(0)', () => {
    const compiled = compile(rich, 'www.example.com');
    const wire = renderAnswer(request('www.example.com', 'A', 8, false), compiled, 60);
    const d = dnsPacket.decode(wire);
    expect(d.answers!.map((a) => (a as { ttl: number }).ttl)).toEqual([40, 0, 10]);
    expect((d.authorities![0] as { ttl: number }).ttl).toBe(2940);
    expect(d.additionals).toMatchObject([{ type: 'AAAA', ttl: 2940 }]);
  });
});
