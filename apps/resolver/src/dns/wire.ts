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

/** EDNS(0) facts of a query's OPT pseudo-record (RFC 6891 §6.1.2–6.1.3). */
export interface WireEdns {
  /** Requestor's UDP payload size, bytes, raised to 512 when smaller (RFC 6891 §6.2.5). */
  readonly udpSize: number;
  /** The DO bit (RFC 3225 §3). */
  readonly dnssecOk: boolean;
  /**
   * Cordon's device key, EDNS(0) option {@link EDNS_DEVICE_KEY} (docs/agent.md "Wire format"), or
   * null when absent or not a well-formed key.
   */
  readonly deviceKey: string | null;
  /** The OS user the agent reports, EDNS(0) option {@link EDNS_USER}, or null when absent or malformed. */
  readonly user: string | null;
}

/** EDNS(0) option code of the device key (a local/experimental code, RFC 6891 §9: 65001–65534). */
export const EDNS_DEVICE_KEY = 65073;
/** EDNS(0) option code of the OS user name the agent sends beside the device key (docs/agent.md). */
export const EDNS_USER = 65074;
/** Longest device key accepted, bytes. */
export const MAX_DEVICE_KEY = 128;
/** Longest user name accepted, bytes of UTF-8. */
export const MAX_USER_NAME = 128;

/** A query read at wire level by {@link parseQuery}. */
export interface WireQuery {
  /** Header id (RFC 1035 §4.1.1). */
  readonly id: number;
  /** The 16-bit header flags word as received (QR, opcode, AA, TC, RD, RA, Z, AD, CD, RCODE). */
  readonly flags: number;
  /** qname as sent, decoded like dns-packet does (labels as UTF-8 joined by `.`; the root is `.`). */
  readonly name: string;
  /**
   * `name` with ASCII capitals lowered (`toLowerCase` when the wire name holds a byte A–Z; else
   * `name` itself): wire-level labels need no other normalisation (no trailing dot, no IDNA).
   */
  readonly qname: string;
  /** qtype number (RFC 1035 §3.2.2). */
  readonly qtype: number;
  /** qclass number (RFC 1035 §3.2.4; 1 = IN). */
  readonly qclass: number;
  /** Offset just past the question (12 + qname bytes + 4): `raw[12, questionEnd)` is the wire question. */
  readonly questionEnd: number;
  /** The OPT record's facts, or null without EDNS(0). */
  readonly edns: WireEdns | null;
  /**
   * True when the qname's text does not fix its wire form: a label holds a `.` or a byte ≥ 0x80
   * (RFC 2181 §11 allows any octet). Such a question never shares a cached answer, whose
   * compression pointers assume the layout of a plain name (cache/compiled-answer.ts).
   */
  readonly irregularName: boolean;
}

/**
 * What {@link parseQuery} made of a message: a usable query, or what to do instead —
 * `drop` (shorter than a DNS header, or a response: QR=1), `formerr` (RFC 1035 §4.1.1 format
 * error), `notimp` (an opcode other than QUERY, RFC 1035 §4.1.1), `badvers` (a well-formed query
 * whose OPT record asks for an EDNS VERSION other than 0, RFC 6891 §6.1.3; `query` is complete,
 * so the BADVERS answer can echo the question).
 */
export type WireParse =
  | { readonly kind: 'ok'; readonly query: WireQuery }
  | { readonly kind: 'badvers'; readonly query: WireQuery }
  | { readonly kind: 'drop' }
  | { readonly kind: 'formerr' }
  | { readonly kind: 'notimp' };

const DROP: WireParse = Object.freeze({ kind: 'drop' });
const FORMERR: WireParse = Object.freeze({ kind: 'formerr' });
const NOTIMP: WireParse = Object.freeze({ kind: 'notimp' });
const nameScratch = Buffer.allocUnsafe(256);

/**
 * The big-endian 16-bit word at `off`, which the caller has bounds-checked: `Buffer#readUInt16BE`
 * without its argument validation (a measurable share of a query's parse).
 */
function u16(raw: Uint8Array, off: number): number {
  return ((raw[off] as number) << 8) | (raw[off + 1] as number);
}

/**
 * Reads a DNS query without building objects per section (RFC 1035 §4.1, RFC 6891 §6.1): the
 * header, the one question (qname text, qtype, qclass) and the EDNS(0) OPT of the additional
 * section; every other record is only bounds-checked and skipped.
 *
 * Messages shorter than the 12-byte header and responses (QR=1) are `drop`: there is nothing
 * to answer, and answering them would let a spoofed source turn Cordon into a reflector or loop
 * two servers (docs/operations.md "Hostile clients").
 *
 * Checked like dns-packet's decoder (the oracle of the unit tests): names within the buffer, at
 * most 254 bytes of labels, no reserved label types; records within the buffer; trailing bytes
 * are ignored. Then: opcode ≠ QUERY → `notimp`; QDCOUNT ≠ 1 → `formerr`; an OPT with EDNS
 * VERSION ≠ 0 → `badvers`; two OPT records, or one outside the additional section → `formerr`
 * (RFC 6891 §6.1.1). Stricter than dns-packet on purpose: a compression pointer inside the
 * query's qname and OPT options that overrun their RDATA are `formerr` (no real client sends
 * either, and the question is echoed byte for byte).
 */
