import { describe, expect, it } from 'vitest';
import { pemToDer } from './api.ts';

describe('root certificate files in the browser', () => {
  it('turns the PEM into its DER bytes (RFC 7468 §2) and refuses anything else', () => {
    const der = new Uint8Array([0x30, 0x82, 0x01, 0x0a, 0xff, 0x00]);
    const b64 = btoa(String.fromCharCode(...der));
    const pem = `-----BEGIN CERTIFICATE-----\n${b64}\n-----END CERTIFICATE-----\n`;
    expect(pemToDer(pem)).toEqual(der);
    expect(() => pemToDer('not a certificate')).toThrow();
  });
});
