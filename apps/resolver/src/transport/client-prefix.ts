/**
 * Client addresses as the transports' limits group them (docs/operations.md "Hostile clients"):
 * response-rate limiting by IPv4 /24 and IPv6 /56, TCP connection caps by IPv4 address and IPv6
 * /64. The addresses come from the kernel (`rinfo.address`, `socket.remoteAddress`), already
 * unwrapped from IPv4-mapped IPv6; parsing is allocation-free, for the UDP hot path.
 */

/** Scratch for {@link parseIpv6}: the eight 16-bit groups of the last parsed address. */
const groups = new Uint16Array(8);

/**
 * The first three octets of a dotted-quad IPv4 address as one number (`a << 16 | b << 8 | c`,
 * the /24 prefix), or -1 when `text` is not a dotted quad.
 */
export function ipv4Prefix24(text: string): number {
  let value = 0;
  let octet = 0;
  let digits = 0;
  let dots = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 46 /* . */) {
      if (digits === 0 || dots === 3) return -1;
      if (dots < 3) value = (value << 8) | octet;
      dots++;
      octet = 0;
      digits = 0;
    } else if (c >= 48 && c <= 57 && digits < 3) {
      octet = octet * 10 + (c - 48);
      digits++;
      if (octet > 255) return -1;
    } else {
      return -1;
    }
  }
  return dots === 3 && digits > 0 ? value : -1;
}

/**
 * Parses an IPv6 address in any RFC 4291 §2.2 text form (`::` compression, an embedded dotted
 * IPv4 tail, a `%zone` suffix ignored) into `out`, eight 16-bit groups.
 * @returns false (leaving `out` partly written) when `text` is not an IPv6 address
 */
export function parseIpv6(text: string, out: Uint16Array = groups): boolean {
  let end = text.indexOf('%');
  if (end < 0) end = text.length;
  let n = 0;
  let gap = -1;
  let i = 0;
  if (end >= 2 && text.charCodeAt(0) === 58 && text.charCodeAt(1) === 58) {
    gap = 0;
    i = 2;
  }
  while (i < end) {
    const start = i;
    let value = 0;
    while (i < end) {
      const c = text.charCodeAt(i);
      const v = c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : c >= 65 && c <= 70 ? c - 55 : -1;
      if (v < 0) break;
      value = value * 16 + v;
      i++;
    }
    if (i < end && text.charCodeAt(i) === 46 /* . */) {
      // Embedded IPv4 (RFC 4291 §2.2 form 3): the last two groups.
      const v4 = parseIpv4(text, start, end);
      if (v4 < 0 || n > 6) return false;
      out[n++] = v4 >>> 16;
      out[n++] = v4 & 0xffff;
      i = end;
      break;
    }
    if (i === start || i - start > 4 || n === 8) return false;
    out[n++] = value;
    if (i === end) break;
    if (text.charCodeAt(i) !== 58 /* : */) return false;
    i++;
    if (i < end && text.charCodeAt(i) === 58) {
      if (gap >= 0) return false;
      gap = n;
      i++;
    } else if (i === end) {
      return false;
    }
  }
  if (gap < 0) return n === 8;
  if (n > 7) return false;
  const tail = n - gap;
  for (let k = tail - 1; k >= 0; k--) out[8 - tail + k] = out[gap + k]!;
  for (let k = gap; k < 8 - tail; k++) out[k] = 0;
  return true;
}

/** A dotted quad inside `text[from, to)` as an unsigned 32-bit number, or -1. */
function parseIpv4(text: string, from: number, to: number): number {
  let value = 0;
  let octet = 0;
  let digits = 0;
  let dots = 0;
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c === 46) {
      if (digits === 0 || dots === 3) return -1;
      value = value * 256 + octet;
      dots++;
      octet = 0;
      digits = 0;
    } else if (c >= 48 && c <= 57 && digits < 3) {
      octet = octet * 10 + (c - 48);
      digits++;
      if (octet > 255) return -1;
    } else {
      return -1;
    }
  }
  return dots === 3 && digits > 0 ? value * 256 + octet : -1;
}

/**
 * The key TCP connection caps count by (RFC 7766 §6.2.2 leaves the grouping to the server): the
 * IPv4 address itself, or the IPv6 /64 (one host usually owns a whole /64). Unparseable text is
 * its own key.
 */
export function connectionSourceKey(address: string): string {
  if (address.includes(':') && parseIpv6(address)) {
    return `${groups[0]!.toString(16)}:${groups[1]!.toString(16)}:${groups[2]!.toString(16)}:${groups[3]!.toString(16)}::/64`;
  }
  return address;
}

/**
 * Writes the response-rate-limiting prefix of `address` into `key` (three numbers): `[1, /24, 0]`
 * for IPv4, `[2, first 32 bits, next 24 bits]` for IPv6 /56.
 * @returns false when `address` is neither an IPv4 nor an IPv6 literal
 */
export function rrlPrefix(address: string, key: Uint32Array): boolean {
  const v4 = ipv4Prefix24(address);
  if (v4 >= 0) {
    key[0] = 1;
    key[1] = v4;
    key[2] = 0;
    return true;
  }
  if (!parseIpv6(address)) return false;
  key[0] = 2;
  key[1] = ((groups[0]! << 16) | groups[1]!) >>> 0;
  key[2] = (groups[2]! << 8) | (groups[3]! >>> 8);
  return true;
}
