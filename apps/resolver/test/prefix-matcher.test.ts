import { describe, expect, it } from 'vitest';
import { PrefixMatcher, parseIpv4 } from '../src/snapshot/prefix-matcher.ts';

describe('PrefixMatcher', () => {
  it('picks the longest of overlapping IPv4 prefixes', () => {
    const m = new PrefixMatcher<string>();
    m.add('10.0.0.0/8', 'wide');
    m.add('10.1.0.0/16', 'mid');
    m.add('10.1.2.3/32', 'host');
    m.add('0.0.0.0/0', 'any');
    expect(m.lookup('10.1.2.3')).toBe('host');
    expect(m.lookup('10.1.2.4')).toBe('mid');
    expect(m.lookup('10.200.0.1')).toBe('wide');
    expect(m.lookup('192.0.2.1')).toBe('any');
  });

  it('treats IPv4-mapped IPv6 clients and ranges as IPv4', () => {
    const m = new PrefixMatcher<string>();
    m.add('192.0.2.0/24', 'net');
    m.add('::ffff:198.51.100.0/120', 'mapped');
    expect(m.lookup('::ffff:192.0.2.77')).toBe('net');
    expect(m.lookup('198.51.100.9')).toBe('mapped');
  });

  it('reads ranges and clients in the one canonical form, whatever their spelling', () => {
    const m = new PrefixMatcher<string>();
    m.add('::ffff:7f00:1/128', 'mapped-host');
    m.add('::FFFF:10.0.0.0/104', 'mapped-eight');
    expect(m.lookup('127.0.0.1')).toBe('mapped-host');
    expect(m.lookup('::ffff:127.0.0.1')).toBe('mapped-host');
    expect(m.lookup('::FFFF:7F00:1')).toBe('mapped-host');
    expect(m.lookup('0:0:0:0:0:ffff:a01:203')).toBe('mapped-eight');
    expect(m.lookup('::7f00:1')).toBeUndefined(); // IPv4-compatible, not mapped: an IPv6 source
  });

  it('keeps the first value of a range added twice, however it is written (oldest claim wins)', () => {
    const m = new PrefixMatcher<string>();
    expect(m.add('127.0.0.1/32', 'victim')).toBe(true);
    expect(m.add('::ffff:127.0.0.1/128', 'attacker')).toBe(false);
    expect(m.add('127.0.0.1', 'attacker')).toBe(false);
    expect(m.add('2001:db8::/48', 'first')).toBe(true);
    expect(m.add('2001:DB8:0::1/48', 'second')).toBe(false);
    expect(m.lookup('127.0.0.1')).toBe('victim');
    expect(m.lookup('::ffff:127.0.0.1')).toBe('victim');
    expect(m.lookup('2001:db8::5')).toBe('first');
    expect(m.size).toBe(2);
  });

  it('matches IPv6 by longest prefix and keeps families apart', () => {
    const m = new PrefixMatcher<string>();
    m.add('2001:db8::/32', 'site');
    m.add('2001:db8:1::/48', 'branch');
    m.add('::1/128', 'loopback');
    expect(m.lookup('2001:db8:1::42')).toBe('branch');
    expect(m.lookup('2001:db8:2::42')).toBe('site');
    expect(m.lookup('::1')).toBe('loopback');
    expect(m.lookup('2001:db9::1')).toBeUndefined();
    expect(m.lookup('127.0.0.1')).toBeUndefined();
  });

  it('returns undefined for garbage and rejects bad ranges', () => {
    const m = new PrefixMatcher<string>();
    m.add('127.0.0.1/32', 'x');
    expect(m.lookup('not-an-ip')).toBeUndefined();
    expect(m.lookup('127.0.0.1.5')).toBeUndefined();
    expect(() => m.add('10.0.0.0/33', 'y')).toThrow();
    expect(() => m.add('nonsense/8', 'y')).toThrow();
  });

  it('parses dotted quads strictly', () => {
    expect(parseIpv4('255.255.255.255')).toBe(0xffffffff);
    expect(parseIpv4('1.2.3')).toBe(-1);
    expect(parseIpv4('1.2.3.256')).toBe(-1);
    expect(parseIpv4('1..2.3')).toBe(-1);
  });
});
