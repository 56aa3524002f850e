import { allocResponse, Flag, put16, put32 } from '../dns/message.ts';
import type { DnsRequest } from '../dns/request.ts';

/**
 * An upstream answer turned into wire bytes that follow any client's copy of the same question
 * (docs/architecture.md "Data plane": the cache "answers from cache by rewriting the id"): the
 * answer, authority and additional records (the upstream's OPT dropped) back to back, compressed
 * for the offset they are rendered at.
 *
 * Compression (RFC 1035 §4.1.4): owner names, and the RDATA names of the types RFC 3597 §4 allows
 * (NS, CNAME, SOA, PTR, MX, MINFO and the obsolete MB/MD/MF/MG/MR), point to the question at
 * offset 12 or to an earlier name of the body; every other name (SRV, DNAME, RRSIG, NSEC,
 * HTTPS/SVCB targets… RFC 2782, RFC 6672 §2.5, RFC 4034 §3.1.7, RFC 9460 §2.2) is written in full,
 * any compression the upstream used undone. Pointers are absolute offsets, so the body is valid for
 * exactly one question layout: every asker of one cache key has it (a lower-case ASCII qname fixes
 * its wire length and label boundaries), and a question whose text does not fix its layout (a
 * label holding `.` or a byte ≥ 0x80: {@link DnsRequest.irregularName}) never shares a cached
 * answer (pipeline/cache.ts).
 *
 * Compact on purpose, since the cache keeps up to 100,000 of them (bench/README.md "Answer cache
 * memory"): one object and one flat Latin-1 string (a byte per character) holding the body's bytes
 * followed by each record's TTL offset in it (two characters, big-endian) — no `Buffer` or typed
 * array per entry, whose object headers cost more than the few dozen bytes they hold.
 */
export interface CompiledAnswer {
  /** RCODE of the upstream answer (RFC 1035 §4.1.1). */
  readonly rcode: number;
  /** Header bits kept from the upstream: AD only (AA is not ours to claim); shown per RFC 6840 §5.8 by {@link renderAnswer}. */
  readonly flags: number;
  readonly ancount: number;
  readonly nscount: number;
  /** Additional records, not counting the OPT each response gets. */
  readonly arcount: number;
  /**
   * `bodyLength` characters of records (each character one byte, TTLs as received), then for each
   * record in order (all sections) the offset of its 32-bit TTL in the body: two characters, high
   * byte first.
   */
  readonly bytes: string;
  readonly bodyLength: number;
  /**
   * How long the answer may be cached, seconds (RFC 2181 §5.2, RFC 2308 §5): the smallest TTL of
   * the answer and authority records of a positive answer; min(SOA TTL, SOA MINIMUM) of the
   * authority SOA for NXDOMAIN/NODATA; 0 (do not cache) without such an SOA, for RCODEs other
   * than NOERROR and NXDOMAIN, or with TTL 0.
   */
  readonly cacheTtl: number;
  /**
   * The names the answer section points the client to besides the qname (docs/architecture.md
   * "Answer check"): every owner and target of its CNAME and DNAME records and the target names of
   * its HTTPS/SVCB records (RFC 9460 §2.5; `.` excluded), lower case, no trailing dot, in order,
   * each once; null when there is none (the common case: nothing to check).
   */
  readonly aliases: readonly string[] | null;
  /** The upstream's Extended DNS Error options (RFC 8914 §2, code 15), as option TLVs to relay; null when none. */
  readonly ede: Buffer | null;
}

/** Thrown by {@link compileAnswer} for a message whose records do not parse. */
export class MalformedAnswerError extends Error {}

/** EDNS(0) option code of an Extended DNS Error (RFC 8914 §2). */
export const EDE_OPTION = 15;

/** RDATA layouts: a fixed number of bytes, a name to compress (`c`), a name written in full (`f`), a character-string (`s`), the rest as is (`r`). */
type Field = number | 'c' | 'f' | 's' | 'r';

/**
 * The RDATA of the types holding names (RFC 1035 §3.3, RFC 3597 §4 and the RFCs of each type);
 * other types are copied as received.
 */
