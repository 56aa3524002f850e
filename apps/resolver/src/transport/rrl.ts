import { DNS_RATE_DEFAULTS } from '@cordon/shared';
import { rrlPrefix } from './client-prefix.ts';

/** Settings of {@link ResponseRateLimiter} (`ResolverOptions.rrl`; docs/operations.md "Response-rate limiting"). */
export interface RrlOptions {
  /**
   * Responses per second per client prefix (IPv4 /24, IPv6 /56); also the burst a quiet prefix
   * may spend at once. 0 turns rate limiting off. Default {@link DEFAULT_RRL_RATE}.
   */
  ratePerSecond?: number;
  /**
   * Every `slip`-th limited query gets an empty TC=1 answer (so a real client retries over TCP),
   * the others are dropped; 0 drops them all, 1 truncates them all. Default {@link DEFAULT_RRL_SLIP}.
   */
  slip?: number;
  /** Prefixes tracked at once (rounded up to a power of two; the memory bound). Default 65,536. */
  tableSize?: number;
}

/**
 * Default responses per second per prefix, for the answers response-rate limiting applies to
 * (docs/operations.md "Response-rate limiting"): every answer to a source no location claims (a
 * roaming device by its EDNS(0) key, or REFUSED) and the amplifying answers to a claimed one.
 * Claimed locations have their own limit ({@link DEFAULT_LOCATION_RATE}). Knot's 20/s per bucket
 * suits authoritative servers, not a recursive service whose roaming devices share a /24; low
 * enough that a spoofed victim receives little.
 */
export const DEFAULT_RRL_RATE: number = DNS_RATE_DEFAULTS.rrlQps;
/** Default slip, as BIND and Knot: every second limited query is answered TC=1. */
export const DEFAULT_RRL_SLIP = 2;

/** What to do with a query: {@link RRL_PASS} answer it, {@link RRL_DROP} send nothing, {@link RRL_SLIP} send an empty TC=1 answer. */
export type RrlVerdict = 0 | 1 | 2;
export const RRL_PASS = 0;
export const RRL_DROP = 1;
export const RRL_SLIP = 2;

/**
 * Default queries per second per claimed location (`--location-rate-limit`; docs/operations.md
 * "Response-rate limiting"): above a large site's peak — a school of 1,000 pupils behind one NAT
 * address asks a few hundred to 2,000 a second at its busiest (page loads fan out into tens of names
 * per device) — so it never throttles a real site, while one location cannot take a resolver
 * thread's whole cache-hit capacity (bench/README.md) from the other tenants.
 */
export const DEFAULT_LOCATION_RATE: number = DNS_RATE_DEFAULTS.locationQps;

/**
 * An answer of more bytes than this is amplifying (RFC 1035 §4.2.1: 512 bytes is classic DNS's
 * largest UDP message; beyond it a spoofed query buys a reflector many times its size): response-
 * rate limiting applies to it even for a claimed source.
 */
export const AMPLIFYING_ANSWER_BYTES = 512;

/** The bucket kind of a location (the prefix kinds of `rrlPrefix` are 1 and 2). */
const LOCATION_KIND = 3;

/** Slots looked at per lookup; a new prefix takes an empty one or the least recently seen of them. */
const PROBES = 8;

/**
 * Response-rate limiting for UDP, in the manner of BIND's and Knot's RRL (a defence against
 * reflection and amplification with spoofed sources): one token bucket per client prefix (IPv4
 * /24, IPv6 /56) refilled at `ratePerSecond` up to `ratePerSecond` tokens; a query spends one,
 * and a query finding the bucket empty is limited — dropped, except every `slip`-th, which is
 * answered truncated. TCP is never limited (its sources cannot be spoofed).
 *
 * Memory is fixed at construction: an open-addressed table of `tableSize` slots in typed arrays
 * (29 bytes a slot), no allocation per query. A prefix not in the table takes an empty slot or
 * evicts the least recently seen of its {@link PROBES} candidate slots, and starts with a full
 * bucket. Under a flood of many prefixes an evicted prefix so gets a fresh bucket — the price of
 * the bound, as in BIND's fixed-size table.
 */
