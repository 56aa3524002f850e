import { describe, expect, it } from 'vitest';
import { CategoryIndex, CategoryIndexBuilder } from '../src/category-index.ts';

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

  it('reads a qname with non-ASCII labels through its UTF-8 bytes, with the same answers', () => {
    // The wire decoder gives UTF-8 labels as text (dns/wire.ts); their parents still match.
    expect(idx.categoriesOf('bücher.a.b.example.com')).toEqual([9, 13, 20, 54]);
    expect(idx.categoriesOf('ü.com')).toEqual([54]);
    expect(idx.categoriesOf('bücher.other')).toEqual([]);
    const idn = index([['xn--bcher-kva.example', [7]]]);
    expect(idn.categoriesOf('shop.xn--bcher-kva.example')).toEqual([7]);
  });

  it('answers like a map of every suffix over many random names (ASCII and not)', () => {
    let seed = 7;
    const rnd = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) & 0x7fffffff;
      return seed % n;
    };
    const labels = ['a', 'b', 'cd', 'example', 'com', 'net', 'xn--80ak6aa92e', 'zz', 'ü', 'q-1'];
    const name = (depth: number) => Array.from({ length: depth }, () => labels[rnd(labels.length)]!).join('.');
    const truth = new Map<string, number[]>();
    const b = new CategoryIndexBuilder();
    for (let i = 0; i < 2_000; i++) {
      const d = name(1 + rnd(3)).replaceAll('ü', 'u');
      const id = 1 + rnd(60);
      b.add(d, [id]);
      truth.set(d, [...new Set([...(truth.get(d) ?? []), id])]);
    }
    const built = b.build();
    for (let i = 0; i < 5_000; i++) {
      const q = name(1 + rnd(5));
      const want = new Set<number>();
      const parts = q.split('.');
      for (let k = 0; k < parts.length; k++) for (const id of truth.get(parts.slice(k).join('.')) ?? []) want.add(id);
      expect(built.categoriesOf(q), q).toEqual([...want].sort((x, y) => x - y));
    }
  });

  it('tells apart names whose first hashes collide (same bucket and first hash: only the second differs)', () => {
    // FNV-1a over the bytes from last to first, as the index's first hash (32 bits): a birthday search
    // over single-label names finds pairs with the very same first hash.
    const fnv = (name: string) => {
      let h = 0x811c9dc5;
      for (let i = name.length - 1; i >= 0; i--) h = Math.imul(h ^ name.charCodeAt(i), 0x01000193);
      return h >>> 0;
    };
    const seen = new Map<number, string>();
    const pairs: Array<[string, string]> = [];
    for (let i = 0; pairs.length < 3 && i < 2_000_000; i++) {
      const name = `n${i.toString(36)}`;
      const other = seen.get(fnv(name));
      if (other !== undefined) pairs.push([other, name]);
      else seen.set(fnv(name), name);
    }
    expect(pairs).toHaveLength(3);
    const [[a1, a2], [b1, b2], [c1, c2]] = pairs as [[string, string], [string, string], [string, string]];
    // Both of one pair indexed; one of another; none of the third.
    const idx = index([
      [a1, [1]],
      [a2, [2]],
      [b2, [3]],
    ]);
    expect([a1, a2, b1, b2, c1, c2].map((n) => idx.categoriesOf(`www.${n}`))).toEqual([[1], [2], [], [3], [], []]);
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

  it('keeps set ids above 255 apart (two bytes an entry) and names up to 253 characters', () => {
    // 1,485 distinct pairs of category ids: the later sets' ids need both bytes of an entry's set id.
    const pairs: Array<[string, number[]]> = [];
    for (let a = 0; a < 55; a++) for (let b = a + 1; b < 55; b++) pairs.push([`p${a}-${b}.example`, [a, b]]);
    const label = 'x'.repeat(63);
    const longest = `${label}.${label}.${label}.${'y'.repeat(53)}.example`;
    expect(longest).toHaveLength(253);
    const i = index([...pairs, [longest, [7]]]);
    expect(i.size).toBe(pairs.length + 1);
    for (const [name, ids] of [pairs[0]!, pairs[300]!, pairs[pairs.length - 1]!]) {
      expect(i.categoriesOf(`www.${name}`)).toEqual(ids);
    }
    expect(i.categoriesOf(longest)).toEqual([7]);
    expect(i.categoriesOf(longest.slice(2))).toEqual([]);
  });

  it('grows past its initial arrays and holds about 12 bytes a domain, whatever the names’ length', () => {
    const b = new CategoryIndexBuilder();
    for (let i = 0; i < 100_000; i++) b.add(`host-${i}.example`, [i % 50]);
    const i = b.build();
    expect(i.size).toBe(100_000);
    // 10 bytes an entry, a bucket start per four domains, the filter's 6–12 bits: no names kept.
    expect(i.byteSize / i.size).toBeGreaterThan(10);
    expect(i.byteSize / i.size).toBeLessThan(13);
    expect(i.categoriesOf('www.host-99999.example')).toEqual([49]);
    expect(i.categoriesOf('host-100000.example')).toEqual([]);
  });

  it('is empty when built from nothing', () => {
    expect(CategoryIndex.empty().categoriesOf('example.com')).toEqual([]);
  });
});