const LAYOUTS: ReadonlyMap<number, readonly Field[]> = new Map<number, readonly Field[]>([
  [2, ['c']], // NS
  [3, ['c']], // MD
  [4, ['c']], // MF
  [5, ['c']], // CNAME
  [6, ['c', 'c', 20]], // SOA
  [7, ['c']], // MB
  [8, ['c']], // MG
  [9, ['c']], // MR
  [12, ['c']], // PTR
  [14, ['c', 'c']], // MINFO
  [15, [2, 'c']], // MX
  [17, ['f', 'f']], // RP (RFC 3597 §4: decompressed, never compressed)
  [18, [2, 'f']], // AFSDB
  [21, [2, 'f']], // RT
  [24, [18, 'f', 'r']], // SIG
  [26, [2, 'f', 'f']], // PX
  [30, ['f', 'r']], // NXT
  [33, [6, 'f']], // SRV (RFC 2782)
  [35, [4, 's', 's', 's', 'f']], // NAPTR (RFC 3403 §4.1)
  [36, [2, 'f']], // KX
  [39, ['f']], // DNAME (RFC 6672 §2.5)
  [46, [18, 'f', 'r']], // RRSIG (RFC 4034 §3.1.7)
  [47, ['f', 'r']], // NSEC (RFC 4034 §4.1.1)
  [64, [2, 'f', 'r']], // SVCB (RFC 9460 §2.2)
  [65, [2, 'f', 'r']], // HTTPS
]);

/** Names may be pointed to only below this offset (14-bit pointers, RFC 1035 §4.1.4). */
const POINTER_LIMIT = 0x4000;

/** One name read from a message: its labels (Latin-1 strings, byte for byte) and the offset past it where it was read. */
interface ReadName {
  readonly labels: string[];
  readonly end: number;
}

/**
 * Reads the (possibly compressed) name at `off` of `msg` (RFC 1035 §4.1.4).
 * @throws MalformedAnswerError when it runs past `limit`, loops, or exceeds 255 bytes
 */
function readName(msg: Buffer, off: number, limit: number): ReadName {
  const labels: string[] = [];
  let end = -1;
  let total = 1;
  let jumps = 0;
  for (;;) {
    if (off >= limit) throw new MalformedAnswerError('name runs past its record');
    const len = msg[off]!;
    if (len === 0) {
      if (end < 0) end = off + 1;
      return { labels, end };
    }
    if ((len & 0xc0) === 0xc0) {
      if (off + 2 > limit) throw new MalformedAnswerError('truncated pointer');
      if (end < 0) end = off + 2;
      if (++jumps > 64) throw new MalformedAnswerError('pointer loop');
      off = ((len & 0x3f) << 8) | msg[off + 1]!;
      // A pointer may lead anywhere before the end of the message, not only of the record.
      limit = msg.length;
      continue;
    }
    if ((len & 0xc0) !== 0) throw new MalformedAnswerError('reserved label type');
    total += len + 1;
    if (total > 255 || off + 1 + len > limit) throw new MalformedAnswerError('name too long');
    labels.push(msg.toString('latin1', off + 1, off + 1 + len));
    off += len + 1;
  }
}

/** `s` with ASCII capitals lowered, nothing else changed (DNS compares names ASCII-case-insensitively: RFC 4343 §3). */
function asciiLower(s: string): string {
  return /[A-Z]/.test(s) ? s.replace(/[A-Z]+/g, (m) => m.toLowerCase()) : s;
}

/** A name's text as the policy engine reads qnames (dns/wire.ts): labels joined by `.`, ASCII lower case, UTF-8 labels decoded. */
function nameText(labels: readonly string[]): string {
  let text = '';
  for (let i = 0; i < labels.length; i++) {
    const l = labels[i]!;
    // biome-ignore lint/suspicious/noControlCharactersInRegex: bytes ≥ 0x80 mark a non-ASCII label
    const label = /[^\x00-\x7f]/.test(l) ? Buffer.from(l, 'latin1').toString('utf8') : l;
    text += i === 0 ? label : `.${label}`;
  }
  return text === '' ? '.' : asciiLower(text);
}

/** The body being written, with its compression table (lower-case wire suffix → absolute offset). */
class BodyWriter {
  buf: Buffer;
  length = 0;
  readonly table = new Map<string, number>();

  constructor(
    /** Absolute offset of the body in every rendered response (the question's end). */
    readonly base: number,
    capacity: number,
  ) {
    this.buf = Buffer.allocUnsafe(capacity);
  }

  ensure(n: number): void {
    if (this.length + n <= this.buf.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.length + n));
    this.buf.copy(grown, 0, 0, this.length);
    this.buf = grown;
  }

  bytes(src: Buffer, from: number, to: number): void {
    this.ensure(to - from);
    src.copy(this.buf, this.length, from, to);
    this.length += to - from;
  }

  u16(v: number): void {
    this.ensure(2);
    put16(this.buf, this.length, v);
    this.length += 2;
  }

  /**
   * Writes `labels`, ending in a pointer to the longest suffix already written when `compress`;
   * each suffix written here becomes a pointer target.
   */
  name(labels: readonly string[], compress: boolean): void {
    const keys = suffixKeys(labels);
    for (let i = 0; i < labels.length; i++) {
      const key = keys[i]!;
      if (compress) {
        const at = this.table.get(key);
        if (at !== undefined) {
          this.u16(0xc000 | at);
          return;
        }
      }
      const pos = this.base + this.length;
      if (pos < POINTER_LIMIT && !this.table.has(key)) this.table.set(key, pos);
      const label = labels[i]!;
      this.ensure(label.length + 1);
      this.buf[this.length++] = label.length;
      this.length += this.buf.write(label, this.length, 'latin1');
    }
    this.ensure(1);
    this.buf[this.length++] = 0;
  }
}

