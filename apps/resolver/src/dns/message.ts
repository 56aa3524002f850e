import dnsPacket, { type Answer, type Packet } from 'dns-packet';
import type { DnsProtocol, DnsQuestion, DnsRequest, EdnsInfo } from '../request.ts';

/** RCODE values (RFC 1035 §4.1.1, RFC 6895 §2.3). */
export const Rcode = { NOERROR: 0, FORMERR: 1, SERVFAIL: 2, NXDOMAIN: 3, NOTIMP: 4, REFUSED: 5 } as const;
export type RcodeName = keyof typeof Rcode;

const RCODE_NAMES = ['NOERROR', 'FORMERR', 'SERVFAIL', 'NXDOMAIN', 'NOTIMP', 'REFUSED'];

/** Header flag bits in the 15-bit field dns-packet's `flags` carries (RFC 1035 §4.1.1, RFC 4035 §3.2). */
export const Flag = { AA: 0x400, TC: 0x200, RD: 0x100, RA: 0x80, AD: 0x20, CD: 0x10 } as const;

/** Largest UDP answer we send when the client advertises more (RFC 9715 / DNS flag day 2020 default). */
export const MAX_UDP_PAYLOAD = 1232;
/** UDP answer limit without EDNS(0) (RFC 1035 §4.2.1). */
export const CLASSIC_UDP_PAYLOAD = 512;

/** The RCODE name of a response's flags, e.g. `NXDOMAIN`; extended RCODEs read as `RCODE_n`. */
export function rcodeName(flags: number | undefined): string {
  const code = (flags ?? 0) & 0xf;
  return RCODE_NAMES[code] ?? `RCODE_${code}`;
}

/** The RCODE number of a response's flags (RFC 1035 §4.1.1; the low four bits). */
export function rcodeOf(message: Packet): number {
  return (message.flags ?? 0) & 0xf;
}

/** The query-log name of a qtype number: mnemonics for the common ones, `TYPEnnn` (RFC 3597 §5) else. */
export function qtypeName(code: number, decoded: string): string {
  if (code === 65) return 'HTTPS';
  if (code === 64) return 'SVCB';
  return decoded.startsWith('UNKNOWN_') ? `TYPE${code}` : decoded;
}

/**
 * Unwraps an IPv4-mapped IPv6 address (`::ffff:192.0.2.1`, RFC 4291 §2.5.5.2) to plain IPv4, so
 * a dual-stack socket's clients match IPv4 location addresses. Other addresses are returned as is.
 */
export function unwrapMappedIp(address: string): string {
  if (address.length > 7 && address.charCodeAt(0) === 58 /* : */ && address.toLowerCase().startsWith('::ffff:')) {
    const rest = address.slice(7);
    if (rest.includes('.')) return rest;
  }
  return address;
}

/** The outcome of decoding a datagram or TCP frame: a request, an error to answer, or nothing. */
export type DecodeResult =
  | { readonly kind: 'ok'; readonly request: DnsRequest }
  | { readonly kind: 'error'; readonly response: Buffer }
  | { readonly kind: 'drop' };

/**
 * Decodes one wire query into the immutable {@link DnsRequest} (STYLE.md §2).
 * - fewer than 2 bytes, or a response (QR=1): `drop` (nothing to answer: RFC 1035 §4.1.1, and
 *   answering responses invites reflection loops);
 * - undecodable, or QDCOUNT ≠ 1: `error` with a FORMERR header echoing the id (RFC 1035 §4.1.1);
 * - an opcode other than QUERY: `error` with NOTIMP.
 */
export function decodeQuery(raw: Buffer, clientIp: string, protocol: DnsProtocol): DecodeResult {
  if (raw.length < 2) return { kind: 'drop' };
  const id = raw.readUInt16BE(0);
  if (raw.length >= 3 && (raw[2]! & 0x80) !== 0) return { kind: 'drop' };
  let message: Packet;
  try {
    message = dnsPacket.decode(raw);
  } catch {
    return { kind: 'error', response: headerOnly(id, raw, Rcode.FORMERR) };
  }
  const opcode = ((message.flags ?? 0) >> 11) & 0xf;
  if (opcode !== 0) return { kind: 'error', response: headerOnly(id, raw, Rcode.NOTIMP) };
  const q = message.questions?.[0];
  if (!q || message.questions!.length !== 1) return { kind: 'error', response: headerOnly(id, raw, Rcode.FORMERR) };
  // dns-packet does not keep the numeric qtype; it sits right after the qname in the wire question.
  const typeCode = readQtypeCode(raw);
  const question: DnsQuestion = {
    name: q.name,
    qname: q.name.toLowerCase(),
    type: q.type,
    typeCode,
    class: q.class ?? 'IN',
  };
  let edns: EdnsInfo | null = null;
  const additionals = message.additionals ?? [];
  for (let i = 0; i < additionals.length; i++) {
    const rr = additionals[i] as Answer & { udpPayloadSize?: number; flags?: number };
    if (rr.type === 'OPT') {
      edns = {
        udpSize: Math.max(CLASSIC_UDP_PAYLOAD, rr.udpPayloadSize ?? CLASSIC_UDP_PAYLOAD),
        dnssecOk: ((rr.flags ?? 0) & dnsPacket.DNSSEC_OK) !== 0,
      };
      break;
    }
  }
  return {
    kind: 'ok',
    request: {
      clientIp,
      protocol,
      raw,
      message,
      question,
      edns,
      receivedAt: Date.now(),
      startedAt: performance.now(),
    },
  };
}

