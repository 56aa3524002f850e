import { describe, expect, it } from 'vitest';
import { compilePolicy } from '../../src/compiled-policy.ts';
import { policyAllowRule } from '../../src/engine/rules/policy-allow.ts';
import { list, snapshot, who } from './helpers.ts';

describe('policy-allow rule (step 3)', () => {
  const policy = compilePolicy(1, 1, [], true, { allow: list('exact.example', '*.tree.example') });

  it('matches an exact entry only on its name, a subdomain entry on its subtree', () => {
    const d = policyAllowRule.decide(snapshot(), who(policy), 'exact.example', 0);
    expect(d).toEqual({ action: 'allowed', reason: 'policy_allow', categories: [] });
    expect(policyAllowRule.decide(snapshot(), who(policy), 'www.exact.example', 0)).toBeNull();
    expect(policyAllowRule.decide(snapshot(), who(policy), 'tree.example', 0)?.reason).toBe('policy_allow');
    expect(policyAllowRule.decide(snapshot(), who(policy), 'a.b.tree.example', 0)?.reason).toBe('policy_allow');
    expect(policyAllowRule.decide(snapshot(), who(policy), 'nottree.example', 0)).toBeNull();
  });

  it('passes at once for a policy without that list, or no policy', () => {
    expect(compilePolicy(2, 1, [], true).allow).toBeNull();
    expect(policyAllowRule.decide(snapshot(), who(compilePolicy(2, 1, [], true)), 'exact.example', 0)).toBeNull();
    expect(policyAllowRule.decide(snapshot(), who(null), 'exact.example', 0)).toBeNull();
  });
});
