import { describe, expect, it } from 'vitest';
import {
  advancedConfigSchema,
  exceptionRuleCreateSchema,
  Messages,
  normalizeResolver,
  otherLocationCreateSchema,
} from '../src/index.ts';

describe('exception rule resolvers (docs/decisions.md "Environment")', () => {
  it('normalises ip and ip:port, IPv6 in brackets, port 53 dropped', () => {
    expect(normalizeResolver('192.0.2.53')).toBe('192.0.2.53');
    expect(normalizeResolver(' 192.0.2.53:53 ')).toBe('192.0.2.53');
    expect(normalizeResolver('192.0.2.53:5353')).toBe('192.0.2.53:5353');
    expect(normalizeResolver('[2001:DB8::1]:853')).toBe('[2001:db8::1]:853');
    expect(normalizeResolver('2001:db8::1')).toBe('2001:db8::1');
    expect(normalizeResolver('::ffff:192.0.2.1')).toBe('192.0.2.1');
  });
  it('refuses host names, bad ports and garbage', () => {
    for (const bad of ['dns.example', '192.0.2.53:0', '192.0.2.53:70000', '[::1', '300.1.1.1', '']) {
      expect(normalizeResolver(bad), bad).toBeNull();
    }
  });
});

describe('exception rules (spec-notes §3, §5)', () => {
  it('needs a domain or a source IP, and a resolver for "Use Specific Resolver"', () => {
    const noTarget = exceptionRuleCreateSchema.safeParse({ rule_type: 'ByPass OTG' });
    expect(noTarget.error?.issues.map((i) => [i.path.join('.'), i.message])).toEqual([
      ['domain', 'Domain required unless IP is provided.'],
    ]);
    const noResolver = exceptionRuleCreateSchema.safeParse({ domain: 'a.example', rule_type: 'Use Specific Resolver' });
    expect(noResolver.error?.issues[0]?.message).toBe(Messages.required);
    expect(
      exceptionRuleCreateSchema.parse({ ip: '192.0.2.7', rule_type: 'ByPass OTG', domain: '.Corp.Example.' }),
    ).toMatchObject({ ip: '192.0.2.7/32', domain: 'corp.example', resolver: '' });
  });
});

describe('advanced JSON configuration (spec-notes §5 "Must contain valid JSON.")', () => {
  it('accepts any JSON value and refuses text that does not parse', () => {
    expect(advancedConfigSchema.safeParse({ configuration: '{"a":[1]}' }).success).toBe(true);
    expect(advancedConfigSchema.safeParse({ configuration: '42' }).success).toBe(true);
    expect(advancedConfigSchema.safeParse({ configuration: "{'a':1}" }).error?.issues[0]?.message).toBe(
      Messages.invalidJson,
    );
    expect(advancedConfigSchema.safeParse({ configuration: '  ' }).error?.issues[0]?.message).toBe(Messages.required);
  });
});

describe('location bodies (spec-notes §5)', () => {
  it('normalises a dynamic DNS host and refuses a URL or a single label', () => {
    expect(otherLocationCreateSchema.parse({ name: 'Shop', hostname: 'Shop.Example.NET.' }).hostname).toBe(
      'shop.example.net',
    );
    for (const hostname of ['https://shop.example/', 'localhost']) {
      expect(otherLocationCreateSchema.safeParse({ name: 'Shop', hostname }).error?.issues[0]?.message).toBe(
        Messages.domainOnly,
      );
    }
    expect(otherLocationCreateSchema.safeParse({ name: 'Home', ip: '192.0.2.0/24' }).error?.issues[0]?.message).toBe(
      Messages.invalidIp,
    );
  });
});
