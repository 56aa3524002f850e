import { describe, expect, it } from 'vitest';
import { CategoryIndex, CategoryIndexBuilder } from '../src/policy/category-index.ts';

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
