import { normalizeDomain } from '@cordon/shared';

/** The categories of a name as the engine reads them (decision order step 5): the index, or the index under overrides. */
export interface CategoryLookup {
  /** The category ids of `qname` (normalised) and its parents; empty when none. */
  categoriesOf(qname: string): readonly number[];
}

/**
 * The category index: domain → category ids, for the qname and all its parents (docs/architecture.md "Decision order").
 *
 * Built for ~1,000,000 domains inside the resolver's memory budget (bench/README.md, ≤100 MB RSS):
 * instead of a JS `Map<string, …>` (≈80–100 bytes per entry in V8), the names live back to back
 * in one byte buffer, with a `Uint32Array` of offsets, a `Uint16Array` of interned category-set
 * ids and an open-addressing hash table (`Int32Array`, load ≤ 0.5) keyed by FNV-1a of the bytes.
 * That is ≈ (name length + 14) bytes per domain. Each slot holds its entry's number in its low bits
 * and, in the bits the entry count leaves free (11 of them at 500,000 domains), the top bits of
 * the entry's hash: a probe rejects nearly every other name at the table itself, without reading
 * the entry's offsets and bytes (two more cache misses per probe on a multi-megabyte index). Category sets are interned: the ~810,000 UT1
 * rows use a few hundred distinct sets.
 *
 * A lookup hashes the qname once from its last byte to its first (FNV-1a in reverse, so each
 * suffix's hash is a step of the same pass) and probes the table for each suffix that starts at a
 * label boundary (`com`, `example.com`, `b.example.com`, `a.b.example.com`), without allocating
 * unless several levels match. An ASCII name is read from the string itself; any other is written
 * once as UTF-8 into a scratch buffer.
 */
export class CategoryIndex {
  /** Number of distinct domains. */
  readonly size: number;
  private readonly scratch = Buffer.allocUnsafe(1024);
  /** The last lookup, remembered: the engine's category and unclassified rules and its default ask for the same name. */
  private lastName = '';
  private lastResult: readonly number[] = EMPTY;

  /** @internal use {@link CategoryIndexBuilder} */
  constructor(
    private readonly bytes: Buffer,
    private readonly offsets: Uint32Array,
    private readonly setOf: Uint16Array,
    private readonly sets: readonly (readonly number[])[],
    private readonly table: Int32Array,
    /** Bits of a slot that hold the entry number; the rest (sign bit aside) hold the hash's top bits. */
    private readonly entryBits: number,
    size: number,
  ) {
    this.size = size;
    this.entryMask = entryMask(entryBits);
  }

  /** The low {@link entryBits} bits of a slot: its entry number. */
  private readonly entryMask: number;

  /** An index with no domains (a do-nothing stand-in until the first load). */
  static empty(): CategoryIndex {
    return new CategoryIndexBuilder().build();
  }

  /** Approximate bytes held by the index's typed arrays and buffer. */
  get byteSize(): number {
    return this.bytes.length + this.offsets.byteLength + this.setOf.byteLength + this.table.byteLength;
  }

  /**
   * The category ids of `qname` and every parent domain, sorted and unique; a shared empty array
   * when none matches. `qname` must be normalised (lower case, no trailing dot).
   */
  categoriesOf(qname: string): readonly number[] {
    if (this.size === 0 || qname.length === 0) return EMPTY;
    if (qname === this.lastName) return this.lastResult;
    const result = this.lookup(qname);
    this.lastName = qname;
    this.lastResult = result;
    return result;
  }

  private lookup(qname: string): readonly number[] {
    // ASCII names (nearly all: the wire decoder's Latin-1 path) are hashed and compared from the
    // string itself, with no copy into the scratch buffer and no native call per probe.
    let found: readonly number[] = EMPTY;
    let merged: number[] | null = null;
    // From the last character leftwards: the hash of every suffix is the running hash where a label
    // starts (`com`, `example.com`, `b.example.com`…), so the name is hashed once, not once per suffix.
    let h = FNV_OFFSET;
    const len = qname.length;
    for (let start = len - 1; start >= 0; start--) {
      const c = qname.charCodeAt(start);
      if (c >= 0x80) return this.lookupUtf8(qname);
      h = Math.imul(h ^ c, FNV_PRIME);
      if (start > 0 && qname.charCodeAt(start - 1) !== 46) continue;
      const entry = this.findAscii(qname, start, h >>> 0);
      if (entry >= 0) {
        const set = this.sets[this.setOf[entry]!]!;
        if (found === EMPTY) found = set;
        else if (set !== found) merged = mergeInto(merged ?? found.slice(), set);
      }
    }
    return merged ?? found;
  }

