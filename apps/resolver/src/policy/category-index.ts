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
 * instead of a JS `Map<string, …>` (≈80–100 bytes per entry in V8), each domain is one record in a
 * byte buffer — its length (1 byte), its interned category-set id (2 bytes, little-endian), then its
 * bytes — and an open-addressing hash table (`Int32Array`, load ≤ 0.5) keyed by FNV-1a of the bytes
 * holds each record's byte offset. That is ≈ (name length + 11) bytes per domain. In the bits the
 * offsets leave free (7 at 530,000 domains), each slot also holds the top bits of its record's
 * hash: a probe turns away nearly every other name at the table itself. A lookup that matches reads
 * two places in memory, the slot and the record (an index of tens of megabytes misses the CPU's
 * caches and TLB on nearly every read: bench/README.md "Round 6"). Category sets are interned:
 * the ~810,000 UT1 rows use a few hundred distinct sets.
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
  /** The low {@link refBits} bits of a slot: its record's offset. */
  private readonly refMask: number;

  /** @internal use {@link CategoryIndexBuilder} */
  constructor(
    /** Records back to back: length byte, set id (u16 LE), the name's bytes. */
    private readonly records: Buffer,
    private readonly sets: readonly (readonly number[])[],
    /** Per slot: −1 (empty), or the record's offset in the low {@link refBits} bits and the hash's top bits above. */
    private readonly table: Int32Array,
    private readonly refBits: number,
    /** One bit per hash value's top {@link filterBits} bits (after a remix): set for every record's hash. */
    private readonly filter: Int32Array,
    filterBits: number,
    size: number,
  ) {
    this.size = size;
    this.refMask = lowBits(refBits);
    this.filterShift = 32 - filterBits;
  }

  /** `32 − filterBits`: the shift that leaves a remixed hash's filter bit number. */
  private readonly filterShift: number;

  /** False when no record's hash has the filter bit of `keyHash`: then no table probe is needed. */
  private mayHold(keyHash: number): boolean {
    const bit = Math.imul(keyHash, FILTER_MIX) >>> this.filterShift;
    return (this.filter[bit >>> 5]! & (1 << (bit & 31))) !== 0;
  }

  /** An index with no domains (a do-nothing stand-in until the first load). */
  static empty(): CategoryIndex {
    return new CategoryIndexBuilder().build();
  }

  /** Approximate bytes held by the index's table and records. */
  get byteSize(): number {
    return this.records.length + this.table.byteLength + this.filter.byteLength;
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
      const ref = this.findAscii(qname, start, h);
      if (ref >= 0) {
        const set = this.setAt(ref);
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
      const ref = this.find(buf, start, len, h);
      if (ref >= 0) {
        const set = this.setAt(ref);
        if (found === EMPTY) found = set;
        else if (set !== found) merged = mergeInto(merged ?? found.slice(), set);
      }
    }
    return merged ?? found;
  }

  /** The interned category set of the record at `ref`. */
  private setAt(ref: number): readonly number[] {
    return this.sets[setIdAt(this.records, ref)]!;
  }

  /** The record of the ASCII suffix `name[from…]`, whose hash is `keyHash` (as an int32); -1 when none. */
  private findAscii(name: string, from: number, keyHash: number): number {
    if (!this.mayHold(keyHash)) return -1;
    const mask = this.table.length - 1;
    const records = this.records;
    const keyLen = name.length - from;
    const refBits = this.refBits;
    const tag = fingerprint(keyHash, refBits);
    let slot = keyHash & mask;
    for (;;) {
      const v = this.table[slot]!;
      if (v < 0) return -1;
      slot = (slot + 1) & mask;
      if (v >>> refBits !== tag) continue;
      const ref = v & this.refMask;
      if (records[ref] !== keyLen) continue;
      const s = ref + RECORD_HEADER;
      let k = 0;
      while (k < keyLen && records[s + k] === name.charCodeAt(from + k)) k++;
      if (k === keyLen) return ref;
    }
  }

  private find(key: Buffer, from: number, to: number, keyHash: number): number {
    if (!this.mayHold(keyHash)) return -1;
    const mask = this.table.length - 1;
    const records = this.records;
    const refBits = this.refBits;
    const tag = fingerprint(keyHash, refBits);
    let slot = keyHash & mask;
    const keyLen = to - from;
    for (;;) {
      const v = this.table[slot]!;
      if (v < 0) return -1;
      slot = (slot + 1) & mask;
      if (v >>> refBits !== tag) continue;
      const ref = v & this.refMask;
      const s = ref + RECORD_HEADER;
      if (records[ref] === keyLen && records.compare(key, from, to, s, s + keyLen) === 0) return ref;
    }
  }
}

