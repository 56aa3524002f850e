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
 * the index keeps no names, only a 64-bit key per domain — two independent 32-bit hashes of its
 * bytes — and the domain's interned category-set id: 10 bytes a domain in three typed arrays,
 * grouped by bucket (the first hash's top bits; about four domains a bucket, found through a
 * `Uint32Array` of bucket starts), plus a bit filter (≈ 6 bits a domain) in front. That is ≈ 12 bytes
 * a domain where the names themselves averaged 25 (bench/README.md "Resolver memory", round 6). Two
 * different names are taken for one only when both hashes agree: with 1,000,000 domains and three
 * suffixes probed per query, about once in 6 × 10¹² queries (docs/decisions.md "A resolver-only
 * process"). A lookup that matches reads two places in memory, the bucket start and its entries.
 * Category sets are interned: the ~810,000 UT1 rows use a few hundred distinct sets.
 *
 * A lookup hashes the qname once from its last byte to its first (both hashes in reverse, so each
 * suffix's hash is a step of the same pass) and probes the index for each suffix that starts at a
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
  /** `32 − bucketBits`: the shift that leaves a first hash's bucket number. */
  private readonly bucketShift: number;
  /** `32 − filterBits`: the shift that leaves a remixed hash's filter bit number. */
  private readonly filterShift: number;

  /** @internal use {@link CategoryIndexBuilder} */
  constructor(
    private readonly sets: readonly (readonly number[])[],
    /** Bucket b's entries are `[starts[b], starts[b + 1])`; `2 ** bucketBits + 1` values. */
    private readonly starts: Uint32Array,
    /** Per entry: the first hash (FNV-1a), as an int32. */
    private readonly firsts: Int32Array,
    /** Per entry: the second hash ({@link SECOND_PRIME}), as an int32. */
    private readonly seconds: Int32Array,
    /** Per entry: the category-set id (an index into `sets`). */
    private readonly setIds: Uint16Array,
    bucketBits: number,
    /** One bit per first hash's top {@link filterBits} bits (after a remix): set for every entry's hash. */
    private readonly filter: Int32Array,
    filterBits: number,
    size: number,
  ) {
    this.size = size;
    this.bucketShift = 32 - bucketBits;
    this.filterShift = 32 - filterBits;
  }

  /** False when no entry's first hash has the filter bit of `first`: then no bucket needs reading. */
  private mayHold(first: number): boolean {
    const bit = Math.imul(first, FILTER_MIX) >>> this.filterShift;
    return (this.filter[bit >>> 5]! & (1 << (bit & 31))) !== 0;
  }

  /** An index with no domains (a do-nothing stand-in until the first load). */
  static empty(): CategoryIndex {
    return new CategoryIndexBuilder().build();
  }

  /** Approximate bytes held by the index's arrays. */
  get byteSize(): number {
    return (
      this.starts.byteLength +
      this.firsts.byteLength +
      this.seconds.byteLength +
      this.setIds.byteLength +
      this.filter.byteLength
    );
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
    // ASCII names (nearly all: the wire decoder's Latin-1 path) are hashed from the string itself.
    let found: readonly number[] = EMPTY;
    let merged: number[] | null = null;
    // From the last character leftwards: the hashes of every suffix are the running hashes where a
    // label starts (`com`, `example.com`, `b.example.com`…), so the name is hashed once.
    let h = FNV_OFFSET;
    let g = SECOND_OFFSET;
    for (let start = qname.length - 1; start >= 0; start--) {
      const c = qname.charCodeAt(start);
      if (c >= 0x80) return this.lookupUtf8(qname);
      h = Math.imul(h ^ c, FNV_PRIME);
      g = secondStep(g, c);
      if (start > 0 && qname.charCodeAt(start - 1) !== 46) continue;
      const set = this.find(h, g);
      if (set !== null) {
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
    let g = SECOND_OFFSET;
    for (let start = len - 1; start >= 0; start--) {
      h = Math.imul(h ^ buf[start]!, FNV_PRIME);
      g = secondStep(g, buf[start]!);
      if (start > 0 && buf[start - 1] !== 46) continue;
      const set = this.find(h, g);
      if (set !== null) {
        if (found === EMPTY) found = set;
        else if (set !== found) merged = mergeInto(merged ?? found.slice(), set);
      }
    }
    return merged ?? found;
  }

  /** The category set of the domain whose hashes are `first` and `second` (int32s); null when none. */
  private find(first: number, second: number): readonly number[] | null {
    if (!this.mayHold(first)) return null;
    const bucket = first >>> this.bucketShift;
    const end = this.starts[bucket + 1]!;
    const firsts = this.firsts;
    for (let i = this.starts[bucket]!; i < end; i++) {
      if (firsts[i] === first && this.seconds[i] === second) return this.sets[this.setIds[i]!]!;
    }
    return null;
  }
}

const EMPTY: readonly number[] = Object.freeze([]);

function mergeInto(target: number[], add: readonly number[]): number[] {
  for (const id of add) if (!target.includes(id)) target.push(id);
  return target.sort((a, b) => a - b);
}

/** Bits needed for values 0…n−1 (at least 1). */
function bitsFor(n: number): number {
  let bits = 1;
  while (bits < 31 && 2 ** bits < n) bits++;
  return bits;
}

/**
 * The longest name the index takes, in bytes: a name on the wire is at most 255 octets (RFC 1035
 * §3.1), and a longer text can never be asked for.
 */
const MAX_NAME_BYTES = 255;

/** FNV-1a's offset basis as an int32 (0x811c9dc5), so the running hash stays a small integer in V8. */
const FNV_OFFSET = 0x811c9dc5 | 0;
const FNV_PRIME = 0x01000193;
/**
 * The second hash: multiply by an odd constant (2³² ÷ φ) after the byte, then rotate by 13 bits so
 * that high bits feed the low ones (FNV-1a's low bits depend only on the bytes' low bits, so a
 * second FNV with another basis would agree with the first far more often than chance).
 */
const SECOND_OFFSET = 0x2545f491 | 0;
const SECOND_PRIME = 0x9e3779b1 | 0;
/**
 * Multiplier that remixes a name's first hash before its top bits pick the filter bit, so the
 * filter does not reuse the bits that pick the bucket.
 */
const FILTER_MIX = 0x85ebca6b | 0;

/** One byte of the second hash. */
function secondStep(g: number, byte: number): number {
  const m = Math.imul(g ^ byte, SECOND_PRIME);
  return (m << 13) | (m >>> 19);
}

/** Both hashes of `buf[0, len)` into `out`, taken from the last byte to the first as lookups walk them. */
function hashes(buf: Buffer, len: number, out: Int32Array): void {
  let h = FNV_OFFSET;
  let g = SECOND_OFFSET;
  for (let i = len - 1; i >= 0; i--) {
    h = Math.imul(h ^ buf[i]!, FNV_PRIME);
    g = secondStep(g, buf[i]!);
  }
  out[0] = h;
  out[1] = g;
}

/**
 * Accumulates domain → categories facts and builds a {@link CategoryIndex}. Domains are normalised
 * (`normalizeDomain`: lower case, no trailing dot, A-labels); a domain added twice gets the union of
 * its categories; a name longer than 255 bytes is skipped (no query can carry it).
 */
export class CategoryIndexBuilder {
  private firsts: Int32Array;
  private seconds: Int32Array;
  private setIds: Uint16Array;
  private count = 0;
  private readonly setKeys = new Map<string, number>();
  private readonly sets: (readonly number[])[] = [];
  private readonly scratch = Buffer.allocUnsafe(MAX_NAME_BYTES * 3);
  private readonly pair = new Int32Array(2);

  /**
   * @param expected optional capacity hint — `domains` (count): with the exact figure the arrays
   *   never grow. Under-estimates only cost growth by doubling.
   */
  constructor(expected: { domains: number } = { domains: 1 << 16 }) {
    const n = Math.max(16, expected.domains);
    this.firsts = new Int32Array(n);
    this.seconds = new Int32Array(n);
    this.setIds = new Uint16Array(n);
  }

  /**
   * Adds one domain with its category ids (0–54).
   * @throws Error when more than 65,535 distinct category sets are added
   */
  add(domain: string, categoryIds: readonly number[]): void {
    const name = normalizeDomain(domain);
    if (name.length === 0 || name.length > MAX_NAME_BYTES || categoryIds.length === 0) return;
    const len = this.scratch.write(name, 0, 'utf8');
    if (len > MAX_NAME_BYTES) return;
    if (this.count >= this.firsts.length) this.grow();
    hashes(this.scratch, len, this.pair);
    const at = this.count++;
    this.firsts[at] = this.pair[0]!;
    this.seconds[at] = this.pair[1]!;
    this.setIds[at] = this.intern(categoryIds);
  }

  private grow(): void {
    const n = this.firsts.length * 2;
    const firsts = new Int32Array(n);
    firsts.set(this.firsts);
    const seconds = new Int32Array(n);
    seconds.set(this.seconds);
    const setIds = new Uint16Array(n);
    setIds.set(this.setIds);
    this.firsts = firsts;
    this.seconds = seconds;
    this.setIds = setIds;
  }

  private intern(ids: readonly number[]): number {
    const sorted = [...new Set(ids)].sort((a, b) => a - b);
    const key = sorted.join(',');
    let id = this.setKeys.get(key);
    if (id === undefined) {
      if (this.sets.length >= 0xffff) throw new Error('too many distinct category sets');
      id = this.sets.length;
      this.sets.push(Object.freeze(sorted));
      this.setKeys.set(key, id);
    }
    return id;
  }

  /**
   * Builds the index: the entries grouped by bucket (a counting sort on the first hash's top bits),
   * a domain added twice merged into one entry with the union of its sets. The builder must not be
   * used afterwards.
   */
  build(): CategoryIndex {
    const n = this.count;
    // About four entries a bucket: one bucket start (4 bytes) per four domains.
    const bucketBits = Math.max(1, bitsFor(Math.ceil(n / 4)));
    const buckets = 2 ** bucketBits;
    const shift = 32 - bucketBits;
    const starts = new Uint32Array(buckets + 1);
    for (let i = 0; i < n; i++) starts[(this.firsts[i]! >>> shift) + 1]!++;
    for (let b = 0; b < buckets; b++) starts[b + 1]! += starts[b]!;
    const order = new Uint32Array(n);
    const next = starts.slice(0, buckets);
    for (let i = 0; i < n; i++) order[next[this.firsts[i]! >>> shift]!++] = i;
    // Merge duplicates bucket by bucket (a few entries each), then write the kept entries in order.
    const keep = new Uint8Array(n).fill(1);
    const setIds = this.setIds;
    let distinct = 0;
    for (let b = 0; b < buckets; b++) {
      for (let x = starts[b]!; x < starts[b + 1]!; x++) {
        const i = order[x]!;
        if (keep[i] === 0) continue;
        distinct++;
        for (let y = x + 1; y < starts[b + 1]!; y++) {
          const j = order[y]!;
          if (keep[j] === 1 && this.firsts[j] === this.firsts[i] && this.seconds[j] === this.seconds[i]) {
            // Same domain twice: the first entry keeps the union.
            setIds[i] = this.intern([...this.sets[setIds[i]!]!, ...this.sets[setIds[j]!]!]);
            keep[j] = 0;
          }
        }
      }
    }
    const firsts = new Int32Array(distinct);
    const seconds = new Int32Array(distinct);
    const ids = new Uint16Array(distinct);
    // About 6–12 bits a domain: a name that is not in the index passes the filter ≈ 8–15 % of the time.
    const filterBits = Math.max(5, bitsFor(distinct * 6));
    const filter = new Int32Array(2 ** (filterBits - 5));
    const filterShift = 32 - filterBits;
    let w = 0;
    for (let b = 0; b < buckets; b++) {
      const from = starts[b]!;
      const to = starts[b + 1]!;
      starts[b] = w;
      for (let x = from; x < to; x++) {
        const i = order[x]!;
        if (keep[i] === 0) continue;
        const h = this.firsts[i]!;
        firsts[w] = h;
        seconds[w] = this.seconds[i]!;
        ids[w] = setIds[i]!;
        const bit = Math.imul(h, FILTER_MIX) >>> filterShift;
        filter[bit >>> 5] = filter[bit >>> 5]! | (1 << (bit & 31));
        w++;
      }
    }
    starts[buckets] = w;
    return new CategoryIndex(this.sets.slice(), starts, firsts, seconds, ids, bucketBits, filter, filterBits, distinct);
  }
}
