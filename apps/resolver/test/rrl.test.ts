import dnsPacket from 'dns-packet';
import ipaddr from 'ipaddr.js';
import { describe, expect, it } from 'vitest';
import { connectionSourceKey, ipv4Prefix24, parseIpv6, rrlPrefix } from '../src/transport/client-prefix.ts';
import { ResponseRateLimiter, RRL_DROP, RRL_PASS, RRL_SLIP, type RrlVerdict } from '../src/transport/rrl.ts';
import { queryType } from '../src/transport/udp.ts';

/** A limiter on a hand-driven clock (ms). */
function limiter(ratePerSecond: number, slip: number, tableSize?: number) {
  const clock = { now: 0 };
  const rrl = new ResponseRateLimiter({ ratePerSecond, slip, ...(tableSize ? { tableSize } : {}) }, () => clock.now);
  return { rrl, clock };
}

function tally(verdicts: RrlVerdict[]) {
  return {
    pass: verdicts.filter((v) => v === RRL_PASS).length,
    drop: verdicts.filter((v) => v === RRL_DROP).length,
    slip: verdicts.filter((v) => v === RRL_SLIP).length,
  };
}

describe('client prefixes', () => {
  it('reads the IPv4 /24 and refuses what is not a dotted quad', () => {
    expect(ipv4Prefix24('192.0.2.77')).toBe((192 << 16) | 2);
    expect(ipv4Prefix24('10.20.30.40')).toBe((10 << 16) | (20 << 8) | 30);
    for (const bad of ['', '1.2.3', '1.2.3.4.5', '256.1.1.1', '1..2.3', '1.2.3.', '::1', 'a.b.c.d', '1.2.3.1000']) {
      expect(ipv4Prefix24(bad), bad).toBe(-1);
    }
  });

  it('parses IPv6 in every text form like ipaddr.js does', () => {
    const out = new Uint16Array(8);
    for (const text of [
      '::',
      '::1',
      '1::',
      '2001:db8::1',
      '2001:db8:0:0:1:0:0:1',
      '2001:DB8:aaaa:bbbb:cccc:dddd:eeee:ffff',
      'fe80::1%eth0',
      '::ffff:192.0.2.1',
      '64:ff9b::198.51.100.7',
      '2001:db8:1:2:3:4:5::',
      '1:2:3:4:5:6:7:8',
    ]) {
      expect(parseIpv6(text, out), text).toBe(true);
      expect([...out], text).toEqual(ipaddr.IPv6.parse(text.split('%')[0]!).parts);
    }
    for (const bad of [
      '',
      ':',
      ':::',
      '1:2',
      '1::2::3',
      '12345::',
      '1:2:3:4:5:6:7:8:9',
      'g::1',
      '1:',
      '::1.2.3',
      '1.2.3.4',
    ]) {
      expect(parseIpv6(bad, out), bad).toBe(false);
    }
  });

  it('groups rate limiting by IPv4 /24 and IPv6 /56, connections by IPv4 address and IPv6 /64', () => {
    const a = new Uint32Array(3);
    const b = new Uint32Array(3);
    const same = (x: string, y: string) => rrlPrefix(x, a) && rrlPrefix(y, b) && a.join() === b.join();
    expect(same('192.0.2.1', '192.0.2.254')).toBe(true);
    expect(same('192.0.2.1', '192.0.3.1')).toBe(false);
    expect(same('2001:db8:0:ff::1', '2001:db8:0:1::2')).toBe(true); // the 4th group's low byte is past /56
    expect(same('2001:db8:0:100::1', '2001:db8:0:200::1')).toBe(false);
    expect(same('2001:db8::1', '192.0.2.1')).toBe(false);
    expect(rrlPrefix('not an address', a)).toBe(false);

    expect(connectionSourceKey('192.0.2.1')).toBe('192.0.2.1');
    expect(connectionSourceKey('2001:db8:0:1::5')).toBe(connectionSourceKey('2001:db8:0:1:ffff::6'));
    expect(connectionSourceKey('2001:db8:0:1::5')).not.toBe(connectionSourceKey('2001:db8:0:2::5'));
  });
});

