import type { CompiledAnswer } from './compiled-answer.ts';

/** Cache settings. */
export interface AnswerCacheOptions {
  /** Most entries kept; the least recently used goes first. Default 100,000. */
  maxEntries?: number;
  /** Longest TTL honoured, seconds (caps upstream TTLs). Default 86,400. */
  maxTtl?: number;
  /** How long an expired entry may still be served stale, seconds (RFC 8767 §5 suggests 1–3 days). Default 86,400. */
  maxStale?: number;
  /** Clock, epoch ms; tests inject one. */
  now?: () => number;
}

/** One cache entry: the compiled answer and when it was stored, expires and last moved to the LRU's young end, epoch ms. */
export interface CacheEntry {
  readonly answer: CompiledAnswer;
  readonly storedAt: number;
  readonly expiresAt: number;
  touchedAt: number;
}

/**
 * A hit moves its entry to the young end of the LRU order at most this often, ms: moving is a `Map`
 * delete and set, whose holes make the table rehash (a pause proportional to its size) every
 * few thousand hits on a busy entry set; within a second the order is close enough.
 */
export const LRU_REFRESH_MS = 1000;

/** TTL of stale answers, seconds (RFC 8767 §4 recommends 30). */
export const STALE_TTL = 30;

/**
 * The shared answer cache (docs/architecture.md "Data plane", docs/contributing.md "Conventions" 6): below policy, so it holds only upstream
 * answers and is safe to share between tenants. Keyed by (qname lower-cased, qtype, qclass, DO
 * bit, CD bit). Bounded LRU over a `Map`'s insertion order. Entries are {@link CompiledAnswer}s (wire
 * bytes plus TTL offsets), so a hit is rendered by {@link renderAnswer} as one copy, the id and
 * question of the asker, and a TTL patch per record. The LRU order is refreshed at most once a
 * second per entry ({@link LRU_REFRESH_MS}).
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
    if (!(ttl > 0)) return 0;
    const now = this.now();
    this.map.delete(key);
    this.map.set(key, { answer, storedAt: now, expiresAt: now + ttl * 1000, touchedAt: now });
    if (this.map.size > this.maxEntries) {
      const oldest = this.map.keys().next().value;
      if (oldest !== undefined) this.map.delete(oldest);
    }
    return ttl;
  }

  /**
   * A fresh entry, or undefined. Refreshes its LRU position when it was last refreshed
   * {@link LRU_REFRESH_MS} or more ago. See {@link elapsedSeconds} for the TTL decrement.
   * `now`: the cache's clock read by the caller (epoch ms; only when {@link wallClock} may it be the
   * caller's own wall-clock reading, such as a receive batch's).
   */
  get(key: string, now = this.now()): CacheEntry | undefined {
    const e = this.map.get(key);
    if (e === undefined) return undefined;
    if (now >= e.expiresAt) return undefined;
    if (now - e.touchedAt >= LRU_REFRESH_MS) {
      e.touchedAt = now;
      this.map.delete(key);
      this.map.set(key, e);
    }
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