/** The compression keys of each suffix of `labels` (suffix i: labels i…end): its wire form, ASCII lower case. */
function suffixKeys(labels: readonly string[]): string[] {
  const keys = new Array<string>(labels.length);
  let key = '';
  for (let i = labels.length - 1; i >= 0; i--) {
    const l = labels[i]!;
    key = String.fromCharCode(l.length) + asciiLower(l) + key;
    keys[i] = key;
  }
  return keys;
}

function u16(msg: Buffer, off: number): number {
  return (msg[off]! << 8) | msg[off + 1]!;
}

function u32(msg: Buffer, off: number): number {
  return ((msg[off]! << 24) | (msg[off + 1]! << 16) | (msg[off + 2]! << 8) | msg[off + 3]!) >>> 0;
}

/**
 * Compiles an upstream response (the whole wire message, its one question included: its end is
 * where the body will be rendered) for the question whose normalised qname (lower case, no
 * trailing dot) is `qname`. Every record is kept but the upstream's OPT, whose Extended DNS Error
 * options are kept to relay ({@link CompiledAnswer.ede}).
 * @throws MalformedAnswerError when the message is not one question followed by well-formed records
 */
export function compileAnswer(message: Buffer, qname: string): CompiledAnswer {
  if (message.length < 12 || u16(message, 4) !== 1) throw new MalformedAnswerError('not one question');
  const flags = u16(message, 2);
  const rcode = flags & 0xf;
  const counts = [u16(message, 6), u16(message, 8), u16(message, 10)];
  const question = readName(message, 12, message.length);
  const base = question.end + 4;
  if (base > message.length) throw new MalformedAnswerError('truncated question');
  const out = new BodyWriter(base, message.length * 2);
  // The question's suffixes, at their offsets in every response (offset 12 on).
  const qkeys = suffixKeys(question.labels);
  let at = 12;
  for (let i = 0; i < question.labels.length; i++) {
    out.table.set(qkeys[i]!, at);
    at += question.labels[i]!.length + 1;
  }
  if (at + 1 !== question.end) throw new MalformedAnswerError('compressed question');

  const ttlOffsets: number[] = [];
  const written = [0, 0, 0];
  let aliases: string[] | null = null;
  let ede: Buffer | null = null;
  let positiveTtl = Number.POSITIVE_INFINITY;
  let soaTtl = -1;
  let off = base;
  for (let s = 0; s < 3; s++) {
    for (let r = 0; r < counts[s]!; r++) {
      const owner = readName(message, off, message.length);
      off = owner.end;
      if (off + 10 > message.length) throw new MalformedAnswerError('truncated record');
      const type = u16(message, off);
      const ttl = u32(message, off + 4);
      const rdlen = u16(message, off + 8);
      const rdata = off + 10;
      const rdataEnd = rdata + rdlen;
      if (rdataEnd > message.length) throw new MalformedAnswerError('truncated RDATA');
      if (type === 41) {
        if (s === 2) ede = edeOptions(message, rdata, rdataEnd, ede);
        off = rdataEnd;
        continue;
      }
      out.name(owner.labels, true);
      ttlOffsets.push(out.length + 4);
      out.bytes(message, off, off + 8);
      const rdlenAt = out.length;
      out.u16(0);
      const targets = writeRdata(out, message, type, rdata, rdataEnd);
      put16(out.buf, rdlenAt, out.length - rdlenAt - 2);
      if (s === 0) {
        if (type === 5 || type === 39) aliases = addAlias(aliases, nameText(owner.labels), qname);
        if ((type === 5 || type === 39 || type === 64 || type === 65) && targets !== null && targets.length > 0)
          aliases = addAlias(aliases, nameText(targets), qname);
      }
      if (s < 2 && ttl < positiveTtl) positiveTtl = ttl;
      if (s === 1 && type === 6 && soaTtl < 0) soaTtl = Math.min(ttl, u32(message, rdataEnd - 4));
      written[s]!++;
      off = rdataEnd;
    }
  }

  const size = out.length;
  out.ensure(2 * ttlOffsets.length);
  for (const t of ttlOffsets) {
    out.buf[out.length++] = t >>> 8;
    out.buf[out.length++] = t & 0xff;
  }
  let cacheTtl = 0;
  if (rcode === 0 && written[0]! > 0) cacheTtl = positiveTtl;
  else if (rcode === 0 || rcode === 3) cacheTtl = soaTtl;
  return {
    rcode,
    flags: flags & Flag.AD,
    ancount: written[0]!,
    nscount: written[1]!,
    arcount: written[2]!,
    bytes: out.buf.toString('latin1', 0, out.length),
    bodyLength: size,
    cacheTtl: cacheTtl > 0 ? cacheTtl : 0,
    aliases,
    ede,
  };
}