describe('response-rate limiting', () => {
  it('lets a burst of `rate` through, then drops, truncating every slip-th limited query', () => {
    const { rrl } = limiter(10, 2);
    const t = tally(Array.from({ length: 30 }, () => rrl.check('192.0.2.1')));
    expect(t).toEqual({ pass: 10, drop: 10, slip: 10 });
  });

  it('refills at the rate, up to one second of burst', () => {
    const { rrl, clock } = limiter(10, 0);
    for (let i = 0; i < 10; i++) rrl.check('192.0.2.1');
    expect(rrl.check('192.0.2.1')).toBe(RRL_DROP);
    clock.now += 250; // 2.5 tokens
    expect(tally(Array.from({ length: 5 }, () => rrl.check('192.0.2.9')))).toEqual({ pass: 2, drop: 3, slip: 0 });
    clock.now += 60_000; // a long quiet spell refills to the burst, no more
    expect(tally(Array.from({ length: 15 }, () => rrl.check('192.0.2.1'))).pass).toBe(10);
  });

  it('keeps other prefixes unaffected', () => {
    const { rrl } = limiter(5, 2);
    for (let i = 0; i < 50; i++) rrl.check('198.51.100.7');
    expect(rrl.check('198.51.100.200')).not.toBe(RRL_PASS);
    expect(rrl.check('198.51.101.7')).toBe(RRL_PASS);
    expect(rrl.check('2001:db8::1')).toBe(RRL_PASS);
  });

  it('slip 1 truncates every limited query, slip 0 drops them all', () => {
    const one = limiter(1, 1).rrl;
    expect(tally(Array.from({ length: 5 }, () => one.check('::1')))).toEqual({ pass: 1, drop: 0, slip: 4 });
    const zero = limiter(1, 0).rrl;
    expect(tally(Array.from({ length: 5 }, () => zero.check('::1')))).toEqual({ pass: 1, drop: 4, slip: 0 });
  });

  it('tracks a bounded number of prefixes: a flood of sources evicts old ones instead of growing', () => {
    const { rrl, clock } = limiter(2, 0, 64);
    expect(rrl.capacity).toBe(64);
    for (let i = 0; i < 3; i++) rrl.check('203.0.113.1');
    expect(rrl.check('203.0.113.1')).toBe(RRL_DROP);
    for (let i = 0; i < 100_000; i++) {
      clock.now += 0.001;
      rrl.check(`10.${(i >> 8) & 255}.${i & 255}.1`);
    }
    // The table never grew past its slots; the quiet prefix was evicted and starts afresh.
    expect(rrl.capacity).toBe(64);
    expect(rrl.check('203.0.113.1')).toBe(RRL_PASS);
  });

  it('refuses nonsense settings', () => {
    expect(() => new ResponseRateLimiter({ ratePerSecond: -1 })).toThrow(RangeError);
    expect(() => new ResponseRateLimiter({ ratePerSecond: 10, slip: 1.5 })).toThrow(RangeError);
    expect(() => new ResponseRateLimiter({ ratePerSecond: 10, tableSize: 0 })).toThrow(RangeError);
  });
});

describe('per-location limiting (docs/operations.md "Response-rate limiting")', () => {
  it('gives each location its own bucket, apart from the prefixes', () => {
    const { rrl, clock } = limiter(5, 2);
    const first = tally(Array.from({ length: 10 }, () => rrl.checkLocation(7)));
    expect(first).toEqual({ pass: 5, drop: 3, slip: 2 });
    // Another location, and a prefix, are not charged by location 7.
    expect(tally(Array.from({ length: 5 }, () => rrl.checkLocation(8))).pass).toBe(5);
    expect(rrl.check('192.0.2.1')).toBe(RRL_PASS);
    // Refills at the rate: 200 ms at 5/s is one more.
    clock.now += 200;
    expect(rrl.checkLocation(7)).toBe(RRL_PASS);
    expect(rrl.checkLocation(7)).not.toBe(RRL_PASS);
  });

  it('reads the QTYPE of a query in place', () => {
    const wire = (type: 'A' | 'ANY' | 'AAAA') =>
      dnsPacket.encode({
        id: 1,
        type: 'query',
        questions: [{ name: 'www.example.com', type: type as 'A', class: 'IN' }],
      });
    expect(queryType(wire('A'))).toBe(1);
    expect(queryType(wire('AAAA'))).toBe(28);
    expect(queryType(wire('ANY'))).toBe(255);
    // A name running past the message, a compressed name, a bare header.
    expect(queryType(wire('ANY').subarray(0, 20))).toBe(-1);
    expect(queryType(Buffer.from([0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0xc0, 12, 0, 1, 0, 1]))).toBe(-1);
    expect(queryType(Buffer.alloc(12))).toBe(-1);
  });
});
