/**
 * A domain list compiled for the hot path (docs/architecture.md "Decision order"): an entry matches
 * its own name and, when it says "include subdomains", every name below it; of several matching
 * entries the longest wins. Built once per snapshot, then only read.
 *
 * Layout (packed like the category index, bench/README.md "Resolver memory"): instead of two
 * `Map<string, T>` (≈ 74 bytes per entry in V8 with the key string), the distinct names live back to
 * back in one Latin-1 byte buffer, with a `Uint32Array` of offsets, a `Uint8Array` of scope bits
 * (1: the entry matching the name only, 2: the entry that also matches subdomains) and an
 * open-addressing hash table (`Int32Array`, load ≤ 0.5) keyed by FNV-1a of the name read from its
 * last character to its first. That is ≈ (name length + 13) bytes per name. Values are one shared
 * value when every entry carries the same one (lists: `true`), else two arrays (exact, subtree).
 *
 * Hashing from the right lets a lookup hash the qname once, from its end: at each label boundary the
 * running hash is that of the parent suffix, probed as a subtree entry; the last, longest hit wins,
 * and the full name is probed as an exact entry, then a subtree entry. No string is allocated.
 *
 * Names are normalised (lower case, no trailing dot: `normalizeDomain` of `@cordon/shared`, so A-labels,
 * ASCII). A name with a UTF-16 code unit above 0xff (a name `normalizeDomain` could not convert) does
 * not fit one byte per character: an index holding one keeps its entries in two maps instead.
 *
 * Entries added are packed on {@link seal}, which the first lookup or `size` calls when entries are
 * pending; loaders call it themselves so the pending strings go with the load. An add after a seal
 * re-packs the whole index on the next lookup (loaders add everything before the first lookup).
 */
export class DomainIndex<T> {
  // Pending adds, in order.
  private pendingNames: string[] = [];
  private pendingScopes: number[] = [];
  private pendingValues: T[] = [];

  // Packed form.
  private bytes: Buffer = EMPTY_BYTES;
  private offsets: Uint32Array = EMPTY_OFFSETS;
  private scopes: Uint8Array = EMPTY_SCOPES;
  private table: Int32Array = EMPTY_TABLE;
  private names = 0;
  private entries = 0;
  private hasSubtree = false;
  /** Every entry's value when {@link uniform}; else the values are in the two arrays. */
  private single: T | undefined = undefined;
  private uniform = true;
  private exactValues: (T | undefined)[] | null = null;
  private subtreeValues: (T | undefined)[] | null = null;

  // Wide form: names with code units above 0xff (see the class comment).
  private wide: { exact: Map<string, T>; subtree: Map<string, T> } | null = null;

  /** Entries added (a name added twice with the same scope counts once). Packs pending entries. */
  get size(): number {
    if (this.pendingNames.length !== 0) this.seal();
    return this.entries;
  }

  /** Approximate bytes of the packed form's typed arrays (0 for an empty or wide index). */
  get byteSize(): number {
    return this.bytes.length + this.offsets.byteLength + this.scopes.byteLength + this.table.byteLength;
  }

  /**
   * Adds an entry. The first add of a (name, scope) keeps its value; later ones are ignored, so a
   * loader adding rows in id order makes the oldest entry win.
   * @param domain a normalised name (lower case, no trailing dot); an empty name is ignored
   * @param includeSubdomains true: the entry also matches every name below `domain`
   */
  add(domain: string, value: T, includeSubdomains: boolean): void {
    if (domain.length === 0) return;
    this.pendingNames.push(domain);
    this.pendingScopes.push(includeSubdomains ? SUBTREE : EXACT);
    this.pendingValues.push(value);
  }

  /**
   * Packs the pending entries with those already packed (the first of equal (name, scope) entries
   * wins) and drops the pending strings. Called by {@link lookup} and {@link size} when needed.
   */
  seal(): void {
    if (this.pendingNames.length === 0) return;
    const names = this.names === 0 && this.wide === null ? this.pendingNames : this.unpack().concat(this.pendingNames);
    const scopes =
      this.names === 0 && this.wide === null ? this.pendingScopes : this.unpackedScopes().concat(this.pendingScopes);
    const values =
      this.names === 0 && this.wide === null ? this.pendingValues : this.unpackedValues().concat(this.pendingValues);
    this.pendingNames = [];
    this.pendingScopes = [];
    this.pendingValues = [];
    this.pack(names, scopes, values);
  }

