import { createRequire } from 'node:module';
import type { DnsProtocol, DnsRequest } from './request.ts';
import { parseQuery, type WireQuery } from './wire.ts';

/**
 * RCODE values (RFC 1035 §4.1.1, RFC 6895 §2.3). BADVERS (16) is an extended RCODE: only its low
 * four bits (0) go in the header, the upper eight in the OPT record (RFC 6891 §6.1.3).
 */
export const Rcode = { NOERROR: 0, FORMERR: 1, SERVFAIL: 2, NXDOMAIN: 3, NOTIMP: 4, REFUSED: 5, BADVERS: 16 } as const;
export type RcodeName = keyof typeof Rcode;

const RCODE_NAMES = ['NOERROR', 'FORMERR', 'SERVFAIL', 'NXDOMAIN', 'NOTIMP', 'REFUSED'];

/** Header flag bits of the 16-bit flags word (RFC 1035 §4.1.1, RFC 4035 §3.2). */
export const Flag = { QR: 0x8000, AA: 0x400, TC: 0x200, RD: 0x100, RA: 0x80, AD: 0x20, CD: 0x10 } as const;

/** Largest UDP answer we send when the client advertises more (RFC 9715 / DNS flag day 2020 default). */
export const MAX_UDP_PAYLOAD = 1232;
/** UDP answer limit without EDNS(0) (RFC 1035 §4.2.1). */
export const CLASSIC_UDP_PAYLOAD = 512;

// dns-packet's own number → mnemonic tables, so names match what the decoder used to produce.
const require = createRequire(import.meta.url);
const dnsTypes = require('dns-packet/types') as { toString(code: number): string };
const dnsClasses = require('dns-packet/classes') as { toString(code: number): string };

/** The mnemonic of a qtype number as dns-packet names it (`A`, `AAAA`, `UNKNOWN_65`…). */
export function typeName(code: number): string {
  return dnsTypes.toString(code);
}

/** The mnemonic of a qclass number as dns-packet names it (`IN`, `CH`, `UNKNOWN_9`…). */
export function className(code: number): string {
  return dnsClasses.toString(code);
}

/** The RCODE name of an RCODE number or of a header flags word (low four bits), e.g. `NXDOMAIN`; others read `RCODE_n`. */
export function rcodeName(flagsOrRcode: number | undefined): string {
  const code = (flagsOrRcode ?? 0) & 0xf;
  return RCODE_NAMES[code] ?? `RCODE_${code}`;
}

/** The query-log name of a qtype number: mnemonics for the common ones, `TYPEnnn` (RFC 3597 §5) else. */
export function qtypeName(code: number, decoded: string): string {
  if (code === 65) return 'HTTPS';
  if (code === 64) return 'SVCB';
  return decoded.startsWith('UNKNOWN_') ? `TYPE${code}` : decoded;
}

/** The outcome of decoding a datagram or TCP frame: a request, an error to answer, or nothing. */
export type DecodeResult =
  | { readonly kind: 'ok'; readonly request: DnsRequest }
  | { readonly kind: 'error'; readonly response: Buffer }
  | { readonly kind: 'drop' };

const DROP: DecodeResult = Object.freeze({ kind: 'drop' });

/**
 * Writes `value` (0…0xffff) big-endian at `off`, which the caller sized the buffer for:
 * `Buffer#writeUInt16BE` without its argument validation (a measurable share of an answer's render).
 */
export function put16(out: Uint8Array, off: number, value: number): void {
  out[off] = value >>> 8;
  out[off + 1] = value;
}

/** Writes `value` (0…2³²−1) big-endian at `off`, as {@link put16}. */
export function put32(out: Uint8Array, off: number, value: number): void {
  out[off] = value >>> 24;
  out[off + 1] = value >>> 16;
  out[off + 2] = value >>> 8;
  out[off + 3] = value;
}

/**
 * Copies `src[start, end)` to `dst` at `at` byte by byte: for the few dozen bytes of a question
 * this is cheaper than `Buffer#copy`, which allocates a view of the source for a partial copy.
 */
