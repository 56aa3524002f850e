import { describe, expect, it } from 'vitest';
import {
  type CidrRange,
  canonicalIp,
  claimRefusal,
  coversMappedSpace,
  DEFAULT_CLAIM_LIMITS,
  isDomainName,
  isIpOrCidr,
  looksLikeUrl,
  normalizeCidr,
  normalizeName,
  parseCidr,
  rangeHex,
  rangesOverlap,
} from '../src/net.ts';

describe('names', () => {
  it('normalises qnames', () => {
    expect(normalizeName('WWW.Example.COM.')).toBe('www.example.com');
    expect(normalizeName('.afshin.ir')).toBe('afshin.ir');
  });

  it('accepts domains and refuses URLs (spec-notes §5)', () => {
    expect(isDomainName('example.com')).toBe(true);
    expect(isDomainName('_dmarc.example.com')).toBe(true);
    expect(isDomainName('com')).toBe(false);
    expect(isDomainName('com', { allowSingleLabel: true })).toBe(true);
    expect(isDomainName('-bad.example')).toBe(false);
    expect(isDomainName(`${'a'.repeat(64)}.example`)).toBe(false);
    expect(looksLikeUrl('https://example.com')).toBe(true);
    expect(looksLikeUrl('example.com/path')).toBe(true);
    expect(looksLikeUrl('example.com')).toBe(false);
  });
});

describe('normalizeCidr (spec-notes §5 CIDR-or-IP)', () => {
  it('canonicalises addresses and ranges', () => {
    expect(normalizeCidr('127.0.0.1')).toBe('127.0.0.1/32');
    expect(normalizeCidr('10.1.2.3/8')).toBe('10.0.0.0/8');
    expect(normalizeCidr(' 192.168.1.0/24 ')).toBe('192.168.1.0/24');
    expect(normalizeCidr('::1')).toBe('::1/128');
    expect(normalizeCidr('2001:db8::1/32')).toBe('2001:db8::/32');
    expect(normalizeCidr('::ffff:10.0.0.1')).toBe('10.0.0.1/32');
  });

  it('refuses anything else', () => {
    for (const bad of [
      '',
      '1.2.3',
      '1.2.3.4/33',
      '300.1.1.1',
      'example.com',
      '10.0.0.0/',
      '1.2.3.4/x',
      '010.1.1.1',
      '::1/129',
      '10.0.0.0/8/8',
      '10.0.0.0/-1',
      'fe80::1%eth0',
    ]) {
      expect(normalizeCidr(bad), bad).toBeNull();
      expect(isIpOrCidr(bad)).toBe(false);
    }
  });
});

/** The range of a CIDR text that must parse. */
function range(cidr: string): CidrRange {
  const r = parseCidr(cidr);
  if (!r) throw new Error(`${cidr} does not parse`);
  return r;
}

describe('one canonical form of addresses (docs/security.md)', () => {
  it('makes an IPv4-mapped IPv6 prefix of length ≥ 96 the IPv4 prefix of length − 96', () => {
    expect(normalizeCidr('::ffff:127.0.0.1/128')).toBe('127.0.0.1/32');
    expect(normalizeCidr('::ffff:7f00:1/128')).toBe('127.0.0.1/32');
    expect(normalizeCidr('::FFFF:7F00:1')).toBe('127.0.0.1/32');
    expect(normalizeCidr('0:0:0:0:0:ffff:7f00:0001')).toBe('127.0.0.1/32');
    expect(normalizeCidr('::ffff:10.0.0.0/104')).toBe('10.0.0.0/8');
    expect(normalizeCidr('::ffff:198.51.100.77/120')).toBe('198.51.100.0/24');
    expect(normalizeCidr('::ffff:0:0/96')).toBe('0.0.0.0/0');
    expect(parseCidr('::ffff:127.0.0.1/128')).toEqual(parseCidr('127.0.0.1'));
  });

  it('keeps shorter mapped prefixes and other IPv6 as IPv6, and is idempotent', () => {
    expect(normalizeCidr('::ffff:0:0/95')).toBe('::fffe:0:0/95');
    expect(normalizeCidr('::7f00:1')).toBe('::7f00:1/128'); // IPv4-compatible (deprecated) is not mapped
    expect(normalizeCidr('2001:DB8:0:0::1/48')).toBe('2001:db8::/48');
    for (const text of ['127.0.0.1/32', '10.0.0.0/8', '::fffe:0:0/95', '2001:db8::/48', '0.0.0.0/0', '::/0']) {
      expect(normalizeCidr(text)).toBe(text);
    }
  });

  it('canonicalises source addresses the same way', () => {
    expect(canonicalIp('::ffff:192.0.2.1')).toBe('192.0.2.1');
    expect(canonicalIp('::FFFF:c000:201')).toBe('192.0.2.1');
    expect(canonicalIp('0:0:0:0:0:ffff:c000:201')).toBe('192.0.2.1');
    expect(canonicalIp('192.0.2.1')).toBe('192.0.2.1');
    expect(canonicalIp('2001:db8::ffff')).toBe('2001:db8::ffff');
    expect(canonicalIp('::1')).toBe('::1');
    expect(canonicalIp('not-an-ip')).toBe('not-an-ip');
  });

  it('gives fixed-width hex bounds whose text order is numeric order', () => {
    expect(rangeHex(range('10.0.0.0/8'))).toEqual({ start: '0a000000', end: '0affffff' });
    expect(rangeHex(range('::ffff:127.0.0.1/128'))).toEqual({ start: '7f000001', end: '7f000001' });
    expect(rangeHex(range('2001:db8::/32'))).toEqual({
      start: '20010db8000000000000000000000000',
      end: '20010db8ffffffffffffffffffffffff',
    });
    expect(rangeHex(range('9.255.255.255')).start < rangeHex(range('10.0.0.0')).start).toBe(true);
  });

  it('finds overlaps in either direction, within one family', () => {
    expect(rangesOverlap(range('127.0.5.0/24'), range('127.0.5.9'))).toBe(true);
    expect(rangesOverlap(range('127.0.5.9'), range('127.0.5.0/24'))).toBe(true);
    expect(rangesOverlap(range('::ffff:127.0.5.9/128'), range('127.0.5.0/24'))).toBe(true);
    expect(rangesOverlap(range('127.0.4.0/24'), range('127.0.5.0/24'))).toBe(false);
    expect(rangesOverlap(range('::/0'), range('127.0.0.1'))).toBe(false);
    expect(coversMappedSpace(range('::ffff:0:0/95'))).toBe(true);
    expect(coversMappedSpace(range('::/0'))).toBe(true);
    expect(coversMappedSpace(range('::/8'))).toBe(true);
    expect(coversMappedSpace(range('2001:db8::/32'))).toBe(false);
  });
});