export class ResponseRateLimiter {
  private readonly rate: number;
  private readonly slip: number;
  private readonly mask: number;
  private readonly kind: Uint8Array;
  private readonly hi: Uint32Array;
  private readonly lo: Uint32Array;
  private readonly tokens: Float64Array;
  private readonly seen: Float64Array;
  private readonly limited: Uint32Array;
  private readonly key = new Uint32Array(3);
  private readonly now: () => number;
  /** The last address parsed and its prefix: a client's queries mostly come in runs. */
  private lastAddress = '';
  private lastKind = 0;
  private lastHi = 0;
  private lastLo = 0;

  /**
   * @param opts rate, slip and table size (see {@link RrlOptions}); the rate must be > 0
   * @param now monotonic clock in ms; a coarse one will do (the UDP server passes one ticking every
   *   10 ms: a clock read costs about as much as the rest of a check)
   * @throws RangeError for a rate ≤ 0, a negative slip or a table size < 1
   */
  constructor(opts: RrlOptions, now: () => number = () => performance.now()) {
    const rate = opts.ratePerSecond ?? DEFAULT_RRL_RATE;
    const slip = opts.slip ?? DEFAULT_RRL_SLIP;
    const size = opts.tableSize ?? 65_536;
    if (!(rate > 0)) throw new RangeError(`RRL rate must be > 0 responses/s, got ${rate}`);
    if (!Number.isInteger(slip) || slip < 0) throw new RangeError(`RRL slip must be an integer ≥ 0, got ${slip}`);
    if (!Number.isInteger(size) || size < 1) throw new RangeError(`RRL table size must be ≥ 1, got ${size}`);
    let slots = PROBES;
    while (slots < size) slots *= 2;
    this.rate = rate;
    this.slip = slip;
    this.mask = slots - 1;
    this.kind = new Uint8Array(slots);
    this.hi = new Uint32Array(slots);
    this.lo = new Uint32Array(slots);
    this.tokens = new Float64Array(slots);
    this.seen = new Float64Array(slots);
    this.limited = new Uint32Array(slots);
    this.now = now;
  }

  /** Slots in the table (the bound on prefixes tracked at once). */
  get capacity(): number {
    return this.mask + 1;
  }

  /**
   * Charges one response to `address`'s prefix and says what to do with the query. An address
   * that is no IP literal (never from a real socket) passes.
   */
  check(address: string): RrlVerdict {
    if (address !== this.lastAddress) {
      const key = this.key;
      if (!rrlPrefix(address, key)) return RRL_PASS;
      this.lastAddress = address;
      this.lastKind = key[0]!;
      this.lastHi = key[1]!;
      this.lastLo = key[2]!;
    }
    return this.charge(this.lastKind, this.lastHi, this.lastLo);
  }

  /**
   * Charges one response to location `locationId` (a positive integer: the per-location limit of
   * claimed sources, docs/operations.md "Response-rate limiting") and says what to do with the query.
   */
  checkLocation(locationId: number): RrlVerdict {
    return this.charge(LOCATION_KIND, locationId >>> 0, 0);
  }

  /** Charges one response to the bucket (kind, hi, lo); allocates nothing. */
  private charge(kind: number, hi: number, lo: number): RrlVerdict {
    const now = this.now();
    const start = (Math.imul(hi ^ Math.imul(lo, 0x85ebca6b) ^ kind, 0x9e3779b1) >>> 0) & this.mask;
    let slot = -1;
    let victim = start;
    for (let p = 0; p < PROBES; p++) {
      const s = (start + p) & this.mask;
      const k = this.kind[s]!;
      if (k === kind && this.hi[s] === hi && this.lo[s] === lo) {
        slot = s;
        break;
      }
      if (k === 0) {
        victim = s;
        break;
      }
      if (this.seen[s]! < this.seen[victim]!) victim = s;
    }
    if (slot < 0) {
      slot = victim;
      this.kind[slot] = kind;
      this.hi[slot] = hi;
      this.lo[slot] = lo;
      this.tokens[slot] = this.rate;
      this.limited[slot] = 0;
    } else {
      const refill = this.tokens[slot]! + ((now - this.seen[slot]!) * this.rate) / 1000;
      this.tokens[slot] = refill < this.rate ? refill : this.rate;
    }
    this.seen[slot] = now;
    const tokens = this.tokens[slot]!;
    if (tokens >= 1) {
      this.tokens[slot] = tokens - 1;
      return RRL_PASS;
    }
    const n = this.limited[slot]! + 1;
    this.limited[slot] = n;
    return this.slip > 0 && n % this.slip === 0 ? RRL_SLIP : RRL_DROP;
  }
}
