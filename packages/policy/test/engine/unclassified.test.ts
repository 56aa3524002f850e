import { describe, expect, it } from 'vitest';
import { compilePolicy } from '../../src/compiled-policy.ts';
import { unclassifiedRule } from '../../src/engine/rules/unclassified.ts';
import { index, snapshot, who } from './helpers.ts';

describe('unclassified rule (step 6)', () => {
  const snap = snapshot({ categories: index([['news.example', [39]]]) });

  it('blocks a name without category when the policy does not allow unclassified names', () => {
    const strict = compilePolicy(1, 1, [], false);
    expect(unclassifiedRule.decide(snap, who(strict), 'plain.example', 0)).toEqual({
      action: 'blocked',
      reason: 'unclassified',
      categories: [],
    });
    expect(unclassifiedRule.decide(snap, who(strict), 'www.news.example', 0)).toBeNull();
  });

  it('passes when the switch allows them, or without a policy', () => {
    expect(unclassifiedRule.decide(snap, who(compilePolicy(1, 1, [], true)), 'plain.example', 0)).toBeNull();
    expect(unclassifiedRule.decide(snap, who(null), 'plain.example', 0)).toBeNull();
  });
});