describe('claim limits (docs/security.md)', () => {
  const refusal = (cidr: string, limits = DEFAULT_CLAIM_LIMITS) => claimRefusal(range(cidr), limits);

  it('refuses /0 and prefixes covering the IPv4-mapped range to everyone, system admins included', () => {
    for (const cidr of ['0.0.0.0/0', '::/0', '::ffff:0:0/96', '1.2.3.4/0']) {
      expect(claimRefusal(range(cidr), null), cidr).toMatch(/^The whole address space \(\/0\) cannot be claimed: /);
    }
    expect(claimRefusal(range('::ffff:0:0/95'), null)).toBe(
      'Addresses covering the IPv4-mapped range ::ffff:0:0/96 cannot be claimed: ::fffe:0:0/95. Claim the IPv4 range instead.',
    );
    expect(claimRefusal(range('127.0.0.0/8'), null)).toBeNull();
    expect(claimRefusal(range('10.0.0.0/8'), null)).toBeNull();
  });

  it('refuses prefixes wider than the limit, per family', () => {
    expect(refusal('198.51.0.0/16')).toBe('Addresses wider than /24 cannot be claimed: 198.51.0.0/16.');
    expect(refusal('198.51.100.0/23')).toBe('Addresses wider than /24 cannot be claimed: 198.51.100.0/23.');
    expect(refusal('198.51.100.0/24')).toBeNull();
    expect(refusal('::ffff:198.51.100.0/120')).toBeNull();
    expect(refusal('2001:db8::/47')).toBe('Addresses wider than /48 cannot be claimed: 2001:db8::/47.');
    expect(refusal('2001:db8:1::/48')).toBeNull();
    expect(refusal('198.51.0.0/16', { ...DEFAULT_CLAIM_LIMITS, maxPrefixV4: 16 })).toBeNull();
  });

  it('refuses special-purpose ranges, overlapping in either direction, unless allowed', () => {
    const cases: Array<[string, string]> = [
      ['127.0.0.1', 'Loopback addresses cannot be claimed: 127.0.0.1/32.'],
      ['::ffff:127.0.0.1', 'Loopback addresses cannot be claimed: 127.0.0.1/32.'],
      ['::1', 'Loopback addresses cannot be claimed: ::1/128.'],
      ['169.254.10.0/24', 'Link-local addresses cannot be claimed: 169.254.10.0/24.'],
      ['fe80::/64', 'Link-local addresses cannot be claimed: fe80::/64.'],
      ['224.0.0.251', 'Multicast addresses cannot be claimed: 224.0.0.251/32.'],
      ['ff02::1', 'Multicast addresses cannot be claimed: ff02::1/128.'],
      ['0.0.0.0', 'Unspecified addresses cannot be claimed: 0.0.0.0/32.'],
      ['::', 'Unspecified addresses cannot be claimed: ::/128.'],
      ['255.255.255.255', 'Broadcast addresses cannot be claimed: 255.255.255.255/32.'],
      ['240.0.0.0/24', 'Reserved addresses cannot be claimed: 240.0.0.0/24.'],
    ];
    for (const [cidr, message] of cases) {
      expect(refusal(cidr), cidr).toBe(message);
      expect(refusal(cidr, { ...DEFAULT_CLAIM_LIMITS, allowSpecial: true }), cidr).toBeNull();
    }
    // A wide limit does not let a range covering loopback through.
    expect(refusal('96.0.0.0/3', { ...DEFAULT_CLAIM_LIMITS, maxPrefixV4: 1 })).toBe(
      'Loopback addresses cannot be claimed: 96.0.0.0/3.',
    );
  });

  it('refuses private ranges unless the operator allows them', () => {
    for (const cidr of ['10.1.2.0/24', '172.16.5.5', '192.168.1.0/24', '100.64.0.1', 'fd12:3456::/48']) {
      expect(refusal(cidr), cidr).toMatch(/^Private addresses cannot be claimed: /);
      expect(refusal(cidr, { ...DEFAULT_CLAIM_LIMITS, allowPrivate: true }), cidr).toBeNull();
    }
    expect(refusal('172.32.0.1')).toBeNull();
    expect(refusal('203.0.113.7')).toBeNull();
  });
});