/**
 * Writes one record's RDATA by its type's layout ({@link LAYOUTS}); returns the labels of its last
 * name field (the target of CNAME, DNAME, SVCB and HTTPS), or null for a type without names.
 * @throws MalformedAnswerError when the RDATA does not match its layout
 */
function writeRdata(out: BodyWriter, msg: Buffer, type: number, from: number, to: number): string[] | null {
  const layout = LAYOUTS.get(type);
  if (layout === undefined) {
    out.bytes(msg, from, to);
    return null;
  }
  let off = from;
  let last: string[] | null = null;
  for (const field of layout) {
    if (typeof field === 'number') {
      if (off + field > to) throw new MalformedAnswerError('short RDATA');
      out.bytes(msg, off, off + field);
      off += field;
    } else if (field === 's') {
      if (off >= to || off + 1 + msg[off]! > to) throw new MalformedAnswerError('short character-string');
      const end = off + 1 + msg[off]!;
      out.bytes(msg, off, end);
      off = end;
    } else if (field === 'r') {
      out.bytes(msg, off, to);
      off = to;
    } else {
      const name = readName(msg, off, to);
      out.name(name.labels, field === 'c');
      last = name.labels;
      off = name.end;
    }
  }
  if (off !== to) throw new MalformedAnswerError('RDATA longer than its layout');
  return last;
}

function addAlias(aliases: string[] | null, name: string, qname: string): string[] | null {
  if (name === qname || name === '.') return aliases;
  if (aliases === null) return [name];
  if (!aliases.includes(name)) aliases.push(name);
  return aliases;
}

/** `previous` followed by the EDE options (code 15) of the OPT RDATA `[from, to)`; malformed option lists are ignored. */
function edeOptions(msg: Buffer, from: number, to: number, previous: Buffer | null): Buffer | null {
  const found: Buffer[] = previous === null ? [] : [previous];
  let off = from;
  while (off + 4 <= to) {
    const len = u16(msg, off + 2);
    if (off + 4 + len > to) break;
    if (u16(msg, off) === EDE_OPTION) found.push(Buffer.from(msg.subarray(off, off + 4 + len)));
    off += 4 + len;
  }
  return found.length === 0 ? null : Buffer.concat(found);
}

/**
 * The wire response to `request` from a compiled answer: header (the request's id; AD only when
 * the client set AD or DO, RFC 6840 §5.8), the request's own question, the compiled body with
 * every TTL decremented by `elapsed` seconds (never below 0) — or set to `fixedTtl` when ≥ 0
 * (stale answers, RFC 8767 §4) — and our OPT carrying `ede` (Extended DNS Error option TLVs,
 * RFC 8914) when the client sent EDNS(0).
 * Precondition: `request.questionEnd` is the question end `answer` was compiled for (one cache key).
 */
export function renderAnswer(
  request: DnsRequest,
  answer: CompiledAnswer,
  elapsed: number,
  fixedTtl = -1,
  ede: Buffer | null = answer.ede,
): Buffer {
  const bytes = answer.bytes;
  const bodyLength = answer.bodyLength;
  const wantsAd = (request.flags & Flag.AD) !== 0 || request.edns?.dnssecOk === true;
  const out = allocResponse(
    request,
    answer.rcode,
    wantsAd ? answer.flags : 0,
    answer.ancount,
    answer.nscount,
    answer.arcount,
    bodyLength,
    ede,
  );
  const base = request.questionEnd;
  for (let i = 0; i < bodyLength; i++) out[base + i] = bytes.charCodeAt(i);
  if (fixedTtl >= 0 || elapsed > 0) {
    for (let i = bodyLength; i < bytes.length; i += 2) {
      const at = base + ((bytes.charCodeAt(i) << 8) | bytes.charCodeAt(i + 1));
      // The TTL as received, just copied.
      const ttl = ((out[at]! << 24) | (out[at + 1]! << 16) | (out[at + 2]! << 8) | out[at + 3]!) >>> 0;
      put32(out, at, fixedTtl >= 0 ? fixedTtl : ttl > elapsed ? ttl - elapsed : 0);
    }
  }
  return out;
}
