import { describe, expect, it } from 'vitest';
import { ConfigError, describeConfig, resolveServeConfig } from '../src/config.ts';

/** The DoH listener settings of `cordon serve` (docs/agent.md "DoH"). */
describe('DoH settings', () => {
  const base = { CORDON_UPSTREAM: '127.0.0.1:53' };

  it('default to off; an address with no certificate gets leaves minted from the root CA', () => {
    const off = resolveServeConfig({}, base);
    expect(off.dohAddr).toBeNull();
    expect(describeConfig(off, 'x')).toContain('doh=off');
    const c = resolveServeConfig({}, { ...base, CORDON_DOH_ADDR: '127.0.0.1:8053' });
    expect(c.dohAddr).toEqual({ host: '127.0.0.1', port: 8053 });
    expect(c.dohCertFile).toBeUndefined();
    expect(describeConfig(c, 'x')).toContain('doh=127.0.0.1:8053 (root CA)');
  });

  it('take the flag over the variable, "off", and a certificate with its key', () => {
    expect(resolveServeConfig({ dohAddr: '[::1]:443' }, { ...base, CORDON_DOH_ADDR: '0.0.0.0:8443' }).dohAddr).toEqual({
      host: '::1',
      port: 443,
    });
    expect(resolveServeConfig({ dohAddr: 'off' }, { ...base, CORDON_DOH_ADDR: '0.0.0.0:8443' }).dohAddr).toBeNull();
    const tls = resolveServeConfig(
      { dohAddr: '127.0.0.1:8053', dohCert: '/etc/cordon/doh.pem', dohKey: '/etc/cordon/doh.key' },
      base,
    );
    expect([tls.dohCertFile, tls.dohKeyFile]).toEqual(['/etc/cordon/doh.pem', '/etc/cordon/doh.key']);
    expect(describeConfig(tls, 'x')).toContain('doh=127.0.0.1:8053 ');
  });

  it('refuse a certificate without its key, and a malformed address', () => {
    expect(() => resolveServeConfig({ dohCert: '/x.pem' }, base)).toThrow(ConfigError);
    expect(() => resolveServeConfig({}, { ...base, CORDON_DOH_ADDR: 'localhost' })).toThrow(/--doh-addr/);
  });
});