function copyBytes(src: Uint8Array, start: number, end: number, dst: Uint8Array, at: number): void {
  for (let i = start; i < end; i++) dst[at + i - start] = src[i] as number;
}

/**
 * Decodes one wire query into the immutable {@link DnsRequest} (`pathKey`: the DoH path's key, see
 * {@link DnsRequest.pathKey}) (docs/contributing.md "Conventions" 2) with the wire-level
 * {@link parseQuery} (no dns-packet objects on the hot path):
 * - shorter than a DNS header (12 bytes), or a response (QR=1): `drop` — nothing to answer, and
 *   answering either invites reflection and loops;
 * - malformed, or QDCOUNT ≠ 1: `error` with a FORMERR header echoing the id (RFC 1035 §4.1.1);
 * - an opcode other than QUERY: `error` with NOTIMP;
 * - an OPT record with EDNS VERSION ≠ 0: `error` with BADVERS (RFC 6891 §6.1.3), see
 *   {@link badversResponse}.
 */
export function decodeQuery(
  raw: Buffer,
  clientIp: string,
  protocol: DnsProtocol,
  pathKey: string | null = null,
): DecodeResult {
  const parsed = parseQuery(raw);
  if (parsed.kind === 'drop') return DROP;
  if (parsed.kind === 'formerr') return { kind: 'error', response: headerOnly(raw, Rcode.FORMERR) };
  if (parsed.kind === 'notimp') return { kind: 'error', response: headerOnly(raw, Rcode.NOTIMP) };
  if (parsed.kind === 'badvers') return { kind: 'error', response: badversResponse(raw, parsed.query) };
  const q = parsed.query;
  return {
    kind: 'ok',
    request: {
      clientIp,
      protocol,
      raw,
      id: q.id,
      flags: q.flags,
      questionEnd: q.questionEnd,
      question: {
        name: q.name,
        qname: q.qname,
        type: typeName(q.qtype),
        typeCode: q.qtype,
        class: className(q.qclass),
        classCode: q.qclass,
      },
      edns: q.edns,
      irregularName: q.irregularName,
      pathKey,
      receivedAt: batchReceiveTime.set ? batchReceiveTime.wall : Date.now(),
      startedAt: batchReceiveTime.set ? batchReceiveTime.mono : performance.now(),
    },
  };
}

/**
 * The receive time of a batch of datagrams read in one system call: the batched UDP transport sets
 * it around its callback (transport/udp-batched.ts), and every query decoded meanwhile takes it as
 * its `receivedAt` / `startedAt` — each was received by then, so its latency counts its wait in the
 * batch, and the batch costs two clock reads instead of two per query (≈ 3 % of the resolving
 * thread at saturation: bench/README.md "Issue 12: hot path" round 4). `wall`: epoch ms; `mono`:
 * `performance.now()` ms; `set` false: each query reads the clocks itself.
 */
export const batchReceiveTime = { set: false, wall: 0, mono: 0 };

/** A 12-byte response header with no sections: for FORMERR / NOTIMP when the query cannot be used. */
function headerOnly(raw: Buffer, rcode: number): Buffer {
  const out = Buffer.alloc(12);
  out.writeUInt16BE(raw.readUInt16BE(0), 0);
  const qflags = raw.length >= 4 ? raw.readUInt16BE(2) : 0;
  // QR, the query's opcode and RD, the RCODE; RA only when the opcode is one we serve (QUERY):
  // an unknown opcode's NOTIMP claims nothing about recursion (RFC 1035 §4.1.1, RFC 6891 §7 nits).
  const ra = (qflags & 0x7800) === 0 ? Flag.RA : 0;
  out.writeUInt16BE(0x8000 | (qflags & 0x7800) | (qflags & Flag.RD) | ra | rcode, 2);
  return out;
}

