import ipaddr from 'ipaddr.js';
import { parse as parseDomain } from 'tldts';

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

const LABEL = /^(?!-)[a-z0-9_-]{1,63}(?<!-)$/;

/**
 * True for a syntactically valid host or domain name (RFC 1035 §2.3.4 lengths; letters, digits,
 * hyphen, underscore for service labels), at least two labels unless `allowSingleLabel`.
 * A URL (scheme, path, port) is refused: spec §5 "domain or partial domain only".
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

/** The registrable domain of a name (e.g. `www.example.co.uk` → `example.co.uk`), or null. */
export function registrableDomain(name: string): string | null {
  return parseDomain(name).domain ?? null;
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
 * Parses an IP address or CIDR range into canonical `address/prefix` form with the host bits
 * cleared, e.g. `10.1.2.3/8` → `10.0.0.0/8`, `127.0.0.1` → `127.0.0.1/32`, `::1` → `::1/128`.
 * IPv4-mapped IPv6 addresses become IPv4. Returns null for anything else (spec §5 "CIDR-or-IP").
 */
export function normalizeCidr(value: string): string | null {
  const text = value.trim();
  try {
    if (text.includes('/')) {
      if (!ipaddr.isValidCIDR(text)) return null;
      const [addr, prefix] = ipaddr.parseCIDR(text);
      if (addr.kind() === 'ipv4' && !ipaddr.IPv4.isValidFourPartDecimal(text.split('/')[0] ?? '')) return null;
      const bytes = addr.toByteArray();
      const bits = bytes.length * 8;
      for (let i = prefix; i < bits; i++) {
        const byte = i >> 3;
        bytes[byte] = (bytes[byte] ?? 0) & ~(0x80 >> (i & 7));
      }
      const network = ipaddr.fromByteArray(bytes);
      return `${network.toString()}/${prefix}`;
    }
    if (!isIpAddress(text)) return null;
    const addr = ipaddr.process(text);
    return `${addr.toString()}/${addr.kind() === 'ipv4' ? 32 : 128}`;
  } catch {
    return null;
  }
}

/** True for a valid IP address or CIDR range (spec §5). */
export function isIpOrCidr(value: string): boolean {
  return normalizeCidr(value) !== null;
}