  /** {@link lookup} for a name with non-ASCII characters: its UTF-8 bytes, through the scratch buffer. */
  private lookupUtf8(qname: string): readonly number[] {
    const buf = this.scratch;
    // A UTF-8 character takes at most 3 bytes per UTF-16 unit: most names skip the byte count.
    if (qname.length * 3 > buf.length && Buffer.byteLength(qname) > buf.length) return EMPTY;
    const len = buf.write(qname, 0, 'utf8');
    let found: readonly number[] = EMPTY;
    let merged: number[] | null = null;
    let h = FNV_OFFSET;
    for (let start = len - 1; start >= 0; start--) {
      h = Math.imul(h ^ buf[start]!, FNV_PRIME);
      if (start > 0 && buf[start - 1] !== 46) continue;
      const entry = this.find(buf, start, len, h >>> 0);
      if (entry >= 0) {
        const set = this.sets[this.setOf[entry]!]!;
        if (found === EMPTY) found = set;
        else if (set !== found) merged = mergeInto(merged ?? found.slice(), set);
      }
    }
    return merged ?? found;
  }

  /** The entry of the ASCII suffix `name[from…]`, whose hash is `keyHash`; -1 when none. */
  private findAscii(name: string, from: number, keyHash: number): number {
    const mask = this.table.length - 1;
    const bytes = this.bytes;
    const keyLen = name.length - from;
    const entryBits = this.entryBits;
    const tag = fingerprint(keyHash, entryBits);
    let slot = keyHash & mask;
    for (;;) {
      const v = this.table[slot]!;
      if (v < 0) return -1;
      slot = (slot + 1) & mask;
      if (v >>> entryBits !== tag) continue;
      const entry = v & this.entryMask;
      const s = this.offsets[entry]!;
      if (this.offsets[entry + 1]! - s === keyLen) {
        let k = 0;
        while (k < keyLen && bytes[s + k] === name.charCodeAt(from + k)) k++;
        if (k === keyLen) return entry;
      }
    }
  }

  private find(key: Buffer, from: number, to: number, keyHash: number): number {
    const mask = this.table.length - 1;
    const entryBits = this.entryBits;
    const tag = fingerprint(keyHash, entryBits);
    let slot = keyHash & mask;
    const keyLen = to - from;
    for (;;) {
      const v = this.table[slot]!;
      if (v < 0) return -1;
      slot = (slot + 1) & mask;
      if (v >>> entryBits !== tag) continue;
      const entry = v & this.entryMask;
      const s = this.offsets[entry]!;
      const e = this.offsets[entry + 1]!;
      if (e - s === keyLen && this.bytes.compare(key, from, to, s, e) === 0) return entry;
    }
  }
}

const EMPTY: readonly number[] = Object.freeze([]);

function mergeInto(target: number[], add: readonly number[]): number[] {
  for (const id of add) if (!target.includes(id)) target.push(id);
  return target.sort((a, b) => a - b);
}

/**
 * The part of a name's hash stored beside its entry in a table slot: the hash's top `31 − entryBits`
 * bits (the slot number comes from its low bits; the sign bit stays clear so −1 still marks an
 * empty slot). With every bit taken by entries (2³¹ domains) it is 0 and only the bytes decide.
 */
function fingerprint(keyHash: number, entryBits: number): number {
  const bits = 31 - entryBits;
  return bits === 0 ? 0 : keyHash >>> (32 - bits);
}

/** The slot bits holding the entry number: the low `entryBits` (1–31). */
function entryMask(entryBits: number): number {
  return 2 ** entryBits - 1;
}

/** Bits needed for entry numbers 0…n−1 (at least 1). */
function bitsFor(n: number): number {
  let bits = 1;
  while (bits < 31 && 2 ** bits < n) bits++;
  return bits;
}

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/**
 * FNV-1a, 32-bit, over `buf[from, to)` taken from the last byte to the first: the hash of a
 * suffix extends to the next longer suffix, which is what {@link CategoryIndex} lookups walk.
 */
function hash(buf: Buffer, from: number, to: number): number {
  let h = FNV_OFFSET;
  for (let i = to - 1; i >= from; i--) h = Math.imul(h ^ buf[i]!, FNV_PRIME);
  return h >>> 0;
}

/**
 * Accumulates domain → categories facts and builds a {@link CategoryIndex}. Domains are normalised
 * (`normalizeDomain`: lower case, no trailing dot, A-labels); a domain added twice gets the union of its categories.
 */