/**
 * The answer to a query whose EDNS VERSION we do not implement (RFC 6891 §6.1.3): RCODE BADVERS
 * (16) — 0 in the header's four RCODE bits, 1 in the OPT's extended-RCODE byte — the question
 * echoed, no answer/authority records, and our OPT of VERSION 0 (the highest we support), DO
 * mirrored (RFC 3225 §3).
 */
export function badversResponse(raw: Buffer, q: WireQuery): Buffer {
  const qEnd = q.questionEnd;
  const out = Buffer.allocUnsafe(qEnd + OPT_LENGTH);
  out.writeUInt16BE(q.id, 0);
  out.writeUInt16BE(Flag.QR | (q.flags & (Flag.RD | Flag.CD)) | Flag.RA | (Rcode.BADVERS & 0xf), 2);
  out.writeUInt16BE(1, 4);
  out.writeUInt32BE(0, 6);
  out.writeUInt16BE(1, 10);
  raw.copy(out, 12, 12, qEnd);
  writeOpt(out, qEnd, q.edns?.dnssecOk === true);
  out[qEnd + 5] = Rcode.BADVERS >> 4;
  return out;
}

/** Bytes of our OPT pseudo-record (RFC 6891 §6.1.2): root name, type 41, payload size, TTL word, RDLEN 0. */
export const OPT_LENGTH = 11;

/**
 * Writes our OPT record at `off` (payload {@link MAX_UDP_PAYLOAD}, version 0, DO mirrored: RFC 3225
 * §3) with `options` (EDNS(0) option TLVs, RFC 6891 §6.1.2: code, length, data) as its RDATA.
 */
export function writeOpt(out: Buffer, off: number, dnssecOk: boolean, options: Buffer | null = null): void {
  out[off] = 0;
  put16(out, off + 1, 41);
  put16(out, off + 3, MAX_UDP_PAYLOAD);
  put32(out, off + 5, dnssecOk ? 0x8000 : 0);
  if (options === null) {
    put16(out, off + 9, 0);
    return;
  }
  put16(out, off + 9, options.length);
  options.copy(out, off + OPT_LENGTH);
}

/**
 * Extended DNS Error INFO-CODEs Cordon sends (RFC 8914 §4; the choice of codes: docs/decisions.md
 * "Extended DNS Errors").
 */
export const EdeCode = {
  STALE_ANSWER: 3,
  BLOCKED: 15,
  FILTERED: 17,
  PROHIBITED: 18,
  NO_REACHABLE_AUTHORITY: 22,
  NETWORK_ERROR: 23,
} as const;

/** Longest EXTRA-TEXT we write, bytes: the reason fits, and a blocked answer stays far below 512 bytes. */
const EDE_TEXT_MAX = 160;

/**
 * One Extended DNS Error option TLV (RFC 8914 §2): code 15, length, INFO-CODE, EXTRA-TEXT (UTF-8,
 * cut to {@link EDE_TEXT_MAX} bytes on a character boundary; none when empty).
 */
export function edeOption(infoCode: number, extraText = ''): Buffer {
  let text = Buffer.from(extraText, 'utf8');
  if (text.length > EDE_TEXT_MAX)
    text = Buffer.from(
      text
        .subarray(0, EDE_TEXT_MAX)
        .toString('utf8')
        .replace(/\uFFFD$/, ''),
      'utf8',
    );
  const out = Buffer.allocUnsafe(6 + text.length);
  put16(out, 0, 15);
  put16(out, 2, 2 + text.length);
  put16(out, 4, infoCode);
  text.copy(out, 6);
  return out;
}

/**
 * Where the next response may be written in place: the batched UDP transport's answer slot for the
 * datagram being handled (transport/udp-batched.ts offers it before the handler runs and withdraws
 * it after). {@link allocResponse} takes it at most once — `arena` is null again afterwards and
 * `taken` holds the response's length — when the response fits `capacity` bytes, and otherwise
 * allocates; so a response built and then replaced (a truncated one) never overwrites the first.
 * A handler that takes the slot and then answers through a promise gets a copy of the slot sent
 * (the transport makes it when the handler returns; the arena is reused by the next batch).
 */