  /**
   * The value of the longest entry matching `qname` (normalised), or undefined. An exact-only entry
   * matches `qname` itself only; a subtree entry matches it and its subdomains.
   */
  lookup(qname: string): T | undefined {
    if (this.pendingNames.length !== 0) this.seal();
    if (this.entries === 0) return undefined;
    if (this.wide !== null) return this.lookupWide(qname);
    const n = qname.length;
    let h = FNV_OFFSET;
    let best = -1;
    for (let i = n - 1; i >= 0; i--) {
      const c = qname.charCodeAt(i);
      if (c === 46 && this.hasSubtree && i + 1 < n) {
        // qname[i+1, n) is a parent suffix; a longer hit (found later) replaces a shorter one.
        const name = this.find(qname, i + 1, n, h >>> 0);
        if (name >= 0 && (this.scopes[name]! & SUBTREE) !== 0) best = name;
      }
      h = Math.imul(h ^ c, FNV_PRIME);
    }
    const self = this.find(qname, 0, n, h >>> 0);
    if (self >= 0) {
      const scope = this.scopes[self]!;
      if ((scope & EXACT) !== 0) return this.uniform ? this.single : this.exactValues![self];
      return this.uniform ? this.single : this.subtreeValues![self];
    }
    if (best < 0) return undefined;
    return this.uniform ? this.single : this.subtreeValues![best];
  }

  /** The packed name equal to `qname[from, to)` whose right-to-left hash is `h`, or -1. */
  private find(qname: string, from: number, to: number, h: number): number {
    const table = this.table;
    const mask = table.length - 1;
    const len = to - from;
    const bytes = this.bytes;
    const offsets = this.offsets;
    for (let slot = h & mask; ; slot = (slot + 1) & mask) {
      const name = table[slot]!;
      if (name < 0) return -1;
      const s = offsets[name]!;
      if (offsets[name + 1]! - s !== len) continue;
      let k = 0;
      while (k < len && bytes[s + k] === qname.charCodeAt(from + k)) k++;
      if (k === len) return name;
    }
  }

  private lookupWide(qname: string): T | undefined {
    const { exact, subtree } = this.wide!;
    const hit = exact.get(qname);
    if (hit !== undefined) return hit;
    const self = subtree.get(qname);
    if (self !== undefined) return self;
    let dot = qname.indexOf('.');
    while (dot >= 0) {
      const parent = subtree.get(qname.slice(dot + 1));
      if (parent !== undefined) return parent;
      dot = qname.indexOf('.', dot + 1);
    }
    return undefined;
  }

  /** The packed (or wide) entries back as parallel arrays, in their first-add order. */
  private unpack(): string[] {
    if (this.wide !== null) return [...this.wide.exact.keys(), ...this.wide.subtree.keys()];
    const out: string[] = [];
    for (let i = 0; i < this.names; i++) {
      const name = this.bytes.toString('latin1', this.offsets[i]!, this.offsets[i + 1]!);
      if ((this.scopes[i]! & EXACT) !== 0) out.push(name);
      if ((this.scopes[i]! & SUBTREE) !== 0) out.push(name);
    }
    return out;
  }

  private unpackedScopes(): number[] {
    if (this.wide !== null) {
      return [...this.wide.exact.keys()].map(() => EXACT).concat([...this.wide.subtree.keys()].map(() => SUBTREE));
    }
    const out: number[] = [];
    for (let i = 0; i < this.names; i++) {
      if ((this.scopes[i]! & EXACT) !== 0) out.push(EXACT);
      if ((this.scopes[i]! & SUBTREE) !== 0) out.push(SUBTREE);
    }
    return out;
  }

  private unpackedValues(): T[] {
    if (this.wide !== null) return [...this.wide.exact.values(), ...this.wide.subtree.values()];
    const out: T[] = [];
    for (let i = 0; i < this.names; i++) {
      const both = this.scopes[i]!;
      if ((both & EXACT) !== 0) out.push((this.uniform ? this.single : this.exactValues![i]) as T);
      if ((both & SUBTREE) !== 0) out.push((this.uniform ? this.single : this.subtreeValues![i]) as T);
    }
    return out;
  }

