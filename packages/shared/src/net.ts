import ipaddr from 'ipaddr.js';

/**
 * Normalises a DNS name for matching: lower case, no trailing dot, no leading dot.
 * Pure and allocation-light; used on the resolver's hot path.
 */
export function normalizeName(name: string): string {
  let n = name;
  if (n.endsWith('.')) n = n.slice(0, -1);
  if (n.startsWith('.')) n = n.slice(1);
  return n.toLowerCase();
}

/**
 * Normalises a domain name typed by a person or sent by a browser (a `Host` header, a list entry,
 * an imported feed line) to the form the resolver matches: {@link normalizeName} (lower case, no
 * trailing or leading dot) and, when the name has non-ASCII characters, its IDNA A-labels
 * (`bücher.example` → `xn--bcher-kva.example`, UTS #46 as the WHATWG URL parser applies it, in Node
 * and browsers alike). A name the URL parser refuses is returned lower-cased as is. Names read off
 * the DNS wire are already ASCII labels: the resolver lower-cases those with {@link normalizeName}.
 */
export function normalizeDomain(name: string): string {
  const n = normalizeName(name.trim());
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the ASCII range is the point
  if (!/[^\x00-\x7f]/.test(n)) return n;
  try {
    return normalizeName(new URL(`http://${n}/`).hostname);
  } catch {
    return n;
  }
}

const LABEL = /^(?!-)[a-z0-9_-]{1,63}(?<!-)$/;

/**
 * True for a syntactically valid host or domain name (RFC 1035 §2.3.4 lengths; letters, digits,
 * hyphen, underscore for service labels), at least two labels unless `allowSingleLabel`.
 * A URL (scheme, path, port) is refused: spec-notes §5 "domain or partial domain only".
 */
export function isDomainName(value: string, opts: { allowSingleLabel?: boolean } = {}): boolean {
  const name = normalizeName(value.trim());
  if (name.length === 0 || name.length > 253) return false;
  const labels = name.split('.');
  if (!opts.allowSingleLabel && labels.length < 2) return false;
  return labels.every((l) => LABEL.test(l));
}