const EMPTY: readonly number[] = Object.freeze([]);

function mergeInto(target: number[], add: readonly number[]): number[] {
  for (const id of add) if (!target.includes(id)) target.push(id);
  return target.sort((a, b) => a - b);
}

/**
 * The part of a name's hash stored beside its record's offset in a table slot: the hash's top
 * `31 − refBits` bits (the slot number comes from its low bits; the sign bit stays clear so −1
 * still marks an empty slot). With every bit taken by offsets it is 0 and only the bytes decide.
 */
function fingerprint(keyHash: number, refBits: number): number {
  const bits = 31 - refBits;
  return bits === 0 ? 0 : keyHash >>> (32 - bits);
}

/** A mask of the low `bits` bits (1–31). */
function lowBits(bits: number): number {
  return 2 ** bits - 1;
}

/** Bits needed for values 0…n−1 (at least 1). */
function bitsFor(n: number): number {
  let bits = 1;
  while (bits < 31 && 2 ** bits < n) bits++;
  return bits;
}

/** A record's header: the name's length in bytes (1 byte), then its category-set id (2 bytes, LE). */
const RECORD_HEADER = 3;
/**
 * The longest name a record holds, in bytes: a name on the wire is at most 255 octets (RFC 1035
 * §3.1), and a longer text can never be asked for.
 */
const MAX_NAME_BYTES = 255;
/** The records buffer's largest size: offsets must fit a slot's 31 bits. */
const MAX_RECORD_BYTES = 2 ** 31;

/** FNV-1a's offset basis as an int32 (0x811c9dc5), so the running hash stays a small integer in V8. */
const FNV_OFFSET = 0x811c9dc5 | 0;
/**
 * Multiplier (2³² ÷ φ, Knuth's multiplicative hashing) that remixes a name's FNV-1a hash before its
 * top bits pick the filter bit, so the filter does not reuse the bits that pick the table slot.
 */
const FILTER_MIX = 0x9e3779b1 | 0;
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
 * (`normalizeDomain`: lower case, no trailing dot, A-labels); a domain added twice gets the union of
 * its categories; a name longer than 255 bytes is skipped (no query can carry it).
 */
export class CategoryIndexBuilder {
  private records: Buffer;
  private recordsLen = 0;
  /** Each added record's offset (a domain added twice has two until {@link build} merges them). */
  private refs: Uint32Array;
  private count = 0;
  private readonly setIds = new Map<string, number>();
  private readonly sets: (readonly number[])[] = [];

  /**
   * @param expected optional capacity hint — `domains` (count) and `bytes` (UTF-8 bytes of all
   *   names, without the records' headers): with exact figures the buffer never grows and
   *   {@link build} keeps it without a copy, so loading holds one copy of the names instead of two
   *   (bench/README.md memory budget). Under-estimates only cost growth by doubling.
   */
  constructor(expected: { domains: number; bytes: number } = { domains: 1 << 16, bytes: 1 << 20 }) {
    this.records = Buffer.allocUnsafeSlow(Math.max(1024, expected.bytes + RECORD_HEADER * expected.domains));
    this.refs = new Uint32Array(Math.max(16, expected.domains));
  }

