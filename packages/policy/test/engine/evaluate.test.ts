import { describe, expect, it } from 'vitest';
import type { CategoryIndex } from '../../src/category-index.ts';
import { type CompiledPolicy, compilePolicy } from '../../src/compiled-policy.ts';
import { evaluate } from '../../src/engine/index.ts';
import { index, snapshot, who } from './helpers.ts';

describe('evaluate: categories and unclassified (steps 5–7)', () => {
  const idx = index([
    ['casino.example', [20]],
    ['news.example', [39]],
    ['mixed.example', [39, 20]],
  ]);
  const moderate = compilePolicy(1, 1, [9, 20], true);
  const strict = compilePolicy(2, 1, [9], false);
  const decide = (categories: CategoryIndex, policy: CompiledPolicy | null, qname: string) =>
    evaluate(snapshot({ categories }), who(policy), { qname }, 0);

  it('blocks a name in a blocked category, and its subdomains', () => {
    expect(decide(idx, moderate, 'casino.example')).toEqual({
      action: 'blocked',
      reason: 'category',
      categories: [20],
    });
    expect(decide(idx, moderate, 'www.casino.example').action).toBe('blocked');
  });

  it('blocks when any one of several categories is blocked', () => {
    expect(decide(idx, moderate, 'mixed.example')).toEqual({
      action: 'blocked',
      reason: 'category',
      categories: [20, 39],
    });
  });

  it('allows categorised names the policy does not block', () => {
    expect(decide(idx, moderate, 'news.example')).toEqual({ action: 'allowed', reason: 'default', categories: [39] });
  });

  it('follows the allow-unclassified switch for names without a category', () => {
    expect(decide(idx, moderate, 'plain.example')).toEqual({ action: 'allowed', reason: 'default', categories: [] });
    expect(decide(idx, strict, 'plain.example')).toEqual({ action: 'blocked', reason: 'unclassified', categories: [] });
    expect(decide(idx, strict, 'news.example').action).toBe('allowed');
  });

  it('allows everything without a policy', () => {
    expect(decide(idx, null, 'casino.example').action).toBe('allowed');
  });
});
