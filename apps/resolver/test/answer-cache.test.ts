import type { Packet } from 'dns-packet';
import { describe, expect, it } from 'vitest';
import { AnswerCache, STALE_TTL } from '../src/cache/answer-cache.ts';

const positive = (ttls: number[]): Packet => ({
  type: 'response',
  flags: 0,
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

function clock(start = 1_000_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

describe('AnswerCache', () => {
  it('keys by lower-case qname, qtype, qclass and DO bit', () => {
    expect(AnswerCache.key('example.com', 1, 'IN', false)).not.toBe(AnswerCache.key('example.com', 1, 'IN', true));
    expect(AnswerCache.key('example.com', 1, 'IN', false)).not.toBe(AnswerCache.key('example.com', 28, 'IN', false));
  });

  it('keeps a positive answer for the smallest record TTL and decrements TTLs', () => {
    const c = clock();
    const cache = new AnswerCache({ now: c.now });
    expect(cache.set('k', positive([300, 120]))).toBe(120);
    c.advance(10_500);
    const hit = cache.get('k', 'www.example');
    expect(hit?.answers.map((a) => (a as { ttl: number }).ttl)).toEqual([290, 110]);
    expect(hit?.answers[0]?.name).toBe('www.example');
    expect(hit?.additionals).toEqual([]); // the upstream's OPT is never replayed
    c.advance(110_000);
    expect(cache.get('k')).toBeUndefined();
  });

  it('keeps NXDOMAIN for min(SOA TTL, SOA MINIMUM) and skips negative answers without SOA', () => {
    const c = clock();
    const cache = new AnswerCache({ now: c.now });
    expect(cache.set('nx', negative(3600, 60))).toBe(60);
    expect(cache.get('nx')?.rcode).toBe(3);
    expect(cache.set('nosoa', { type: 'response', flags: 3, answers: [], authorities: [] })).toBe(0);
    expect(cache.set('servfail', { ...positive([300]), flags: 2 })).toBe(0);
    expect(cache.set('zero', positive([0]))).toBe(0);
  });

  it('serves an expired answer stale with TTL 30 until maxStale', () => {
    const c = clock();
    const cache = new AnswerCache({ now: c.now, maxStale: 3600 });
    cache.set('k', positive([60]));
    c.advance(61_000);
    expect(cache.get('k')).toBeUndefined();
    const stale = cache.getStale('k');
    expect(stale?.answers.map((a) => (a as { ttl: number }).ttl)).toEqual([STALE_TTL]);
    c.advance(3600_000);
    expect(cache.getStale('k')).toBeUndefined();
  });

  it('evicts the least recently used entry when full', () => {
    const cache = new AnswerCache({ maxEntries: 2 });
    cache.set('a', positive([300]));
    cache.set('b', positive([300]));
    cache.get('a');
    cache.set('c', positive([300]));
    expect(cache.get('a')).toBeDefined();
    expect(cache.get('b')).toBeUndefined();
    expect(cache.size).toBe(2);
  });
});
