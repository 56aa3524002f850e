import { describe, expect, it } from 'vitest';
import { ConfigError, describeConfig, parseSwitch, resolveServeConfig } from '../src/config.ts';

/** The address-claim settings of `cordon serve` (docs/security.md; README "Configuration"). */
describe('address-claim settings', () => {
  const base = { CORDON_UPSTREAM: '127.0.0.1:53' };

  it('default to /24, /48, no private and no special-purpose ranges', () => {
    const c = resolveServeConfig({}, base);
    expect([c.claimMaxPrefixV4, c.claimMaxPrefixV6, c.claimAllowPrivate, c.claimAllowSpecial]).toEqual([
      24,
      48,
      false,
      false,
    ]);
    expect(describeConfig(c, 'x')).toContain('claims=v4/24,v6/48,private=false,special=false');
  });

  it('come from flags over variables', () => {
    const env = {
      ...base,
      CORDON_CLAIM_MAX_PREFIX_V4: '16',
      CORDON_CLAIM_MAX_PREFIX_V6: '32',
      CORDON_CLAIM_ALLOW_PRIVATE: 'yes',
      CORDON_CLAIM_ALLOW_SPECIAL: '1',
    };
    const c = resolveServeConfig({ claimMaxPrefixV4: '20', claimAllowSpecial: 'false' }, env);
    expect([c.claimMaxPrefixV4, c.claimMaxPrefixV6, c.claimAllowPrivate, c.claimAllowSpecial]).toEqual([
      20,
      32,
      true,
      false,
    ]);
  });

  it('refuse a /0 limit, an out-of-range length or a non-switch, naming the flag and variable', () => {
    expect(() => resolveServeConfig({ claimMaxPrefixV4: '0' }, base)).toThrow(
      /--claim-max-prefix-v4 \/ CORDON_CLAIM_MAX_PREFIX_V4: expected a whole number from 1 to 32/,
    );
    expect(() => resolveServeConfig({}, { ...base, CORDON_CLAIM_MAX_PREFIX_V6: '129' })).toThrow(ConfigError);
    expect(() => resolveServeConfig({}, { ...base, CORDON_CLAIM_ALLOW_PRIVATE: 'maybe' })).toThrow(
      /--claim-allow-private \/ CORDON_CLAIM_ALLOW_PRIVATE: expected true or false/,
    );
    expect(parseSwitch(' ON ', 'x')).toBe(true);
    expect(parseSwitch('0', 'x')).toBe(false);
  });
});
