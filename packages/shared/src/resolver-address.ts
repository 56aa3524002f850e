/**
 * Resolver addresses of static routes (docs/decisions.md "Static routes"): parsing, the one text
 * form and the ranges refused. No zod here: the resolver imports this module, and a module of
 * `schemas/` would make every resolver process evaluate zod (bench/README.md "Resolver memory",
 * round 7). The body schemas are in schemas/static-route.ts.
 */
import ipaddr from 'ipaddr.js';
import { canonicalIp, isIpAddress } from './net.ts';

/** The DNS port (RFC 1035 §4.2): a resolver address without a port means this one. */
export const DNS_PORT = 53;

/** Field message for a resolver address that does not parse. */
export const resolverAddressMessage =
  'Must be a valid IP address, optionally with a port (10.0.0.53:53, [fd00::53]:53).';

/** A parsed resolver address: the canonical IP (`canonicalIp`) and the port (1–65535). */
export interface ResolverAddress {
  readonly ip: string;
  readonly port: number;
}

const PORT = /^\d{1,5}$/;

function portOf(text: string | undefined): number | null {
  if (text === undefined) return DNS_PORT;
  if (!PORT.test(text)) return null;
  const port = Number(text);
  return port >= 1 && port <= 65535 ? port : null;
}

function ipOf(text: string): string | null {
  if (!isIpAddress(text) || text.includes('%')) return null;
  const ip = canonicalIp(text);
  return ip.includes(':') ? ipaddr.IPv6.parse(ip).toString() : ip;
}

/**
 * Parses a static route's resolver as typed by a person: `IPv4`, `IPv4:port`, `IPv6`, `[IPv6]` or
 * `[IPv6]:port` (RFC 3986 §3.2.2 brackets), port 1–65535, default 53. The IP is canonical: an
 * IPv4-mapped IPv6 address becomes its IPv4 address, IPv6 is compressed lower case (RFC 5952).
 * @returns null for anything else (a name, a zone id, a port out of range, a CIDR)
 */
export function parseResolverAddress(value: string): ResolverAddress | null {
  const text = value.trim();
  let host: string;
  let port: string | undefined;
  if (text.startsWith('[')) {
    const end = text.indexOf(']');
    if (end < 0) return null;
    host = text.slice(1, end);
    const rest = text.slice(end + 1);
    if (rest !== '' && !rest.startsWith(':')) return null;
    port = rest === '' ? undefined : rest.slice(1);
    if (!host.includes(':')) return null;
  } else if (text.includes(':') && text.indexOf(':') === text.lastIndexOf(':')) {
    [host, port] = text.split(':') as [string, string];
  } else {
    host = text;
  }
  const ip = ipOf(host);
  const p = portOf(port);
  return ip === null || p === null ? null : { ip, port: p };
}

/**
 * The one text form of a resolver address, on the wire and in the resolver's decisions:
 * `ip:port` for IPv4, `[ip]:port` for IPv6 (RFC 3986 §3.2.2), the port always written.
 */
export function formatResolverAddress(address: ResolverAddress): string {
  return address.ip.includes(':') ? `[${address.ip}]:${address.port}` : `${address.ip}:${address.port}`;
}

/** ipaddr.js range names a resolver address may not be in, whoever asks: nothing answers DNS there. */
const NEVER = new Set(['unspecified', 'broadcast', 'multicast']);
/**
 * Range names only a system admin (or a deployment with `--claim-allow-special`) may route to: they
 * reach the resolver host itself or its link (loopback services, cloud metadata on link-local).
 */
const SPECIAL = new Set(['loopback', 'linkLocal', 'reserved']);

/**
 * Why `ip` (canonical) may not be a static route's resolver, or null when it may
 * (docs/decisions.md "Static routes"). Private ranges (RFC 1918, RFC 4193, RFC 6598) are fine: a
 * route to an internal DNS server is the normal use. Unspecified, broadcast and multicast are
 * refused for everyone; loopback, link-local and reserved ranges unless `allowSpecial`.
 */
export function resolverAddressRefusal(ip: string, allowSpecial: boolean): string | null {
  const range = ipaddr.parse(ip).range();
  if (NEVER.has(range) || (!allowSpecial && SPECIAL.has(range))) {
    const label = range === 'linkLocal' ? 'Link-local' : `${range[0]!.toUpperCase()}${range.slice(1)}`;
    return `${label} addresses cannot be used as a resolver: ${ip}.`;
  }
  return null;
}
