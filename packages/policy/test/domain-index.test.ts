import { describe, expect, it } from 'vitest';
import { DomainIndex } from '../src/domain-index.ts';

/** The two-map index the packed one replaced: the reference semantics (docs/architecture.md "Decision order"). */
class MapIndex<T> {
  readonly exact = new Map<string, T>();
  readonly subtree = new Map<string, T>();
  add(domain: string, value: T, includeSubdomains: boolean): void {
    const map = includeSubdomains ? this.subtree : this.exact;
    if (domain.length > 0 && !map.has(domain)) map.set(domain, value);
  }
  lookup(qname: string): T | undefined {
    const hit = this.exact.get(qname) ?? this.subtree.get(qname);
    if (hit !== undefined) return hit;
    for (let dot = qname.indexOf('.'); dot >= 0; dot = qname.indexOf('.', dot + 1)) {
      const parent = this.subtree.get(qname.slice(dot + 1));
      if (parent !== undefined) return parent;
    }
    return undefined;
  }
}

describe('DomainIndex (packed)', () => {
  it('an exact entry matches its own name only; a subtree entry its name and every name below', () => {
    const idx = new DomainIndex<string>();
    idx.add('exact.example', 'e', false);
    idx.add('tree.example', 't', true);
    expect(idx.lookup('exact.example')).toBe('e');
    expect(idx.lookup('www.exact.example')).toBeUndefined();
    expect(idx.lookup('tree.example')).toBe('t');
    expect(idx.lookup('a.b.tree.example')).toBe('t');
    expect(idx.lookup('example')).toBeUndefined();
    expect(idx.lookup('')).toBeUndefined();
    expect(idx.size).toBe(2);
  });

  it('matches on label boundaries only', () => {
    const idx = new DomainIndex<true>();
    idx.add('example.com', true, true);
    expect(idx.lookup('notexample.com')).toBeUndefined();
    expect(idx.lookup('example.com.evil')).toBeUndefined();
    expect(idx.lookup('x.example.com')).toBe(true);
  });

  it('the longest match wins; on the name itself the exact entry before the subtree one', () => {
    const idx = new DomainIndex<string>();
    idx.add('com', 'com', true);
    idx.add('example.com', 'example', true);
    idx.add('b.example.com', 'b-exact', false);
    idx.add('b.example.com', 'b-tree', true);
    expect(idx.lookup('a.b.example.com')).toBe('b-tree');
    expect(idx.lookup('b.example.com')).toBe('b-exact');
    expect(idx.lookup('c.example.com')).toBe('example');
    expect(idx.lookup('other.com')).toBe('com');
    expect(idx.lookup('org')).toBeUndefined();
    expect(idx.size).toBe(4);
  });

  it('keeps the first value of a (name, scope) added twice and counts it once', () => {
    const idx = new DomainIndex<number>();
    idx.add('dup.example', 1, true);
    idx.add('dup.example', 2, true);
    idx.add('dup.example', 3, false);
    expect(idx.size).toBe(2);
    expect(idx.lookup('dup.example')).toBe(3);
    expect(idx.lookup('x.dup.example')).toBe(1);
  });

  it('an add after lookups re-packs: the new entries match and the old ones keep their values', () => {
    const idx = new DomainIndex<number>();
    idx.add('a.example', 1, true);
    expect(idx.lookup('x.a.example')).toBe(1);
    idx.add('a.example', 9, true);
    idx.add('b.example', 2, false);
    expect(idx.lookup('x.a.example')).toBe(1);
    expect(idx.lookup('b.example')).toBe(2);
    expect(idx.size).toBe(2);
    idx.seal();
    expect(idx.lookup('x.b.example')).toBeUndefined();
  });

  it('with one shared value (lists) or many (static routes), the same answers', () => {
    const shared = new DomainIndex<true>();
    const many = new DomainIndex<object>();
    const value = { route: 1 };
    for (const [name, tree] of [
      ['shared.example', true],
      ['only.shared.example', false],
    ] as const) {
      shared.add(name, true, tree);
      many.add(name, value, tree);
    }
    for (const q of [
      'shared.example',
      'a.shared.example',
      'only.shared.example',
      'x.only.shared.example',
      'no.example',
    ]) {
      expect(many.lookup(q) === value).toBe(shared.lookup(q) === true);
    }
  });

  it('an empty index answers undefined, and an empty name is never added', () => {
    const idx = new DomainIndex<true>();
    idx.add('', true, true);
    expect(idx.size).toBe(0);
    expect(idx.lookup('anything.example')).toBeUndefined();
    expect(idx.byteSize).toBe(4);
  });

  it('names outside one byte per character keep working (the wide form), with every other entry', () => {
    const idx = new DomainIndex<string>();
    idx.add('ascii.example', 'a', true);
    idx.add('例え.テスト', 'w', true);
    expect(idx.lookup('x.例え.テスト')).toBe('w');
    expect(idx.lookup('x.ascii.example')).toBe('a');
    expect(idx.size).toBe(2);
    // Latin-1 characters stay packed.
    const latin = new DomainIndex<string>();
    latin.add('café.example', 'l', false);
    expect(latin.lookup('café.example')).toBe('l');
    expect(latin.lookup('cafe.example')).toBeUndefined();
    expect(latin.byteSize).toBeGreaterThan(0);
  });

  it('answers as the two-map index on 20,000 random entries and queries, with odd names', () => {
    let seed = 7;
    const rnd = (n: number) => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed % n;
    };
    const labels = ['a', 'b', 'www', 'ex', 'example', 'com', 'org', 'x-y', '_srv', ''];
    const name = () => {
      const parts: string[] = [];
      for (let i = 0, n = 1 + rnd(4); i < n; i++) parts.push(labels[rnd(labels.length)]!);
      return parts.join('.');
    };
    const packed = new DomainIndex<number>();
    const reference = new MapIndex<number>();
    for (let i = 0; i < 20_000; i++) {
      const n = name();
      const tree = rnd(2) === 0;
      packed.add(n, i, tree);
      reference.add(n, i, tree);
    }
    expect(packed.size).toBe(reference.exact.size + reference.subtree.size);
    for (let i = 0; i < 20_000; i++) {
      const q = `${name()}${rnd(5) === 0 ? '.' : ''}`;
      expect(packed.lookup(q), q).toBe(reference.lookup(q));
    }
  });
});
