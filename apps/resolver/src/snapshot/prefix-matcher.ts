import { type CidrRange, canonicalIp, parseCidr } from '@cordon/shared';
import ipaddr from 'ipaddr.js';

/**
 * Longest-prefix match of client addresses against CIDR ranges, IPv4 and IPv6 (docs/architecture.md
 * "Data plane", identify). Built once per snapshot, read per query without allocating for IPv4.
 *
 * Layout: per address family, one map per prefix length present (network → value), probed from
 * the longest length down. With the handful of distinct lengths real deployments use, a lookup
 * is a few integer masks and Map probes. IPv6 networks are keyed by their 128-bit value as a
 * bigint (only IPv6 queries pay for the bigint).
 *
 * Ranges and client addresses go through the one canonical form of `@cordon/shared` (docs/architecture.md "Tenancy"):
 * an IPv4-mapped IPv6 range of length ≥ 96 or client address IS the IPv4 one.
 */
export class PrefixMatcher<T> {
  private readonly v4 = new Map<number, Map<number, T>>();
  private v4Lengths: number[] = [];
  private readonly v6 = new Map<number, Map<bigint, T>>();
  private v6Lengths: number[] = [];

  /** Number of ranges added. */
  size = 0;

  /**
   * Adds a range. `cidr` is `address/prefix` or a bare address, read by `parseCidr` (so
   * `::ffff:10.0.0.0/104` is `10.0.0.0/8`). The FIRST add of a range keeps it: a later add of the
   * same range (however written) is ignored and returns false, so a caller adding in claim order
   * makes the oldest claim win a tie (docs/architecture.md "Data plane"; docs/decisions.md).
   * @returns true when added, false when the range was already held
   * @throws Error when `cidr` does not parse
   */
  add(cidr: string, value: T): boolean {
    const range = parseCidr(cidr);
    if (!range) throw new Error(`not an IP address or CIDR range: ${cidr}`);
    return this.addRange(range, value);
  }

  /** {@link add} of a range already parsed by `parseCidr` (loaders keep them, so a rebuild parses nothing). */
  addRange(range: CidrRange, value: T): boolean {
    if (range.family === 4) {
      const net = Number(range.first);
      let m = this.v4.get(range.prefix);
      if (!m) {
        m = new Map();
        this.v4.set(range.prefix, m);
        this.v4Lengths = [...this.v4.keys()].sort((a, b) => b - a);
      }
      if (m.has(net)) return false;
      m.set(net, value);
    } else {
      let m = this.v6.get(range.prefix);
      if (!m) {
        m = new Map();
        this.v6.set(range.prefix, m);
        this.v6Lengths = [...this.v6.keys()].sort((a, b) => b - a);
      }
      if (m.has(range.first)) return false;
      m.set(range.first, value);
    }
    this.size++;
    return true;
  }

  /**
   * The value of the longest range containing `ip`, or undefined (also for unparsable text). An
   * IPv4-mapped IPv6 address in any spelling is looked up as its IPv4 address (`canonicalIp`).
   */
  lookup(ip: string): T | undefined {
    const text = canonicalIp(ip);
    const v4 = parseIpv4(text);
    if (v4 >= 0) {
      const lengths = this.v4Lengths;
      for (let i = 0; i < lengths.length; i++) {
        const len = lengths[i]!;
        const hit = this.v4.get(len)!.get((v4 & maskV4(len)) >>> 0);
        if (hit !== undefined) return hit;
      }
      return undefined;
    }
    if (this.v6Lengths.length === 0 || !ipaddr.IPv6.isValid(text)) return undefined;
    const value = bytesToBigint(ipaddr.IPv6.parse(text).toByteArray());
    const lengths = this.v6Lengths;
    for (let i = 0; i < lengths.length; i++) {
      const len = lengths[i]!;
      const hit = this.v6.get(len)!.get(value & maskV6(len));
      if (hit !== undefined) return hit;
    }
    return undefined;
  }
}

function maskV4(prefix: number): number {
  return prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
}

const ALL_V6 = (1n << 128n) - 1n;
const V6_MASKS: bigint[] = Array.from({ length: 129 }, (_, p) =>
  p === 0 ? 0n : (ALL_V6 >> BigInt(128 - p)) << BigInt(128 - p),
);

function maskV6(prefix: number): bigint {
  return V6_MASKS[prefix]!;
}

function bytesToBigint(b: number[]): bigint {
  let v = 0n;
  for (let i = 0; i < b.length; i++) v = (v << 8n) | BigInt(b[i]!);
  return v;
}

/** Dotted-quad IPv4 → uint32, or -1 when `s` is not exactly four decimal octets. No allocation. */
export function parseIpv4(s: string): number {
  let value = 0;
  let octet = 0;
  let digits = 0;
  let dots = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 46) {
      if (digits === 0) return -1;
      value = value * 256 + octet;
      octet = 0;
      digits = 0;
      dots++;
      if (dots > 3) return -1;
    } else if (c >= 48 && c <= 57) {
      octet = octet * 10 + (c - 48);
      digits++;
      if (octet > 255 || digits > 3) return -1;
    } else {
      return -1;
    }
  }
  if (dots !== 3 || digits === 0) return -1;
  return value * 256 + octet;
}