function readQtypeCode(raw: Buffer): number {
  let off = 12;
  while (off < raw.length) {
    const len = raw[off]!;
    if (len === 0) {
      off += 1;
      break;
    }
    if ((len & 0xc0) === 0xc0) {
      off += 2;
      break;
    }
    off += len + 1;
  }
  return off + 2 <= raw.length ? raw.readUInt16BE(off) : 0;
}

/** A 12-byte response header with no sections: for FORMERR / NOTIMP when the query cannot be used. */
function headerOnly(id: number, raw: Buffer, rcode: number): Buffer {
  const out = Buffer.alloc(12);
  out.writeUInt16BE(id, 0);
  const qflags = raw.length >= 4 ? raw.readUInt16BE(2) : 0;
  // QR, the query's opcode and RD, RA, the RCODE.
  out.writeUInt16BE(0x8000 | (qflags & 0x7800) | (qflags & Flag.RD) | Flag.RA | rcode, 2);
  return out;
}

/** Sections of a response that {@link buildResponse} fills in. */
export interface ResponseParts {
  rcode: number;
  answers?: Answer[];
  authorities?: Answer[];
  additionals?: Answer[];
  /** Extra header bits (e.g. {@link Flag.TC}); RD and CD are copied from the query, RA is always set. */
  flags?: number;
}

/**
 * A response to `request`: its id, its question (case preserved, RFC 1035 §7.3 lets the client
 * check it), RD/CD copied, RA set (we recurse), and an EDNS(0) OPT echoed when the query had one
 * (RFC 6891 §7: a responder must not send OPT to a client that did not), with our payload size
 * and the DO bit mirrored (RFC 3225 §3).
 */
export function buildResponse(request: DnsRequest, parts: ResponseParts): Packet {
  const qflags = request.message.flags ?? 0;
  const flags = (qflags & (Flag.RD | Flag.CD)) | Flag.RA | (parts.flags ?? 0) | (parts.rcode & 0xf);
  const additionals = parts.additionals ? parts.additionals.slice() : [];
  if (request.edns) additionals.push(optRecord(request.edns.dnssecOk));
  return {
    id: request.message.id ?? 0,
    type: 'response',
    flags,
    questions: request.message.questions!.slice(0, 1),
    answers: parts.answers ?? [],
    authorities: parts.authorities ?? [],
    additionals,
  };
}

/** Our OPT pseudo-record (RFC 6891 §6.1.2) with the given DO bit. */
export function optRecord(dnssecOk: boolean): Answer {
  return {
    type: 'OPT',
    name: '.',
    udpPayloadSize: MAX_UDP_PAYLOAD,
    flags: dnssecOk ? dnsPacket.DNSSEC_OK : 0,
    options: [],
  } as unknown as Answer;
}

/**
 * Encodes an answer for the request's transport. Over UDP an answer larger than the client's
 * EDNS(0) payload size (512 without EDNS, capped at {@link MAX_UDP_PAYLOAD}) is replaced by the
 * question alone with TC set, so the client retries over TCP (RFC 1035 §4.2.1, RFC 6891 §7).
 */
export function encodeResponse(message: Packet, request: DnsRequest): Buffer {
  const wire = dnsPacket.encode(message);
  if (request.protocol !== 'udp') return wire;
  const limit = request.edns ? Math.min(request.edns.udpSize, MAX_UDP_PAYLOAD) : CLASSIC_UDP_PAYLOAD;
  if (wire.length <= limit) return wire;
  return dnsPacket.encode({
    id: message.id ?? 0,
    type: 'response',
    flags: (message.flags ?? 0) | Flag.TC,
    questions: message.questions ?? [],
    answers: [],
    authorities: [],
    additionals: request.edns ? [optRecord(request.edns.dnssecOk)] : [],
  });
}