/** True when the text looks like a URL rather than a name (has a scheme, path, query or port). */
export function looksLikeUrl(value: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(value) || /[/?#:@]/.test(value);
}

const IPV4_SHAPE = /^\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;

/**
 * True for a valid IPv4 (dotted quad) or IPv6 address, without prefix. Only text of an address's
 * shape reaches ipaddr.js: its parser is slow on the names a feed is mostly made of.
 */
export function isIpAddress(value: string): boolean {
  if (value.includes(':')) return ipaddr.IPv6.isValid(value);
  return IPV4_SHAPE.test(value) && ipaddr.IPv4.isValidFourPartDecimal(value);
}

/**
 * An IP range as claims are checked and stored (docs/security.md "Address claims"): the family, the
 * prefix length, and the first and last address as unsigned integers (32 or 128 bits).
 */
export interface CidrRange {
  readonly family: 4 | 6;
  /** 0–32 for IPv4, 0–128 for IPv6. */
  readonly prefix: number;
  /** The network address (host bits cleared). */
  readonly first: bigint;
  /** The range's last address (host bits set). */
  readonly last: bigint;
}

const PREFIX_TEXT = /^\d{1,3}$/;
/** ::ffff:0:0/96, the IPv4-mapped IPv6 addresses (RFC 4291 §2.5.5.2). */
const MAPPED_FIRST = 0xffffn << 32n;
const MAPPED_LAST = MAPPED_FIRST | 0xffffffffn;

function rangeOf(family: 4 | 6, value: bigint, prefix: number): CidrRange {
  const hostMask = (1n << BigInt((family === 4 ? 32 : 128) - prefix)) - 1n;
  const first = value & ~hostMask;
  return { family, prefix, first, last: first | hostMask };
}

function bytesToBigint(bytes: readonly number[]): bigint {
  let v = 0n;
  for (const b of bytes) v = (v << 8n) | BigInt(b);
  return v;
}

/**
 * Parses an IP address or CIDR range (spec-notes §5 "CIDR-or-IP") into its canonical {@link CidrRange},
 * host bits cleared. THE one canonical form of Cordon (docs/security.md): an IPv4-mapped IPv6 prefix
 * of length ≥ 96 is the IPv4 prefix of length − 96 (`::ffff:127.0.0.1/128` is `127.0.0.1/32`,
 * `::ffff:10.0.0.0/104` is `10.0.0.0/8`); a shorter prefix stays IPv6 (see {@link coversMappedSpace}).
 * A bare address is a host range (/32, /128). IPv4 must be a strict dotted quad; IPv6 zone ids
 * (`%eth0`) are refused.
 * @returns the range, or null for anything else
 */
export function parseCidr(value: string): CidrRange | null {
  const text = value.trim();
  const slash = text.indexOf('/');
  const addrText = slash < 0 ? text : text.slice(0, slash);
  const prefixText = slash < 0 ? undefined : text.slice(slash + 1);
  if (prefixText !== undefined && !PREFIX_TEXT.test(prefixText)) return null;
  let family: 4 | 6;
  let addr: bigint;
  if (addrText.includes(':')) {
    if (addrText.includes('%') || !ipaddr.IPv6.isValid(addrText)) return null;
    family = 6;
    addr = bytesToBigint(ipaddr.IPv6.parse(addrText).toByteArray());
  } else {
    if (!isIpAddress(addrText)) return null;
    family = 4;
    addr = bytesToBigint(ipaddr.IPv4.parse(addrText).toByteArray());
  }
  const width = family === 4 ? 32 : 128;
  let prefix = prefixText === undefined ? width : Number(prefixText);
  if (prefix > width) return null;
  if (family === 6 && prefix >= 96 && addr >> 32n === 0xffffn) {
    family = 4;
    addr &= 0xffffffffn;
    prefix -= 96;
  }
  return rangeOf(family, addr, prefix);
}

function formatAddress(family: 4 | 6, value: bigint): string {
  const n = family === 4 ? 4 : 16;
  const bytes: number[] = [];
  for (let i = n - 1; i >= 0; i--) bytes.push(Number((value >> BigInt(i * 8)) & 0xffn));
  return family === 4 ? bytes.join('.') : ipaddr.fromByteArray(bytes).toString();
}

/** The canonical `network/prefix` text of a range: dotted quad, or RFC 5952 IPv6 (`2001:db8::/32`). */
export function formatCidr(range: CidrRange): string {
  return `${formatAddress(range.family, range.first)}/${range.prefix}`;
}

/**
 * Parses an IP address or CIDR range into canonical `address/prefix` text with the host bits
 * cleared, e.g. `10.1.2.3/8` → `10.0.0.0/8`, `127.0.0.1` → `127.0.0.1/32`, `::1` → `::1/128`,
 * `::ffff:127.0.0.1/128` → `127.0.0.1/32` (see {@link parseCidr}). Used for API validation, storage
 * and the resolver's matching alike, so two texts of one range are always equal.
 * @returns the canonical text, or null for anything else (spec-notes §5 "CIDR-or-IP")
 */
export function normalizeCidr(value: string): string | null {
  const range = parseCidr(value);
  return range ? formatCidr(range) : null;
}

/**
 * A range's first and last address as fixed-width lower-case hex (8 digits for IPv4, 32 for IPv6),
 * so that text order is numeric order and SQL can find overlaps with `start <= end' AND end >= start'`.
 */
export function rangeHex(range: CidrRange): { start: string; end: string } {
  const digits = range.family === 4 ? 8 : 32;
  return { start: range.first.toString(16).padStart(digits, '0'), end: range.last.toString(16).padStart(digits, '0') };
}

/** True when two ranges share at least one address (one contains the other: prefixes nest). */
export function rangesOverlap(a: CidrRange, b: CidrRange): boolean {
  return a.family === b.family && a.first <= b.last && b.first <= a.last;
}

/**
 * True for an IPv6 prefix shorter than /96 that contains all of ::ffff:0:0/96: it would cover every
 * IPv4 source in IPv6 clothing, and has no IPv4 canonical form. Nobody may claim one.
 */
export function coversMappedSpace(range: CidrRange): boolean {
  return range.family === 6 && range.first <= MAPPED_FIRST && range.last >= MAPPED_LAST;
}

/**
 * The canonical text of a source address: an IPv4-mapped IPv6 address (RFC 4291 §2.5.5.2) in any
 * spelling (`::ffff:192.0.2.1`, `::FFFF:c000:201`) becomes its IPv4 dotted quad, as {@link parseCidr}
 * does for ranges; anything else is returned unchanged. Allocation-free for IPv4 text (the
 * resolver calls it per query).
 */
export function canonicalIp(address: string): string {
  if (!address.includes(':')) return address;
  const lower = address.toLowerCase();
  if (!lower.includes('ffff')) return address;
  if (lower.startsWith('::ffff:')) {
    const rest = address.slice(7);
    if (isIpAddress(rest)) return rest;
  }
  if (address.includes('%') || !ipaddr.IPv6.isValid(address)) return address;
  const parsed = ipaddr.IPv6.parse(address);
  return parsed.isIPv4MappedAddress() ? parsed.toIPv4Address().toString() : address;
}

/**
 * What a non-system admin may claim as a location address (docs/security.md; operator settings
 * `--claim-max-prefix-v4`, `--claim-max-prefix-v6`, `--claim-allow-private`, `--claim-allow-special`).
 */
export interface ClaimLimits {
  /** The widest IPv4 prefix length allowed (1–32): /24 allows a /24 and narrower, refuses a /23. */
  readonly maxPrefixV4: number;
  /** The widest IPv6 prefix length allowed (1–128). */
  readonly maxPrefixV6: number;
  /** Allow private ranges: RFC 1918, RFC 6598 shared space, RFC 4193 unique local. */
  readonly allowPrivate: boolean;
  /** Allow special-purpose ranges (loopback, link-local, multicast, unspecified, …): development only. */
  readonly allowSpecial: boolean;
}

/** The defaults of {@link ClaimLimits}: /24 and /48, no private, no special-purpose ranges. */
export const DEFAULT_CLAIM_LIMITS: ClaimLimits = Object.freeze({
  maxPrefixV4: 24,
  maxPrefixV6: 48,
  allowPrivate: false,
  allowSpecial: false,
});

interface SpecialRange {
  readonly range: CidrRange;
  /** Message subject: "Loopback" → "Loopback addresses cannot be claimed". */
  readonly label: string;
  readonly private: boolean;
}

/**
 * Special-purpose ranges a client source can never legitimately come from (RFC 6890 registries),
 * and the private ranges the operator may allow. A more specific entry comes before one that
 * contains it (broadcast before reserved) so the message names the narrower kind.
 */
const SPECIAL_RANGES: readonly SpecialRange[] = (
  [
    ['0.0.0.0/8', 'Unspecified', false], // "this network", RFC 1122 §3.2.1.3
    ['127.0.0.0/8', 'Loopback', false], // RFC 1122 §3.2.1.3
    ['169.254.0.0/16', 'Link-local', false], // RFC 3927
    ['224.0.0.0/4', 'Multicast', false], // RFC 5771
    ['255.255.255.255/32', 'Broadcast', false], // RFC 919, RFC 8190
    ['240.0.0.0/4', 'Reserved', false], // RFC 1112 §4
    ['::/128', 'Unspecified', false], // RFC 4291 §2.5.2
    ['::1/128', 'Loopback', false], // RFC 4291 §2.5.3
    ['fe80::/10', 'Link-local', false], // RFC 4291 §2.5.6
    ['ff00::/8', 'Multicast', false], // RFC 4291 §2.7
    ['10.0.0.0/8', 'Private', true], // RFC 1918
    ['172.16.0.0/12', 'Private', true], // RFC 1918
    ['192.168.0.0/16', 'Private', true], // RFC 1918
    ['100.64.0.0/10', 'Private', true], // RFC 6598 shared address space
    ['fc00::/7', 'Private', true], // RFC 4193 unique local
  ] as const
).map(([cidr, label, isPrivate]) => ({ range: parseCidr(cidr) as CidrRange, label, private: isPrivate }));

/**
 * Why `range` may not be claimed as a location address, or null when it may (docs/security.md).
 * Nobody, system admins included, may claim a /0 or an IPv6 prefix covering ::ffff:0:0/96
 * ({@link coversMappedSpace}). With `limits` (MSP and customer admins; null for a system admin),
 * also refused: prefixes wider than the limit, special-purpose ranges unless `allowSpecial`, and
 * private ranges unless `allowPrivate` — a range is refused when it overlaps one in either
 * direction. The message names the canonical range, e.g. `Loopback addresses cannot be claimed: 127.0.0.1/32.`
 */
export function claimRefusal(range: CidrRange, limits: ClaimLimits | null): string | null {
  const text = formatCidr(range);
  if (range.prefix === 0) return `The whole address space (/0) cannot be claimed: ${text}.`;
  if (coversMappedSpace(range)) {
    return `Addresses covering the IPv4-mapped range ::ffff:0:0/96 cannot be claimed: ${text}. Claim the IPv4 range instead.`;
  }
  if (!limits) return null;
  const max = range.family === 4 ? limits.maxPrefixV4 : limits.maxPrefixV6;
  if (range.prefix < max) return `Addresses wider than /${max} cannot be claimed: ${text}.`;
  for (const special of SPECIAL_RANGES) {
    if (special.private ? limits.allowPrivate : limits.allowSpecial) continue;
    if (rangesOverlap(range, special.range)) return `${special.label} addresses cannot be claimed: ${text}.`;
  }
  return null;
}

/** True for a valid IP address or CIDR range (spec-notes §5). */
export function isIpOrCidr(value: string): boolean {
  return normalizeCidr(value) !== null;
}
