import { describe, expect, it } from 'vitest';
import { CategoryIndex, CategoryIndexBuilder } from '../src/policy/category-index.ts';
import { compilePolicy, decide } from '../src/policy/decide.ts';

function index(entries: Array<[string, number[]]>): CategoryIndex {
  const b = new CategoryIndexBuilder();
  for (const [d, ids] of entries) b.add(d, ids);
  return b.build();
}

describe('CategoryIndex', () => {
  const idx = index([
    ['example.com', [13]],
    ['b.example.com', [20]],
    ['a.b.example.com', [20, 9]],
    ['com', [54]],
    ['Shout.Example.', [39]],
  ]);

  it('matches the qname and every parent domain, unioned and sorted', () => {
    expect(idx.categoriesOf('x.a.b.example.com')).toEqual([9, 13, 20, 54]);
    expect(idx.categoriesOf('b.example.com')).toEqual([13, 20, 54]);
    expect(idx.categoriesOf('example.com')).toEqual([13, 54]);
    expect(idx.categoriesOf('other.org')).toEqual([]);
  });

  it('matches on label boundaries only', () => {
    expect(idx.categoriesOf('notexample.org')).toEqual([]);
    expect(idx.categoriesOf('xb.example.org')).toEqual([]);
  });

  it('normalises the domains it is built from', () => {
    expect(idx.categoriesOf('www.shout.example')).toEqual([39]);
  });

  it('merges a domain added twice and interns equal sets', () => {
    const i = index([
      ['dup.example', [20]],
      ['dup.example', [9]],
      ['one.example', [9, 20]],
    ]);
    expect(i.size).toBe(2);
    expect(i.categoriesOf('dup.example')).toEqual([9, 20]);
    expect(i.categoriesOf('dup.example')).toBe(i.categoriesOf('one.example'));
  });

  it('grows past its initial buffers', () => {
    const b = new CategoryIndexBuilder();
    for (let i = 0; i < 100_000; i++) b.add(`host-${i}.example`, [i % 50]);
    const i = b.build();
    expect(i.size).toBe(100_000);
    expect(i.categoriesOf('www.host-99999.example')).toEqual([49]);
    expect(i.categoriesOf('host-100000.example')).toEqual([]);
  });

  it('is empty when built from nothing', () => {
    expect(CategoryIndex.empty().categoriesOf('example.com')).toEqual([]);
  });
});

describe('decide', () => {
  const idx = index([
    ['casino.example', [20]],
    ['news.example', [39]],
    ['mixed.example', [39, 20]],
  ]);
  const moderate = compilePolicy(1, 1, [9, 20], true);
  const strict = compilePolicy(2, 1, [9], false);

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
