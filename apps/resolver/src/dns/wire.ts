/**
 * Wire-level DNS helpers for the hot path (RFC 1035 §4.1): reading names and questions straight
 * from a message buffer, without building dns-packet objects.
 */

/** Longest wire name, bytes (RFC 1035 §2.3.4), as dns-packet counts it (label bytes + length bytes ≤ 254). */
const MAX_NAME_TEXT = 254;

/**
 * Offset just past the name starting at `off` (a pointer ends the name: RFC 1035 §4.1.4), or -1
 * when the name runs past the buffer, uses a reserved label type (0x40/0x80) or is too long.
 * Does not follow pointers, so it cannot loop.
 */
export function skipName(buf: Buffer, off: number): number {
  let total = 0;
  for (;;) {
    if (off >= buf.length) return -1;
    const len = buf[off]!;
    if (len === 0) return off + 1;
    if ((len & 0xc0) === 0xc0) return off + 2 <= buf.length ? off + 2 : -1;
    if ((len & 0xc0) !== 0) return -1;
    total += len + 1;
    if (total > MAX_NAME_TEXT || off + 1 + len > buf.length) return -1;
    off += len + 1;
  }
}

/**
 * End offset of the (first) question of a message — qname, qtype, qclass (RFC 1035 §4.1.2) —
 * or -1 when it does not fit in the buffer.
 */
export function questionEnd(buf: Buffer): number {
  if (buf.length < 12) return -1;
  const end = skipName(buf, 12);
  return end < 0 || end + 4 > buf.length ? -1 : end + 4;
}

/**
 * True when `buf[aOff, aOff+len)` equals `other[bOff, bOff+len)` ignoring ASCII case. Used to
 * compare wire questions: length octets are < 64, so folding A–Z never changes one.
 */
export function equalsIgnoreCase(buf: Buffer, aOff: number, other: Buffer, bOff: number, len: number): boolean {
  if (aOff + len > buf.length || bOff + len > other.length) return false;
  for (let i = 0; i < len; i++) {
    let a = buf[aOff + i]!;
    let b = other[bOff + i]!;
    if (a === b) continue;
    if (a >= 0x41 && a <= 0x5a) a |= 0x20;
    if (b >= 0x41 && b <= 0x5a) b |= 0x20;
    if (a !== b) return false;
  }
  return true;
}
