import { describe, expect, it } from 'vitest';
import { ConfigError, describeConfig, resolveServeConfig } from '../src/config.ts';

/** `--read-pool` / `CORDON_READ_POOL` and `--read-timeout` / `CORDON_READ_TIMEOUT` (docs/operations.md "Heavy reads"). */
describe('the heavy-read settings', () => {
  const base = { CORDON_UPSTREAM: '127.0.0.1:53' };

  it('default to 2 reads at once within 10 s, shown on the boot line', () => {
    const c = resolveServeConfig({}, base);
    expect({ readPool: c.readPool, readTimeout: c.readTimeout }).toEqual({ readPool: 2, readTimeout: 10 });
    expect(describeConfig(c, 'x')).toContain('read_pool=2,timeout=10s');
  });

  it('come from the flag over the variable, and refuse 0, text or more than 8 reads', () => {
    const env = { ...base, CORDON_READ_POOL: '4', CORDON_READ_TIMEOUT: '30' };
    expect(resolveServeConfig({}, env)).toMatchObject({ readPool: 4, readTimeout: 30 });
    expect(resolveServeConfig({ readPool: '1', readTimeout: '5' }, env)).toMatchObject({ readPool: 1, readTimeout: 5 });
    expect(() => resolveServeConfig({ readPool: '0' }, base)).toThrow(ConfigError);
    expect(() => resolveServeConfig({ readPool: '9' }, base)).toThrow(/--read-pool/);
    expect(() => resolveServeConfig({ readTimeout: '0' }, base)).toThrow(/--read-timeout/);
    expect(() => resolveServeConfig({ readTimeout: 'soon' }, base)).toThrow(ConfigError);
  });
});