  private pack(names: string[], scopes: number[], values: T[]): void {
    const n = names.length;
    let total = 0;
    let wide = false;
    for (const name of names) {
      total += name.length;
      if (!wide && !ONE_BYTE.test(name)) wide = true;
    }
    if (wide) {
      const exact = new Map<string, T>();
      const subtree = new Map<string, T>();
      for (let i = 0; i < n; i++) {
        const map = scopes[i] === SUBTREE ? subtree : exact;
        if (!map.has(names[i]!)) map.set(names[i]!, values[i]!);
      }
      this.wide = { exact, subtree };
      this.entries = exact.size + subtree.size;
      this.bytes = EMPTY_BYTES;
      this.offsets = EMPTY_OFFSETS;
      this.scopes = EMPTY_SCOPES;
      this.table = EMPTY_TABLE;
      this.names = 0;
      return;
    }
    let cap = 16;
    while (cap < n * 2) cap *= 2;
    const table = new Int32Array(cap).fill(-1);
    const mask = cap - 1;
    const bytes = Buffer.allocUnsafeSlow(total);
    const offsets = new Uint32Array(n + 1);
    const scopeOf = new Uint8Array(n);
    const uniform = values.every((v) => v === values[0]);
    const exactValues: (T | undefined)[] | null = uniform ? null : [];
    const subtreeValues: (T | undefined)[] | null = uniform ? null : [];
    let count = 0;
    let entries = 0;
    let byteLen = 0;
    let hasSubtree = false;
    for (let i = 0; i < n; i++) {
      const name = names[i]!;
      const h = hashRight(name);
      let slot = h & mask;
      let at = -1;
      for (;;) {
        const other = table[slot]!;
        if (other < 0) break;
        const s = offsets[other]!;
        if (offsets[other + 1]! - s === name.length && bytes.toString('latin1', s, s + name.length) === name) {
          at = other;
          break;
        }
        slot = (slot + 1) & mask;
      }
      if (at < 0) {
        at = count++;
        table[slot] = at;
        offsets[at] = byteLen;
        byteLen += bytes.write(name, byteLen, 'latin1');
        offsets[at + 1] = byteLen;
      }
      const scope = scopes[i]!;
      if ((scopeOf[at]! & scope) !== 0) continue; // the first (name, scope) wins
      scopeOf[at] = scopeOf[at]! | scope;
      entries++;
      if (scope === SUBTREE) hasSubtree = true;
      if (!uniform) (scope === SUBTREE ? subtreeValues! : exactValues!)[at] = values[i];
    }
    this.wide = null;
    this.bytes = byteLen === total ? bytes : Buffer.from(bytes.subarray(0, byteLen));
    this.offsets = count === n ? offsets : offsets.slice(0, count + 1);
    this.scopes = count === n ? scopeOf : scopeOf.slice(0, count);
    this.table = table;
    this.names = count;
    this.entries = entries;
    this.hasSubtree = hasSubtree;
    this.uniform = uniform;
    this.single = uniform ? values[0] : undefined;
    this.exactValues = exactValues;
    this.subtreeValues = subtreeValues;
  }
}

const EXACT = 1;
const SUBTREE = 2;
const FNV_OFFSET = 0x811c9dc5 | 0;
const FNV_PRIME = 0x01000193;
// biome-ignore lint/suspicious/noControlCharactersInRegex: the one-byte range is the point
const ONE_BYTE = /^[\x00-\xff]*$/;
const EMPTY_BYTES = Buffer.alloc(0);
const EMPTY_OFFSETS = new Uint32Array(1);
const EMPTY_SCOPES = new Uint8Array(0);
const EMPTY_TABLE = new Int32Array(0);

/** FNV-1a, 32-bit, over the UTF-16 code units of `name` read from the last to the first. */
function hashRight(name: string): number {
  let h = FNV_OFFSET;
  for (let i = name.length - 1; i >= 0; i--) h = Math.imul(h ^ name.charCodeAt(i), FNV_PRIME);
  return h >>> 0;
}

/** An allow list and a block list of one owner (a policy, an MSP, the system). */
export interface DomainLists {
  readonly allow: DomainIndex<true>;
  readonly block: DomainIndex<true>;
}

/** Lists with no entries: every rule reading them passes at once (a do-nothing stand-in). */
export const NO_LISTS: DomainLists = Object.freeze({ allow: new DomainIndex<true>(), block: new DomainIndex<true>() });