  /**
   * Adds one domain with its category ids (0–54).
   * @throws Error when the records would outgrow 2 GiB (about 100 million domains)
   */
  add(domain: string, categoryIds: readonly number[]): void {
    const name = normalizeDomain(domain);
    const need = Buffer.byteLength(name);
    if (need === 0 || need > MAX_NAME_BYTES || categoryIds.length === 0) return;
    const end = this.recordsLen + RECORD_HEADER + need;
    if (end > MAX_RECORD_BYTES) throw new Error('category index: more than 2 GiB of domain names');
    if (end > this.records.length) {
      const next = Buffer.allocUnsafeSlow(Math.min(MAX_RECORD_BYTES, Math.max(end, this.records.length * 2)));
      this.records.copy(next, 0, 0, this.recordsLen);
      this.records = next;
    }
    if (this.count >= this.refs.length) {
      const refs = new Uint32Array(this.refs.length * 2);
      refs.set(this.refs);
      this.refs = refs;
    }
    const at = this.recordsLen;
    const set = this.intern(categoryIds);
    this.records[at] = need;
    this.records[at + 1] = set & 0xff;
    this.records[at + 2] = set >>> 8;
    this.records.write(name, at + RECORD_HEADER, 'utf8');
    this.refs[this.count++] = at;
    this.recordsLen = end;
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
   * Builds the index. A records buffer filled to within 1/16 of its capacity is kept as it is (a
   * view, no copy: the builder must not be used afterwards); a looser one is a trimmed copy. A
   * domain added twice keeps its first record, which takes the union of both sets.
   */
  build(): CategoryIndex {
    const n = this.count;
    const used = this.recordsLen;
    const cap = this.records.length;
    const records =
      cap - used <= cap / 16 ? this.records.subarray(0, used) : Buffer.from(this.records.subarray(0, used));
    let slots = 16;
    while (slots < n * 2) slots *= 2;
    const table = new Int32Array(slots).fill(-1);
    const mask = slots - 1;
    const refBits = bitsFor(Math.max(used, 1));
    const toRef = lowBits(refBits);
    // About 6–12 bits a domain: a name that is not in the index passes the filter ≈ 8–15 % of the time.
    const filterBits = Math.max(5, bitsFor(n * 6));
    const filter = new Int32Array(2 ** (filterBits - 5));
    const filterShift = 32 - filterBits;
    let distinct = 0;
    for (let i = 0; i < n; i++) {
      const r = this.refs[i]!;
      const len = records[r]!;
      const s = r + RECORD_HEADER;
      const h = hash(records, s, s + len);
      let slot = h & mask;
      for (;;) {
        const v = table[slot]!;
        if (v < 0) {
          table[slot] = (fingerprint(h, refBits) << refBits) | r;
          const bit = Math.imul(h, FILTER_MIX) >>> filterShift;
          filter[bit >>> 5] = filter[bit >>> 5]! | (1 << (bit & 31));
          distinct++;
          break;
        }
        const other = v & toRef;
        if (
          records[other] === len &&
          records.compare(records, s, s + len, other + RECORD_HEADER, other + RECORD_HEADER + len) === 0
        ) {
          // Same domain twice: the first record keeps the union.
          const union = this.intern([...this.sets[setIdAt(records, other)]!, ...this.sets[setIdAt(records, r)]!]);
          records[other + 1] = union & 0xff;
          records[other + 2] = union >>> 8;
          break;
        }
        slot = (slot + 1) & mask;
      }
    }
    return new CategoryIndex(records, this.sets.slice(), table, refBits, filter, filterBits, distinct);
  }
}

/** The category-set id in the header of the record at `ref`. */
function setIdAt(records: Buffer, ref: number): number {
  return records[ref + 1]! | (records[ref + 2]! << 8);
}
