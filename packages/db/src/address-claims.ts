import { formatCidr, parseCidr, rangeHex } from '@cordon/shared';

/** The stored form of one location address (docs/security.md "Address claims"; migration 0002). */
export interface AddressClaimColumns {
  /** Canonical `network/prefix` text (`normalizeCidr` of `@cordon/shared`). */
  ip: string;
  /** 4 or 6. */
  family: number;
  /** First and last address as fixed-width lower-case hex (8 digits IPv4, 32 IPv6): text order is numeric order. */
  range_start: string;
  range_end: string;
}

/**
 * The `location_addresses` columns of an address or CIDR range, in canonical form. Every writer of
 * that table uses it, so the overlap check (`family = f AND range_start <= end AND range_end >= start`)
 * sees every claim.
 * @throws Error when `cidr` is not an IP address or CIDR range (callers validate first)
 */
export function addressClaimColumns(cidr: string): AddressClaimColumns {
  const range = parseCidr(cidr);
  if (!range) throw new Error(`not an IP address or CIDR range: ${cidr}`);
  const { start, end } = rangeHex(range);
  return { ip: formatCidr(range), family: range.family, range_start: start, range_end: end };
}
