/**
 * The outbound-request guard (docs/security.md "Outbound requests"): every connection Cordon opens
 * on a tenant's behalf (an MSP's SMTP settings, a category feed URL) goes through here. The host is
 * resolved once (node:dns `lookup`, `all: true`); when any of its addresses is refused the request
 * is refused before any connection is made; otherwise the caller connects to the checked address
 * (never a second resolution: no DNS-rebinding window). Whatever goes wrong, the tenant is told one
 * thing, {@link OUTBOUND_FAILURE}; the detail goes to the operator's log only.
 *
 * Refused (RFC 6890 special-purpose registries): loopback, unspecified, link-local (which holds the
 * cloud metadata address 169.254.169.254), multicast, broadcast, reserved, private (RFC 1918,
 * RFC 6598 100.64/10, RFC 4193 fc00::/7 which holds fd00:ec2::254), IPv4-compatible ::/96, the
 * IPv4-mapped forms of all these (RFC 4291 §2.5.5.2), and the addresses of this host's own
 * interfaces (the deployment's listen addresses) — unless an operator-allowed range
 * (`--outbound-allow`, docs/operations.md) contains the address.
 *
 * Node-only (node:dns, node:os): imported as `@cordon/shared/outbound`, never from the package's
 * index (the console imports that).
 */
import { lookup as dnsLookup } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { networkInterfaces } from 'node:os';
import { type CidrRange, canonicalIp, claimRefusal, parseCidr, rangesOverlap } from './net.ts';

/** The one message a tenant sees when an outbound request is refused or fails, whatever the cause. */
export const OUTBOUND_FAILURE = 'The server could not be reached.';

/**
 * An outbound request refused or failed. `message` is always {@link OUTBOUND_FAILURE} (shown to the
 * tenant); `detail` says what happened (logged for the operator only, never shown to a tenant).
 */
export class OutboundError extends Error {
  readonly detail: string;
  constructor(detail: string) {
    super(OUTBOUND_FAILURE);
    this.name = 'OutboundError';
    this.detail = detail;
  }
}

/** One resolved address of a host, as node:dns `lookup` gives it. */
export interface OutboundAddress {
  readonly address: string;
  readonly family: 4 | 6;
}

/** Resolves a host name to all its addresses (node:dns `lookup` with `all: true`; tests inject their own). */
export type OutboundResolver = (host: string) => Promise<readonly OutboundAddress[]>;

/** What the guard allows and how it resolves; every field defaults to the process-wide setting. */
export interface OutboundOptions {
  /** Ranges allowed although special or private (CIDR text); default: {@link setOutboundAllow}'s. */
  readonly allow?: readonly string[];
  /** The resolver; default node:dns `lookup` (the system's resolver, as every other program uses). */
  readonly resolve?: OutboundResolver;
}

/** Where the detail of a refused or failed request goes (the operator's log). */
export type OutboundLogger = (fields: { target: string; detail: string }) => void;

/** Refused although not special-purpose in `@cordon/shared`'s claim table: IPv4-compatible IPv6 (RFC 4291 §2.5.5.1, deprecated). */
const EXTRA_REFUSED: readonly CidrRange[] = [parseCidr('::/96') as CidrRange];

/** The claim limits under which every special-purpose and private range is refused (reused from address claims). */
const STRICT = { maxPrefixV4: 32, maxPrefixV6: 128, allowPrivate: false, allowSpecial: false } as const;

let processAllow: readonly CidrRange[] = [];
let processLog: OutboundLogger = (fields) => {
  process.emitWarning(`outbound request to ${fields.target} refused or failed: ${fields.detail}`, 'CordonOutbound');
};

/**
 * Parses an operator's allow list (`--outbound-allow`, comma-separated CIDR ranges or addresses).
 * @throws Error naming the first entry that is not an address or range
 */