export class CategoryIndexBuilder {
  private bytes: Buffer;
  private byteLen = 0;
  private offsets: Uint32Array;
  private setOf: Uint16Array;
  private count = 0;
  private readonly setIds = new Map<string, number>();
  private readonly sets: (readonly number[])[] = [];

  /**
   * @param expected optional capacity hint — `domains` (count) and `bytes` (UTF-8 bytes of all
   *   names): with exact figures the buffers never grow and {@link build} keeps them without a
   *   copy, so loading holds one set of arrays instead of two (bench/README.md memory budget).
   *   Under-estimates only cost growth by doubling.
   */
  constructor(expected: { domains: number; bytes: number } = { domains: 1 << 16, bytes: 1 << 20 }) {
    this.bytes = Buffer.allocUnsafeSlow(Math.max(1024, expected.bytes));
    this.offsets = new Uint32Array(Math.max(16, expected.domains + 1));
    this.setOf = new Uint16Array(Math.max(16, expected.domains + 1));
  }

  /** Adds one domain with its category ids (0–54). */
  add(domain: string, categoryIds: readonly number[]): void {
    const name = normalizeDomain(domain);
    const need = Buffer.byteLength(name);
    if (need === 0 || categoryIds.length === 0) return;
    while (this.byteLen + need > this.bytes.length) {
      const next = Buffer.allocUnsafeSlow(this.bytes.length * 2);
      this.bytes.copy(next, 0, 0, this.byteLen);
      this.bytes = next;
    }
    if (this.count + 1 >= this.offsets.length) {
      const off = new Uint32Array(this.offsets.length * 2);
      off.set(this.offsets);
      this.offsets = off;
      const so = new Uint16Array(this.setOf.length * 2);
      so.set(this.setOf);
      this.setOf = so;
    }
    this.offsets[this.count] = this.byteLen;
    this.byteLen += this.bytes.write(name, this.byteLen, 'utf8');
    this.offsets[this.count + 1] = this.byteLen;
    this.setOf[this.count] = this.intern(categoryIds);
    this.count++;
  }

  private intern(ids: readonly number[]): number {
    const sorted = [...new Set(ids)].sort((a, b) => a - b);
    const key = sorted.join(',');
    let id = this.setIds.get(key);
    if (id === undefined) {
      if (this.sets.length >= 0xffff) throw new Error('too many distinct category sets');
      id = this.sets.length;
      this.sets.push(Object.freeze(sorted));
      this.setIds.set(key, id);
    }
    return id;
  }

  /**
   * Builds the index. Buffers filled to within 1/16 of their capacity are kept as they are (a
   * view, no copy: the builder must not be used afterwards); looser ones are trimmed copies.
   */
  build(): CategoryIndex {
    const n = this.count;
    const fits = (used: number, cap: number) => cap - used <= cap / 16;
    const bytes = fits(this.byteLen, this.bytes.length)
      ? this.bytes.subarray(0, this.byteLen)
      : Buffer.from(this.bytes.subarray(0, this.byteLen));
    const offsets = fits(n + 1, this.offsets.length) ? this.offsets.subarray(0, n + 1) : this.offsets.slice(0, n + 1);
    const setOf = fits(n + 1, this.setOf.length)
      ? this.setOf.subarray(0, Math.max(n, 1))
      : this.setOf.slice(0, Math.max(n, 1));
    let cap = 16;
    while (cap < n * 2) cap *= 2;
    const table = new Int32Array(cap).fill(-1);
    const mask = cap - 1;
    const entryBits = bitsFor(n);
    const toEntry = entryMask(entryBits);
    let distinct = 0;
    for (let i = 0; i < n; i++) {
      const s = offsets[i]!;
      const e = offsets[i + 1]!;
      const h = hash(bytes, s, e);
      let slot = h & mask;
      for (;;) {
        const v = table[slot]!;
        if (v < 0) {
          table[slot] = (fingerprint(h, entryBits) << entryBits) | i;
          distinct++;
          break;
        }
        const other = v & toEntry;
        const os = offsets[other]!;
        const oe = offsets[other + 1]!;
        if (oe - os === e - s && bytes.compare(bytes, s, e, os, oe) === 0) {
          // Same domain twice: the first entry keeps the union.
          setOf[other] = this.intern([...this.sets[setOf[other]!]!, ...this.sets[setOf[i]!]!]);
          break;
        }
        slot = (slot + 1) & mask;
      }
    }
    return new CategoryIndex(bytes, offsets, setOf, this.sets.slice(), table, entryBits, distinct);
  }
}
