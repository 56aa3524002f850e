import { describe, expect, it } from 'vitest';
import { dohQueryUrl, dotHostName, dotKeyCandidates, dotLabel, keyFromDotLabel } from '../src/phone-setup.ts';

/** The DoT host name of a key (docs/agent.md "DoT"): base32 of the key in one DNS label. */
describe('DoT labels', () => {
  it('round-trips every key of up to 39 characters through one lower-case LDH label', () => {
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    for (let n = 1; n <= 39; n++) {
      const key = Array.from({ length: n }, (_, i) => alphabet[(i * 7 + n) % alphabet.length]).join('');
      const label = dotLabel(key)!;
      expect(label).toMatch(/^[a-z2-7]{1,63}$/);
      expect(label).toHaveLength(Math.ceil((n * 8) / 5));
      expect(keyFromDotLabel(label)).toBe(key);
      expect(keyFromDotLabel(label.toUpperCase())).toBe(key);
    }
    // RFC 4648 §10's vectors, lower case and unpadded.
    expect(dotLabel('f')).toBe('my');
    expect(dotLabel('foobar')).toBe('mzxw6ytboi');
  });

  it('refuses what is not a key or would not fit a label', () => {
    expect(dotLabel('a'.repeat(40))).toBeNull();
    expect(dotLabel('not a key')).toBeNull();
    expect(dotLabel('')).toBeNull();
    expect(keyFromDotLabel('my1')).toBeNull(); // 1 is not base32
    expect(keyFromDotLabel('mz')).toBeNull(); // non-zero padding bits
    expect(keyFromDotLabel('ea')).toBeNull(); // decodes to a space: not a key
    expect(keyFromDotLabel('')).toBeNull();
  });

  it('builds the host name and reads the candidate keys back from a server name', () => {
    const key = 'Dev_Key-0123456789abcdefGHIJKLMN';
    const host = dotHostName(key, 'Dot.Filter.Example.net.')!;
    expect(host).toBe(`${dotLabel(key)}.dot.filter.example.net`);
    // The decoded key first, then the label as sent (the resolver takes the first that names someone).
    expect(dotKeyCandidates(host, 'dot.filter.example.net')).toEqual([key, dotLabel(key)]);
    expect(dotKeyCandidates(`${host.toUpperCase()}.`, 'dot.filter.example.net')[0]).toBe(key);
    expect(dotKeyCandidates(host, 'other.example')).toEqual([]);
    expect(dotKeyCandidates(host, null)[0]).toBe(key);
    // A label that is not base32 is tried as the key itself.
    expect(dotKeyCandidates('vkey_1.dot.example', 'dot.example')).toEqual(['vkey_1']);
    expect(dotKeyCandidates('a.b.dot.example', 'dot.example')).toEqual([]);
    expect(dotKeyCandidates('localhost', null)).toEqual([]);
    expect(dohQueryUrl('https://dns.example.net/', key)).toBe(`https://dns.example.net/dns-query/${key}`);
  });
});
