import { describe, expect, it } from 'vitest';
import { compilePolicy } from '../../src/compiled-policy.ts';
import { evaluate } from '../../src/engine/index.ts';
import { bypassRule } from '../../src/engine/rules/bypass.ts';
import { index, snapshot, who } from './helpers.ts';

describe('bypass rule (step 1, docs/architecture.md "Block page")', () => {
  const policy = compilePolicy(1, 1, [6, 20], true, {});
  const categories = index([
    ['gambling.example', [20]],
    ['malware.example', [6]],
    ['both.example', [20, 5]],
  ]);
  const bypasses = new Map([['192.0.2.1', Object.freeze({ customerId: 1, expiresAt: 10_000 })]]);
  const snap = snapshot({ categories, bypasses });
  const ask = (qname: string, clientIp: string, now = 5_000) => evaluate(snap, who(policy), { qname, clientIp }, now);

  it('bypasses a blocked name for the client until the bypass ends', () => {
    expect(ask('gambling.example', '192.0.2.1')).toMatchObject({ action: 'bypassed', reason: 'bypass' });
    expect(ask('www.gambling.example', '192.0.2.1').reason).toBe('bypass');
    expect(ask('gambling.example', '192.0.2.1', 10_000)).toMatchObject({ action: 'blocked', reason: 'category' });
  });

  it('never bypasses a security category (1, 5, 6, 53)', () => {
    expect(ask('malware.example', '192.0.2.1')).toMatchObject({ action: 'blocked', reason: 'category' });
    expect(ask('both.example', '192.0.2.1').action).toBe('blocked');
  });

  it('applies to that client of that customer only', () => {
    expect(ask('gambling.example', '192.0.2.2').action).toBe('blocked');
    expect(evaluate(snap, who(policy), { qname: 'gambling.example' }, 5_000).action).toBe('blocked');
    const other = { ...who(policy), customerId: 2 };
    expect(evaluate(snap, other, { qname: 'gambling.example', clientIp: '192.0.2.1' }, 5_000).action).toBe('blocked');
  });

  it('passes at once without bypasses', () => {
    expect(bypassRule.decide(snapshot({ categories }), who(policy), 'gambling.example', 0, '192.0.2.1')).toBeNull();
  });
});
