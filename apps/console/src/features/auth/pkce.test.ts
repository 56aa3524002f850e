import { describe, expect, it } from 'vitest';
import { base64Url, codeChallengeS256, createCodeVerifier, createState } from './pkce.ts';

describe('PKCE and state (spec-notes §9, RFC 7636)', () => {
  it('creates a 128-hex-character verifier, different each time', () => {
    const a = createCodeVerifier();
    expect(a).toMatch(/^[0-9a-f]{128}$/);
    expect(createCodeVerifier()).not.toBe(a);
  });

  it('creates a 40-character alphanumeric state', () => {
    expect(createState()).toMatch(/^[A-Za-z0-9]{40}$/);
  });

  it('computes the S256 challenge of RFC 7636 Appendix B', async () => {
    expect(await codeChallengeS256('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk')).toBe(
      'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    );
  });

  it('base64url-encodes the RFC 7636 Appendix B octets into its verifier', () => {
    const octets = [
      116, 24, 223, 180, 151, 153, 224, 37, 79, 250, 96, 125, 216, 173, 187, 186, 22, 212, 37, 77, 105, 214, 191, 240,
      91, 88, 5, 88, 83, 132, 141, 121,
    ];
    expect(base64Url(new Uint8Array(octets))).toBe('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk');
  });

  it('gives a 43-character challenge for a generated verifier', async () => {
    expect(await codeChallengeS256(createCodeVerifier())).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});
