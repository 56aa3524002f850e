import type { Answer, Packet } from 'dns-packet';

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

/** A cached upstream answer: RCODE, header bits worth keeping and the sections without OPT. */
interface Entry {
  readonly rcode: number;
  readonly flags: number;
  readonly answers: Answer[];
  readonly authorities: Answer[];
  readonly additionals: Answer[];
  readonly storedAt: number;
  readonly expiresAt: number;
}

/** What {@link AnswerCache.get} returns: sections with TTLs already decremented. */
export interface CachedAnswer {
  readonly rcode: number;
  readonly flags: number;
  readonly answers: Answer[];
  readonly authorities: Answer[];
  readonly additionals: Answer[];
}

/** TTL of stale answers, seconds (RFC 8767 §4 recommends 30). */
export const STALE_TTL = 30;

/**
 * The shared answer cache (DESIGN.md §9, STYLE.md §6): below policy, so it holds only upstream
 * answers and is safe to share between tenants. Keyed by (qname lower-cased, qtype, qclass, DO
 * bit). Bounded LRU over a `Map`'s insertion order.
 *
 * TTL of an entry (RFC 2181 §5.2, RFC 2308 §5): positive answers live for the smallest TTL of
 * their records; NXDOMAIN/NODATA for min(SOA TTL, SOA MINIMUM) of the authority section's SOA and
 * are not cached without one. TTL 0 and SERVFAIL answers are not cached.
 */
export class AnswerCache {
  private readonly map = new Map<string, Entry>();
  private readonly maxEntries: number;
  private readonly maxTtl: number;
  private readonly maxStale: number;
  private readonly now: () => number;

  constructor(opts: AnswerCacheOptions = {}) {
    this.maxEntries = opts.maxEntries ?? 100_000;
    this.maxTtl = opts.maxTtl ?? 86_400;
    this.maxStale = opts.maxStale ?? 86_400;
    this.now = opts.now ?? Date.now;
  }

  /** Number of entries, fresh or stale. */
  get size(): number {
    return this.map.size;
  }

  /** The cache key of a question: `qname|qtype|qclass|DO`. `qname` must be lower case. */
  static key(qname: string, qtype: number, qclass: string, dnssecOk: boolean): string {
    return `${qname}|${qtype}|${qclass}|${dnssecOk ? 1 : 0}`;
  }

  /**
   * Stores an upstream response if it is cacheable (see class doc). Returns the TTL used, seconds,
   * or 0 when nothing was stored.
   */
  set(key: string, response: Packet): number {
    const rcode = (response.flags ?? 0) & 0xf;
    if (rcode !== 0 && rcode !== 3) return 0;
    const answers = response.answers ?? [];
    const authorities = response.authorities ?? [];
    const additionals = (response.additionals ?? []).filter((rr) => rr.type !== 'OPT');
    let ttl: number;
    if (rcode === 0 && answers.length > 0) {
      ttl = minTtl(answers, Number.POSITIVE_INFINITY);
      ttl = minTtl(authorities, ttl);
    } else {
      const soa = authorities.find((rr) => rr.type === 'SOA');
      if (!soa) return 0;
      const minimum = (soa as { data?: { minimum?: number } }).data?.minimum ?? 0;
      ttl = Math.min(soa.ttl ?? 0, minimum);
    }
    ttl = Math.min(ttl, this.maxTtl);
    if (!(ttl > 0)) return 0;
    const now = this.now();
    // Only AD among answer bits is worth keeping; AA is not ours to claim.
    const flags = (response.flags ?? 0) & 0x20;
    this.map.delete(key);
    this.map.set(key, { rcode, flags, answers, authorities, additionals, storedAt: now, expiresAt: now + ttl * 1000 });
    if (this.map.size > this.maxEntries) {
      const oldest = this.map.keys().next().value;
      if (oldest !== undefined) this.map.delete(oldest);
    }
    return ttl;
  }

  /**
   * A fresh answer with TTLs decremented by the time spent in cache, or undefined. Refreshes LRU
   * order. Records owned by the qname get `owner`'s spelling (the asker's case, as in its question).
   */
  get(key: string, owner?: string): CachedAnswer | undefined {
    const e = this.map.get(key);
    if (!e) return undefined;
    const now = this.now();
    if (now >= e.expiresAt) return undefined;
    this.map.delete(key);
    this.map.set(key, e);
    const elapsed = Math.floor((now - e.storedAt) / 1000);
    return {
      rcode: e.rcode,
      flags: e.flags,
      answers: withTtl(e.answers, elapsed, -1, owner),
      authorities: withTtl(e.authorities, elapsed, -1, owner),
      additionals: withTtl(e.additionals, elapsed, -1, owner),
    };
  }

  /**
   * An expired answer still within `maxStale`, every TTL set to {@link STALE_TTL} (RFC 8767 §4),
   * for when all upstreams failed; else undefined.
   */
  getStale(key: string, owner?: string): CachedAnswer | undefined {
    const e = this.map.get(key);
    if (!e) return undefined;
    if (this.now() > e.expiresAt + this.maxStale * 1000) return undefined;
    return {
      rcode: e.rcode,
      flags: e.flags,
      answers: withTtl(e.answers, 0, STALE_TTL, owner),
      authorities: withTtl(e.authorities, 0, STALE_TTL, owner),
      additionals: withTtl(e.additionals, 0, STALE_TTL, owner),
    };
  }

  clear(): void {
    this.map.clear();
  }
}

function minTtl(records: Answer[], start: number): number {
  let m = start;
  for (let i = 0; i < records.length; i++) {
    const t = (records[i] as { ttl?: number }).ttl ?? 0;
    if (t < m) m = t;
  }
  return m;
}

/**
 * Copies records with TTL decremented by `elapsed` seconds, or set to `fixed` when ≥ 0, and the
 * owner name respelled as `owner` where it matches it case-insensitively.
 */
function withTtl(records: Answer[], elapsed: number, fixed: number, owner: string | undefined): Answer[] {
  if (records.length === 0) return records;
  const out = new Array<Answer>(records.length);
  for (let i = 0; i < records.length; i++) {
    const rr = records[i]!;
    const ttl = fixed >= 0 ? fixed : Math.max(0, ((rr as { ttl?: number }).ttl ?? 0) - elapsed);
    const name =
      owner !== undefined &&
      rr.name !== owner &&
      rr.name.length === owner.length &&
      rr.name.toLowerCase() === owner.toLowerCase()
        ? owner
        : rr.name;
    out[i] = { ...rr, name, ttl } as Answer;
  }
  return out;
}