export function parseQuery(raw: Buffer): WireParse {
  const len = raw.length;
  if (len < 12 || (raw[2]! & 0x80) !== 0) return DROP;
  const flags = u16(raw, 2);
  const qdcount = u16(raw, 4);
  const rrcount = u16(raw, 6) + u16(raw, 8);
  const arcount = u16(raw, 10);

  // The first question, read label by label (no pointers allowed here).
  let off = 12;
  let name = '.';
  let upper = false;
  let dotted = false;
  let ascii = true;
  let questionEnd = -1;
  let qtype = 0;
  let qclass = 0;
  if (qdcount > 0) {
    let total = 0;
    let w = 0;
    for (;;) {
      if (off >= len) return FORMERR;
      const l = raw[off]!;
      if (l === 0) {
        off++;
        break;
      }
      if ((l & 0xc0) !== 0) return FORMERR;
      total += l + 1;
      if (total > MAX_NAME_TEXT || off + 1 + l > len) return FORMERR;
      if (w > 0) nameScratch[w++] = 0x2e;
      for (let i = off + 1; i <= off + l; i++) {
        const c = raw[i]!;
        if (c >= 0x80) ascii = false;
        else if (c >= 0x41 && c <= 0x5a) upper = true;
        else if (c === 0x2e) dotted = true;
        nameScratch[w++] = c;
      }
      off += l + 1;
    }
    if (w > 0) name = ascii ? nameScratch.toString('latin1', 0, w) : utf8Labels(raw, 12);
    if (off + 4 > len) return FORMERR;
    qtype = u16(raw, off);
    qclass = u16(raw, off + 2);
    off += 4;
    questionEnd = off;
    for (let q = 1; q < qdcount; q++) {
      off = skipName(raw, off);
      if (off < 0 || off + 4 > len) return FORMERR;
      off += 4;
    }
  }

  // Answer and authority records: bounds only. Additional: also find the first OPT.
  let edns: WireEdns | null = null;
  let ednsVersion = 0;
  for (let r = 0; r < rrcount + arcount; r++) {
    off = skipName(raw, off);
    if (off < 0 || off + 10 > len) return FORMERR;
    const type = u16(raw, off);
    const rdlen = u16(raw, off + 8);
    const rdata = off + 10;
    if (rdata + rdlen > len) return FORMERR;
    if (type === 41) {
      // One OPT at most, in the additional section only (RFC 6891 §6.1.1).
      if (r < rrcount || edns !== null || !optionsFit(raw, rdata, rdata + rdlen)) return FORMERR;
      const size = u16(raw, off + 2);
      edns = {
        udpSize: size < 512 ? 512 : size,
        dnssecOk: (raw[off + 6]! & 0x80) !== 0,
        deviceKey: rdlen === 0 ? null : readKeyOption(raw, rdata, rdata + rdlen),
        user: rdlen === 0 ? null : readUserOption(raw, rdata, rdata + rdlen),
      };
      // The TTL field: extended RCODE, VERSION, then the DO bit (RFC 6891 §6.1.3).
      ednsVersion = raw[off + 5]!;
    }
    off = rdata + rdlen;
  }

  if (((flags >> 11) & 0xf) !== 0) return NOTIMP;
  if (qdcount !== 1) return FORMERR;
  const qname = upper ? name.toLowerCase() : name;
  const irregularName = dotted || !ascii;
  const query: WireQuery = { id: u16(raw, 0), flags, name, qname, qtype, qclass, questionEnd, edns, irregularName };
  return ednsVersion === 0 ? { kind: 'ok', query } : { kind: 'badvers', query };
}

/** The slow path for non-ASCII qnames: each label decoded as UTF-8 on its own, as dns-packet does. */
function utf8Labels(raw: Buffer, off: number): string {
  const labels: string[] = [];
  for (let l = raw[off]!; l !== 0; l = raw[off]!) {
    labels.push(raw.toString('utf8', off + 1, off + 1 + l));
    off += l + 1;
  }
  return labels.join('.');
}

/** True when the EDNS(0) options in `[from, to)` are whole `{code, length, data}` TLVs (RFC 6891 §6.1.2). */
function optionsFit(raw: Buffer, from: number, to: number): boolean {
  let off = from;
  while (off < to) {
    if (off + 4 > to) return false;
    off += 4 + u16(raw, off + 2);
  }
  return off === to;
}

/**
 * The device key of option {@link EDNS_DEVICE_KEY} in the options `[from, to)` (already checked by
 * {@link optionsFit}): 1–{@link MAX_DEVICE_KEY} bytes of `A–Z a–z 0–9 - _`, else null (an
 * ill-formed key identifies nothing; the query falls back to its source address).
 */
function readKeyOption(raw: Buffer, from: number, to: number): string | null {
  const at = findOption(raw, from, to, EDNS_DEVICE_KEY);
  if (at < 0) return null;
  const len = u16(raw, at + 2);
  if (len === 0 || len > MAX_DEVICE_KEY) return null;
  for (let i = at + 4; i < at + 4 + len; i++) {
    const c = raw[i]!;
    const ok = (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 45 || c === 95;
    if (!ok) return null;
  }
  return raw.toString('latin1', at + 4, at + 4 + len);
}

/** The user name of option {@link EDNS_USER}: 1–{@link MAX_USER_NAME} bytes of UTF-8 without control characters, else null. */
function readUserOption(raw: Buffer, from: number, to: number): string | null {
  const at = findOption(raw, from, to, EDNS_USER);
  if (at < 0) return null;
  const len = u16(raw, at + 2);
  if (len === 0 || len > MAX_USER_NAME) return null;
  const name = raw.toString('utf8', at + 4, at + 4 + len);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (name.includes('\uFFFD') || /[\u0000-\u001f\u007f]/.test(name)) return null;
  return name;
}

/** Offset of the first option `code` in `[from, to)`, or -1. */
function findOption(raw: Buffer, from: number, to: number, code: number): number {
  let off = from;
  while (off + 4 <= to) {
    if (u16(raw, off) === code) return off;
    off += 4 + u16(raw, off + 2);
  }
  return -1;
}
