import type { Answer, Packet } from 'dns-packet';
import { codec } from '../dns/codec.ts';
import { allocResponse, Flag, put32 } from '../dns/message.ts';
import type { DnsRequest } from '../dns/request.ts';

/**
 * An upstream answer turned into position-independent wire bytes (docs/architecture.md "Data plane": the cache
 * "answers from cache by rewriting the id"): the answer, authority and additional records (the
 * upstream's OPT dropped) back to back, ready to follow any client's copy of the same question.
 *
 * Records owned by the qname start with the compression pointer `0xC00C` (RFC 1035 §4.1.4) to
 * the question at offset 12, so a cached answer carries each asker's own spelling of the qname;
 * every other name is written in full (no pointers into the upstream's message survive).
 * Serving from cache is one copy plus a TTL patch per record.
 *
 * Compact on purpose, since the cache keeps up to 100,000 of them (bench/README.md "Answer cache
 * memory"): one object and one flat Latin-1 string (a byte per character) holding the body's bytes
 * followed by each record's TTL offset in it (two characters, big-endian) — no `Buffer` or typed
 * array per entry, whose object headers cost more than the few dozen bytes they hold.
 */
export interface CompiledAnswer {
  /** RCODE of the upstream answer (RFC 1035 §4.1.1). */
  readonly rcode: number;
  /** Header bits kept from the upstream: AD only (AA is not ours to claim). */
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
}

const ROOT_POINTER = Buffer.from([0xc0, 0x0c]);

/**
 * Compiles an upstream response (decoded by dns-packet) for the question whose normalised qname
 * (lower case, no trailing dot) is `qname`. Records dns-packet cannot re-encode are skipped.
 */
export function compileAnswer(response: Packet, qname: string): CompiledAnswer {
  const rcode = (response.flags ?? 0) & 0xf;
  const answers = response.answers ?? [];
  const authorities = response.authorities ?? [];
  const additionals = (response.additionals ?? []).filter((rr) => rr.type !== 'OPT');
  const parts: Buffer[] = [];
  const offsets: number[] = [];
  let size = 0;
  const counts = [0, 0, 0];
  const sections = [answers, authorities, additionals];
  for (let s = 0; s < 3; s++) {
    for (const rr of sections[s]!) {
      let rest: Buffer;
      try {
        // Encoded with the root as owner: byte 0 is the root label, the rest is type … RDATA.
        rest = codec.answer.encode({ ...rr, name: '.' } as Answer);
      } catch {
        continue;
      }
      const owner =
        rr.name.toLowerCase() === qname || (qname === '.' && rr.name === '')
          ? ROOT_POINTER
          : codec.name.encode(rr.name);
      offsets.push(size + owner.length + 4);
      parts.push(owner, rest.subarray(1));
      size += owner.length + rest.length - 1;
      counts[s]!++;
    }
  }
  const packed = Buffer.allocUnsafe(size + 2 * offsets.length);
  let at = 0;
  for (const part of parts) at += part.copy(packed, at);
  for (const off of offsets) {
    packed[at++] = off >>> 8;
    packed[at++] = off & 0xff;
  }
  return {
    rcode,
    flags: (response.flags ?? 0) & Flag.AD,
    ancount: counts[0]!,
    nscount: counts[1]!,
    arcount: counts[2]!,
    bytes: packed.toString('latin1'),
    bodyLength: size,
    cacheTtl: cacheTtlOf(rcode, answers, authorities),
  };
}

function cacheTtlOf(rcode: number, answers: Answer[], authorities: Answer[]): number {
  if (rcode !== 0 && rcode !== 3) return 0;
  let ttl: number;
  if (rcode === 0 && answers.length > 0) {
    ttl = minTtl(answers, Number.POSITIVE_INFINITY);
    ttl = minTtl(authorities, ttl);
  } else {
    const soa = authorities.find((rr) => rr.type === 'SOA');
    if (!soa) return 0;
    const minimum = (soa as { data?: { minimum?: number } }).data?.minimum ?? 0;
    ttl = Math.min((soa as { ttl?: number }).ttl ?? 0, minimum);
  }
  return ttl > 0 ? ttl : 0;
}

function minTtl(records: Answer[], start: number): number {
  let m = start;
  for (let i = 0; i < records.length; i++) {
    const t = (records[i] as { ttl?: number }).ttl ?? 0;
    if (t < m) m = t;
  }
  return m;
}

/**
 * The wire response to `request` from a compiled answer: header (the request's id), the
 * request's own question, the compiled body with every TTL decremented by `elapsed` seconds
 * (never below 0) — or set to `fixedTtl` when ≥ 0 (stale answers, RFC 8767 §4) — and our OPT.
 */
export function renderAnswer(request: DnsRequest, answer: CompiledAnswer, elapsed: number, fixedTtl = -1): Buffer {
  const bytes = answer.bytes;
  const bodyLength = answer.bodyLength;
  const out = allocResponse(
    request,
    answer.rcode,
    answer.flags,
    answer.ancount,
    answer.nscount,
    answer.arcount,
    bodyLength,
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
