import type { CompiledAnswer } from './compiled-answer.ts';

/** Cache settings. */
export interface AnswerCacheOptions {
  /**
   * Most entries kept. When full, the oldest entry not hit since it took its place goes first
   * ({@link AnswerCache}'s second chance). Default 100,000.
   */
  maxEntries?: number;
  /** Longest TTL honoured, seconds (caps upstream TTLs). Default 86,400. */
  maxTtl?: number;
  /** How long an expired entry may still be served stale, seconds (RFC 8767 §5 suggests 1–3 days). Default 86,400. */
  maxStale?: number;
  /** Clock, epoch ms; tests inject one. */
  now?: () => number;
}

/** One cache entry: the compiled answer; when it was stored and expires, epoch ms; whether it was hit since it took its place. */
export interface CacheEntry {
  readonly answer: CompiledAnswer;
  readonly storedAt: number;
  readonly expiresAt: number;
  /** Set by a hit, cleared when the entry gets a second chance (moves to the young end). */
  referenced: boolean;
}

/**
 * Entries an eviction moves to the young end at most (each hit since it took its place) before it
 * evicts the oldest one regardless: bounds an insertion's work when every old entry was hit.
 */
export const SECOND_CHANCES = 8;

/** TTL of stale answers, seconds (RFC 8767 §4 recommends 30). */
export const STALE_TTL = 30;

/**
 * The shared answer cache (docs/architecture.md "Data plane", docs/contributing.md "Conventions" 6): below policy, so it holds only upstream
 * answers and is safe to share between tenants. Keyed by (qname lower-cased, qtype, qclass, DO
 * bit, CD bit). Bounded by `maxEntries` with second-chance eviction (CLOCK, an approximation of
 * LRU) over a `Map`'s insertion order: a hit only marks its entry; when the cache is full, the
 * oldest entries marked since they took their place move to the young end, unmarked (at most
 * {@link SECOND_CHANCES} a time), and the first unmarked one is evicted. A hit thus never changes
 * the `Map`: moving an entry is a delete and a set, whose holes make the table rehash — a pause
 * proportional to its size — and with 90,000 names each hit every few seconds a move per hit cost
 * 1–4 µs a query (docs/decisions.md "Answer cache: second chance"). Entries are
 * {@link CompiledAnswer}s (wire bytes plus TTL offsets), so a hit is rendered by {@link renderAnswer}
 * as one copy, the id and question of the asker, and a TTL patch per record.
 *
 * An entry lives for the answer's {@link CompiledAnswer.cacheTtl} (RFC 2181 §5.2, RFC 2308 §5),
 * capped at `maxTtl`; answers with cacheTtl 0 (SERVFAIL, TTL 0, negative without SOA) are not
 * stored.
 */
export class AnswerCache {
  private readonly map = new Map<string, CacheEntry>();
  private readonly maxEntries: number;
  private readonly maxTtl: number;
  private readonly maxStale: number;
  /** The cache's clock, epoch ms. */
  readonly now: () => number;
  /** True when {@link now} is the wall clock (no clock injected): a caller may pass its own reading of it. */
  readonly wallClock: boolean;

  constructor(opts: AnswerCacheOptions = {}) {
    this.maxEntries = opts.maxEntries ?? 100_000;
    this.maxTtl = opts.maxTtl ?? 86_400;
    this.maxStale = opts.maxStale ?? 86_400;
    this.now = opts.now ?? Date.now;
    this.wallClock = opts.now === undefined;
  }

  /** Number of entries, fresh or stale. */
  get size(): number {
    return this.map.size;
  }

  /**
   * The cache key of a question. `qname` must be lower case. The commonest question (qtype A, class
   * IN, no DO or CD bit) is keyed by the qname itself when it holds no `|`, so a hit builds no string
   * and hashes only the name; every other question by `qname|qtype|qclass|DO`, with `|CD` appended
   * when the client set CD (RFC 4035 §3.2.2: a CD answer may hold data a validating upstream
   * withholds from others), which always holds a `|` and, read from the right, names one question:
   * the kinds never collide.
   */
  static key(
    qname: string,
    qtype: number,
    qclass: number | string,
    dnssecOk: boolean,
    checkingDisabled = false,
  ): string {
    if (qtype === 1 && (qclass === 1 || qclass === 'IN') && !dnssecOk && !checkingDisabled && qname.indexOf('|') === -1)
      return qname;
    return `${qname}|${qtype}|${qclass}|${dnssecOk ? 1 : 0}${checkingDisabled ? '|CD' : ''}`;
  }

  /** Stores a compiled upstream answer if cacheable. Returns the TTL used, seconds, or 0 when nothing was stored. */
  set(key: string, answer: CompiledAnswer): number {
    const ttl = Math.min(answer.cacheTtl, this.maxTtl);
    if (!(ttl > 0) || this.maxEntries <= 0) return 0;
    const now = this.now();
    // Room is made before the new entry goes in, so it cannot be the one evicted.
    if (!this.map.delete(key) && this.map.size >= this.maxEntries) this.evictOne();
    this.map.set(key, { answer, storedAt: now, expiresAt: now + ttl * 1000, referenced: false });
    return ttl;
  }

  /** Evicts the oldest entry not hit since it took its place, moving up to {@link SECOND_CHANCES} hit ones to the young end first. */
  private evictOne(): void {
    for (let chances = 0; ; chances++) {
      const oldest = this.map.entries().next().value;
      if (oldest === undefined) return;
      const [key, entry] = oldest;
      if (!entry.referenced || chances >= SECOND_CHANCES) {
        this.map.delete(key);
        return;
      }
      entry.referenced = false;
      this.map.delete(key);
      this.map.set(key, entry);
    }
  }

  /**
   * A fresh entry, or undefined; marks it hit (its second chance at eviction, see {@link AnswerCache}).
   * See {@link elapsedSeconds} for the TTL decrement.
   * `now`: the cache's clock read by the caller (epoch ms; only when {@link wallClock} may it be the
   * caller's own wall-clock reading, such as a receive batch's).
   */
  get(key: string, now = this.now()): CacheEntry | undefined {
    const e = this.map.get(key);
    if (e === undefined) return undefined;
    if (now >= e.expiresAt) return undefined;
    e.referenced = true;
    return e;
  }

  /** Whole seconds `entry` has spent in cache at `now` (epoch ms, as {@link get}): what to take off each of its TTLs. */
  elapsedSeconds(entry: CacheEntry, now = this.now()): number {
    return Math.floor((now - entry.storedAt) / 1000);
  }

  /**
   * An expired entry still within `maxStale`, to be served with every TTL set to
   * {@link STALE_TTL} (RFC 8767 §4) when all upstreams failed; else undefined.
   */
  getStale(key: string): CacheEntry | undefined {
    const e = this.map.get(key);
    if (e === undefined) return undefined;
    if (this.now() > e.expiresAt + this.maxStale * 1000) return undefined;
    return e;
  }

  clear(): void {
    this.map.clear();
  }
}
