import { describe, expect, it } from 'vitest';
import { compilePolicy } from '../../src/compiled-policy.ts';
import { categoryRule } from '../../src/engine/rules/category.ts';
import { index, snapshot, who } from './helpers.ts';

describe('category rule (step 5)', () => {
  const snap = snapshot({
    categories: index([
      ['casino.example', [20]],
      ['news.example', [39]],
    ]),
  });
  const policy = compilePolicy(1, 1, [20], true);

  it('blocks a name or subdomain in a blocked category, with the same frozen decision each time', () => {
    const d = categoryRule.decide(snap, who(policy), 'www.casino.example', 0);
    expect(d).toEqual({ action: 'blocked', reason: 'category', categories: [20] });
    expect(categoryRule.decide(snap, who(policy), 'casino.example', 0)).toBe(d);
    expect(Object.isFrozen(d)).toBe(true);
  });

  it('passes for allowed categories, unclassified names and no policy', () => {
    expect(categoryRule.decide(snap, who(policy), 'news.example', 0)).toBeNull();
    expect(categoryRule.decide(snap, who(policy), 'plain.example', 0)).toBeNull();
    expect(categoryRule.decide(snap, who(null), 'casino.example', 0)).toBeNull();
  });
});
