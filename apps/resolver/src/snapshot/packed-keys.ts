/**
 * Distinct strings numbered 0, 1, 2… in first-add order, packed like the list entries
 * (`DomainIndex`, bench/README.md "Resolver memory"): the strings back to back in one Latin-1 byte
 * buffer, a `Uint32Array` of offsets (string `i` is bytes `[offsets[i], offsets[i + 1])`) and an
 * open-addressing table (`Int32Array` of string numbers, -1 empty, linear probing, load ≤ 0.5) keyed
 * by FNV-1a over the UTF-16 code units. That is (length + 4 + 8 to 16) bytes a string instead of a
 * string object and a `Map` entry (≈ 46 against ≈ 85 bytes for a 32-character device key).
 *
 * {@link rowOf} hashes its argument and compares it with the packed bytes: it allocates nothing.
 * A string with a code unit above 0xff does not fit one byte per character: it is kept in a small
 * map beside the packed ones (device keys are URL-safe base64, so in practice none).
 *
 * Grows by doubling while strings are added ({@link intern}, {@link internFrom}); {@link trim}
 * shrinks the arrays to their content once every string is in, after which the set is only read.
 */
export class PackedKeys {
  private bytes: Buffer;
  private used = 0;
  private offsets: Uint32Array;
  private table: Int32Array;
  private n = 0;
  /** string → number of the strings with a code unit above 0xff; null while there is none. */
  private wide: Map<string, number> | null = null;
  /** number → string of the same. */
  private wideKeys: Map<number, string> | null = null;

  /**
   * @param capacity strings expected (the arrays grow past it)
   * @param bytesEach bytes expected per string, for the first buffer
   */
  constructor(capacity = 16, bytesEach = 32) {
    const c = Math.max(16, capacity);
    this.bytes = Buffer.allocUnsafeSlow(c * bytesEach);
    this.offsets = new Uint32Array(c + 1);
    this.table = new Int32Array(tableSize(c)).fill(-1);
  }

  /** Number of distinct strings. */
  get size(): number {
    return this.n;
  }

  /** Bytes of the buffer, the offsets and the table (not the wide strings' map nor the scratch array). */
  get byteSize(): number {
    return this.bytes.length + this.offsets.byteLength + this.table.byteLength;
  }

  /**
   * The number of `key`, or -1 when it was never added. Allocates nothing: the key's code units are
   * copied into a scratch array while it is hashed, and compared from there (a typed array reads
   * faster than `charCodeAt`; keys longer than the scratch array are compared with `charCodeAt`).
   */
  rowOf(key: string): number {
    const len = key.length;
    if (len > SCRATCH.length) return this.rowOfLong(key);
    const q = SCRATCH;
    let h = FNV_OFFSET;
    let all = 0;
    for (let k = 0; k < len; k++) {
      const c = key.charCodeAt(k);
      all |= c;
      q[k] = c;
      h = Math.imul(h ^ c, FNV_PRIME);
    }
    if (all > 0xff) return this.wide === null ? -1 : (this.wide.get(key) ?? -1);
    // The probe of slotOf, written out: here every array access sees one type (slotOf also reads Buffers).
    const table = this.table;
    const mask = table.length - 1;
    const bytes = this.bytes;
    const offsets = this.offsets;
    for (let slot = (h >>> 0) & mask; ; slot = (slot + 1) & mask) {
      const row = table[slot]!;
      if (row < 0) return -1;
      const s = offsets[row]!;
      if (offsets[row + 1]! - s !== len) continue;
      let k = 0;
      while (k < len && bytes[s + k] === q[k]) k++;
      if (k === len) return row;
    }
  }

  /** String number `i` (a new string per call). `i` must be below {@link size}. */
  keyOf(i: number): string {
    const wide = this.wideKeys?.get(i);
    if (wide !== undefined) return wide;
    return this.bytes.toString('latin1', this.offsets[i]!, this.offsets[i + 1]!);
  }

  /** The number of `key`, added as the next number when new. */
  intern(key: string): number {
    const len = key.length;
    const q = len > SCRATCH.length ? new Uint8Array(len) : SCRATCH;
    let h = FNV_OFFSET;
    let all = 0;
    for (let k = 0; k < len; k++) {
      const c = key.charCodeAt(k);
      all |= c;
      q[k] = c;
      h = Math.imul(h ^ c, FNV_PRIME);
    }
    if (all > 0xff) return this.internWide(key);
    return this.add(h >>> 0, q, 0, len);
  }

  /** {@link intern} of string `i` of `from`, copying its bytes without making a string. */
  internFrom(from: PackedKeys, i: number): number {
    const wide = from.wideKeys?.get(i);
    if (wide !== undefined) return this.internWide(wide);
    const src = from.bytes;
    const start = from.offsets[i]!;
    const len = from.offsets[i + 1]! - start;
    let h = FNV_OFFSET;
    for (let k = 0; k < len; k++) h = Math.imul(h ^ src[start + k]!, FNV_PRIME);
    return this.add(h >>> 0, src, start, len);
  }