export const responseSlot: { arena: Buffer | null; offset: number; capacity: number; taken: number } = {
  arena: null,
  offset: 0,
  capacity: 0,
  taken: 0,
};

/**
 * Allocates a response to `request` (in {@link responseSlot} when one is offered) and fills everything but the sections' body:
 * the header (its id; QR; RD and CD copied; RA set — we recurse; `extraFlags` such as AD or TC;
 * the RCODE; QDCOUNT 1 and the given counts, ARCOUNT + 1 when an OPT is added), the question
 * copied byte for byte from the query (the client's case: RFC 1035 §7.3 lets it check), and an
 * EDNS(0) OPT at the end when the query had one (RFC 6891 §7: never to a client that did not),
 * carrying `options` (option TLVs such as {@link edeOption}'s) as its RDATA.
 * The body, `bodyLength` bytes, goes at `request.questionEnd`.
 */
export function allocResponse(
  request: DnsRequest,
  rcode: number,
  extraFlags: number,
  ancount: number,
  nscount: number,
  arcount: number,
  bodyLength: number,
  options: Buffer | null = null,
): Buffer {
  const qEnd = request.questionEnd;
  const edns = request.edns;
  const length = qEnd + bodyLength + (edns ? OPT_LENGTH + (options === null ? 0 : options.length) : 0);
  const slot = responseSlot;
  let out: Buffer;
  if (slot.arena !== null && length <= slot.capacity) {
    out = slot.arena.subarray(slot.offset, slot.offset + length);
    slot.arena = null;
    slot.taken = length;
  } else {
    out = Buffer.allocUnsafe(length);
  }
  put16(out, 0, request.id);
  put16(out, 2, Flag.QR | (request.flags & (Flag.RD | Flag.CD)) | Flag.RA | extraFlags | (rcode & 0xf));
  put16(out, 4, 1);
  put16(out, 6, ancount);
  put16(out, 8, nscount);
  put16(out, 10, arcount + (edns ? 1 : 0));
  copyBytes(request.raw, 12, qEnd, out, 12);
  if (edns) writeOpt(out, qEnd + bodyLength, edns.dnssecOk, options);
  return out;
}

/**
 * The "slip" answer of response-rate limiting (docs/operations.md "Response-rate limiting"):
 * NOERROR with TC=1 and empty sections but the question (and OPT when asked), so a real client
 * retries over TCP (RFC 1035 §4.2.1, RFC 7766 §5) while a spoofed victim gets no amplification.
 */
export function truncatedResponse(request: DnsRequest): Buffer {
  return allocResponse(request, Rcode.NOERROR, Flag.TC, 0, 0, 0, 0);
}

/** A response with no records (REFUSED, SERVFAIL, NODATA…): header, question, OPT (with `options`) when asked. */
export function emptyResponse(request: DnsRequest, rcode: number, options: Buffer | null = null): Buffer {
  return allocResponse(request, rcode, 0, 0, 0, 0, 0, options);
}

/**
 * Fits an encoded answer to the request's transport. Over UDP an answer larger than the client's
 * EDNS(0) payload size (512 without EDNS, capped at {@link MAX_UDP_PAYLOAD}) is replaced by the
 * question alone with TC set, so the client retries over TCP (RFC 1035 §4.2.1, RFC 6891 §7).
 * Returns `wire` itself when it fits.
 */
export function fitForTransport(wire: Buffer, request: DnsRequest): Buffer {
  if (request.protocol !== 'udp') return wire;
  const edns = request.edns;
  const limit = edns ? (edns.udpSize < MAX_UDP_PAYLOAD ? edns.udpSize : MAX_UDP_PAYLOAD) : CLASSIC_UDP_PAYLOAD;
  if (wire.length <= limit) return wire;
  const rcode = wire.readUInt16BE(2) & 0xf;
  const extra = (wire.readUInt16BE(2) & Flag.AD) | Flag.TC;
  return allocResponse(request, rcode, extra, 0, 0, 0, 0);
}
