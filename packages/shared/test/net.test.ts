import { describe, expect, it } from 'vitest';
import { isDomainName, isIpOrCidr, looksLikeUrl, normalizeCidr, normalizeName } from '../src/net.ts';

describe('names', () => {
  it('normalises qnames', () => {
    expect(normalizeName('WWW.Example.COM.')).toBe('www.example.com');
    expect(normalizeName('.afshin.ir')).toBe('afshin.ir');
  });

  it('accepts domains and refuses URLs (spec §5)', () => {
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

describe('normalizeCidr (spec §5 CIDR-or-IP)', () => {
  it('canonicalises addresses and ranges', () => {
    expect(normalizeCidr('127.0.0.1')).toBe('127.0.0.1/32');
    expect(normalizeCidr('10.1.2.3/8')).toBe('10.0.0.0/8');
    expect(normalizeCidr(' 192.168.1.0/24 ')).toBe('192.168.1.0/24');
    expect(normalizeCidr('::1')).toBe('::1/128');
    expect(normalizeCidr('2001:db8::1/32')).toBe('2001:db8::/32');
    expect(normalizeCidr('::ffff:10.0.0.1')).toBe('10.0.0.1/32');
  });

  it('refuses anything else', () => {
    for (const bad of ['', '1.2.3', '1.2.3.4/33', '300.1.1.1', 'example.com', '10.0.0.0/', '1.2.3.4/x', '010.1.1.1']) {
      expect(normalizeCidr(bad), bad).toBeNull();
      expect(isIpOrCidr(bad)).toBe(false);
    }
  });
});
