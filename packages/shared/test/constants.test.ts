import { describe, expect, it } from 'vitest';
import { accountShortName, formatCount, pageOffset, shortenDomain } from '../src/constants.ts';
import { ApiError } from '../src/errors.ts';

describe('spec-notes §9 formatters', () => {
  it('formats counts above 999 with one decimal and a k', () => {
    expect(formatCount(999)).toBe('999');
    expect(formatCount(1000)).toBe('1.0k');
    expect(formatCount(1234)).toBe('1.2k');
  });
  it('computes offsets as size × page − size', () => {
    expect(pageOffset(10, 1)).toBe(0);
    expect(pageOffset(10, 3)).toBe(20);
  });
  it('shortens long domains with more than two labels only', () => {
    expect(shortenDomain('a-very-long-subdomain.example.com')).toBe('…example.com');
    expect(shortenDomain('averyveryverylongdomainname.com')).toBe('averyveryverylongdomainname.com');
    expect(shortenDomain('www.example.com')).toBe('www.example.com');
  });
  it('takes the first letters of the first two words', () => {
    expect(accountShortName('acme  school district')).toBe('AS');
    expect(accountShortName('Globex')).toBe('G');
  });
});

describe('ApiError', () => {
  it('carries the catalogue status and the spec text', () => {
    const e = new ApiError('ERR_FORBIDDEN');
    expect(e.status).toBe(403);
    expect(e.toBody()).toEqual({ error: 'Client error: Forbidden.', code: 'ERR_FORBIDDEN' });
    expect(new ApiError('ERR_VALIDATION', 'Bad', { name: 'This is a required field.' }).toBody().fields).toEqual({
      name: 'This is a required field.',
    });
  });
});