  /** Shrinks the buffer, the offsets and the table to the strings held; returns `this`. */
  trim(): this {
    const n = this.n;
    if (this.bytes.length !== this.used) {
      const bytes = Buffer.allocUnsafeSlow(this.used);
      this.bytes.copy(bytes, 0, 0, this.used);
      this.bytes = bytes;
    }
    if (this.offsets.length !== n + 1) this.offsets = this.offsets.slice(0, n + 1);
    if (this.table.length !== tableSize(n)) this.rehash(tableSize(n));
    return this;
  }

  /**
   * The slot holding the packed string equal to `src[start, start + len)`, whose hash is `h`, or the
   * empty slot where it would go (its entry is -1).
   */
  private slotOf(h: number, src: Uint8Array, start: number, len: number): number {
    const table = this.table;
    const mask = table.length - 1;
    const bytes = this.bytes;
    const offsets = this.offsets;
    for (let slot = h & mask; ; slot = (slot + 1) & mask) {
      const row = table[slot]!;
      if (row < 0) return slot;
      const s = offsets[row]!;
      if (offsets[row + 1]! - s !== len) continue;
      let k = 0;
      while (k < len && bytes[s + k] === src[start + k]) k++;
      if (k === len) return slot;
    }
  }

  /** The number of the string `src[start, start + len)` of hash `h`, appended when new. */
  private add(h: number, src: Uint8Array, start: number, len: number): number {
    const slot = this.slotOf(h, src, start, len);
    const found = this.table[slot]!;
    if (found >= 0) return found;
    const row = this.append(len);
    const at = this.offsets[row]!;
    for (let k = 0; k < len; k++) this.bytes[at + k] = src[start + k]!;
    return this.place(row, slot);
  }

  /** {@link rowOf} of a key longer than the scratch array, compared with `charCodeAt`. */
  private rowOfLong(key: string): number {
    const len = key.length;
    let h = FNV_OFFSET;
    for (let k = 0; k < len; k++) h = Math.imul(h ^ key.charCodeAt(k), FNV_PRIME);
    const table = this.table;
    const mask = table.length - 1;
    const bytes = this.bytes;
    const offsets = this.offsets;
    for (let slot = (h >>> 0) & mask; ; slot = (slot + 1) & mask) {
      const row = table[slot]!;
      if (row < 0) break;
      const s = offsets[row]!;
      if (offsets[row + 1]! - s !== len) continue;
      let k = 0;
      // A code unit above 0xff never equals a byte: such a key falls through to `wide`.
      while (k < len && bytes[s + k] === key.charCodeAt(k)) k++;
      if (k === len) return row;
    }
    return this.wide === null ? -1 : (this.wide.get(key) ?? -1);
  }

  /** Reserves string number `n` of `len` bytes (offsets set, bytes not written). */
  private append(len: number): number {
    const row = this.n;
    if (row + 1 === this.offsets.length) {
      const offsets = new Uint32Array(this.offsets.length * 2);
      offsets.set(this.offsets);
      this.offsets = offsets;
    }
    if (this.used + len > this.bytes.length) {
      const bytes = Buffer.allocUnsafeSlow(Math.max(this.bytes.length * 2, this.used + len));
      this.bytes.copy(bytes, 0, 0, this.used);
      this.bytes = bytes;
    }
    this.offsets[row] = this.used;
    this.used += len;
    this.offsets[row + 1] = this.used;
    this.n = row + 1;
    return row;
  }

  /** Puts new string `row` in `slot` (found before it was appended), growing the table past load 0.5. */
  private place(row: number, slot: number): number {
    if (tableSize(this.n) > this.table.length) this.rehash(tableSize(this.n));
    else this.table[slot] = row;
    return row;
  }

  private internWide(key: string): number {
    if (this.wide === null || this.wideKeys === null) {
      this.wide = new Map();
      this.wideKeys = new Map();
    }
    const found = this.wide.get(key);
    if (found !== undefined) return found;
    const row = this.append(0);
    this.wide.set(key, row);
    this.wideKeys.set(row, key);
    return row;
  }

  /** Rebuilds the table with `size` slots from the packed strings (the wide ones are not in it). */
  private rehash(size: number): void {
    const table = new Int32Array(size).fill(-1);
    const mask = size - 1;
    const bytes = this.bytes;
    const offsets = this.offsets;
    for (let row = 0; row < this.n; row++) {
      if (this.wideKeys?.has(row)) continue;
      let h = FNV_OFFSET;
      for (let k = offsets[row]!; k < offsets[row + 1]!; k++) h = Math.imul(h ^ bytes[k]!, FNV_PRIME);
      let slot = (h >>> 0) & mask;
      while (table[slot]! >= 0) slot = (slot + 1) & mask;
      table[slot] = row;
    }
    this.table = table;
  }
}

const FNV_OFFSET = 0x811c9dc5 | 0;
const FNV_PRIME = 0x01000193;
/**
 * A key's code units while it is looked up or added, 128 of them: `MAX_DEVICE_KEY` of dns/wire.ts
 * and the DoH path key's limit (transport/doh.ts). Only ever used within one synchronous call, so
 * one per thread (module) is enough; a per-instance array measured ≈ 20 ns slower per lookup.
 */
const SCRATCH = new Uint8Array(128);

/** Slots for `n` strings: the smallest power of two ≥ 2n, at least 16 (load ≤ 0.5). */
function tableSize(n: number): number {
  let size = 16;
  while (size < n * 2) size *= 2;
  return size;
}