export function parseOutboundAllow(text: string | readonly string[]): CidrRange[] {
  const items = typeof text === 'string' ? text.split(',') : [...text];
  const out: CidrRange[] = [];
  for (const item of items.map((s) => s.trim()).filter((s) => s !== '')) {
    const range = parseCidr(item);
    if (!range) throw new Error(`Not an IP address or CIDR range: ${item}`);
    out.push(range);
  }
  return out;
}

/**
 * Sets the process-wide allow list (`cordon serve --outbound-allow`, docs/operations.md) and,
 * optionally, where refusal details are logged. Empty by default: nothing internal is reachable.
 * @throws Error for an entry that is not an address or range
 */
export function setOutboundAllow(allow: string | readonly string[], log?: OutboundLogger): void {
  processAllow = parseOutboundAllow(allow);
  if (log) processLog = log;
}

/** Logs the detail of a refused or failed request for the operator (never for the tenant). */
export function logOutboundFailure(target: string, detail: string): void {
  processLog({ target, detail });
}

/** The addresses of this host's interfaces: the deployment's own listen addresses. */
function ownAddresses(): CidrRange[] {
  const out: CidrRange[] = [];
  for (const list of Object.values(networkInterfaces())) {
    for (const info of list ?? []) {
      const range = parseCidr(info.address.split('%')[0] as string);
      if (range) out.push(range);
    }
  }
  return out;
}

/**
 * Why the guard refuses to connect to `address` (an IP address, any spelling), or null when it may.
 * An allowed range (`options.allow`, else the process-wide list) wins over every refusal.
 */
export function outboundRefusal(address: string, options: Pick<OutboundOptions, 'allow'> = {}): string | null {
  const range = parseCidr(canonicalIp(address.replace(/^\[|\]$/g, '')));
  if (!range || address.includes('/')) return `not an IP address: ${address}`;
  const allow = options.allow ? parseOutboundAllow(options.allow) : processAllow;
  if (allow.some((a) => rangesOverlap(a, range))) return null;
  const claim = claimRefusal(range, STRICT);
  if (claim !== null) return claim.replace('cannot be claimed', 'are refused');
  if (EXTRA_REFUSED.some((r) => rangesOverlap(r, range))) return `IPv4-compatible addresses are refused: ${address}.`;
  if (ownAddresses().some((r) => rangesOverlap(r, range))) return `This host's own addresses are refused: ${address}.`;
  return null;
}

const systemResolve: OutboundResolver = (host) =>
  new Promise((resolve, reject) => {
    dnsLookup(host, { all: true, verbatim: true }, (err, addresses) => {
      if (err) reject(err);
      else resolve(addresses.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 })));
    });
  });

/**
 * Resolves `host` (a name or an IP literal, `[::1]` included) and checks every address it has: one
 * refused address refuses the host (a name must not smuggle an internal address among public ones).
 * @returns the first address, to connect to as is
 * @throws OutboundError (message {@link OUTBOUND_FAILURE}) when resolution fails or an address is refused
 */
export async function resolveOutbound(host: string, options: OutboundOptions = {}): Promise<OutboundAddress> {
  const name = host.replace(/^\[|\]$/g, '');
  let addresses: readonly OutboundAddress[];
  try {
    addresses = await (options.resolve ?? systemResolve)(name);
  } catch (e) {
    throw new OutboundError(`${name} did not resolve: ${(e as Error).message}`);
  }
  if (addresses.length === 0) throw new OutboundError(`${name} has no address`);
  for (const a of addresses) {
    const why = outboundRefusal(a.address, options);
    if (why !== null) throw new OutboundError(`${name} resolves to ${a.address}: ${why}`);
  }
  return addresses[0] as OutboundAddress;
}

/**
 * A `lookup` for node:net / node:http(s) that answers only `checked` (the address
 * {@link resolveOutbound} approved), so the socket connects to it without resolving again.
 */
export function pinnedLookup(checked: OutboundAddress): LookupFunction {
  return ((_host: string, opts: { all?: boolean }, cb: (...args: unknown[]) => void) => {
    if (opts?.all) cb(null, [{ address: checked.address, family: checked.family }]);
    else cb(null, checked.address, checked.family);
  }) as unknown as LookupFunction;
}
