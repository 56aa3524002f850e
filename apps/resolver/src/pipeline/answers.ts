import { Constants } from '@cordon/shared';
import type { Answer } from 'dns-packet';
import { codec } from '../dns/codec.ts';
import { allocResponse, emptyResponse, Rcode } from '../dns/message.ts';
import type { DnsAnswer, QueryContext } from '../request.ts';

/** Addresses blocked A/AAAA questions are answered with (the block page): docs/architecture.md "Decision order" "Answers". */
export interface BlockAddresses {
  readonly ipv4: string;
  readonly ipv6: string;
}

/**
 * The wire answers for blocked names, encoded once per set of block addresses: each is one
 * answer record whose owner is the pointer `0xC00C` to the question (RFC 1035 §4.1.4), so the
 * client's own spelling of the qname comes back, followed by type, class IN, TTL
 * {@link Constants.blockedAnswerTtl} (60 s) and the address.
 */
export interface BlockedTemplates {
  /** `A` record body (16 bytes). */
  readonly a: Buffer;
  /** `AAAA` record body (28 bytes). */
  readonly aaaa: Buffer;
}

/**
 * Encodes the blocked-answer records for `addresses`.
 * @throws when an address is not a valid IPv4 / IPv6 literal
 */
export function blockedTemplates(addresses: BlockAddresses): BlockedTemplates {
  const record = (type: 'A' | 'AAAA', data: string) => {
    const rr = codec.answer.encode({ name: '.', type, class: 'IN', ttl: Constants.blockedAnswerTtl, data } as Answer);
    return Buffer.concat([Buffer.from([0xc0, 0x0c]), rr.subarray(1)]);
  };
  return { a: record('A', addresses.ipv4), aaaa: record('AAAA', addresses.ipv6) };
}

/**
 * The answer for a blocked qname (docs/architecture.md "Decision order" "Answers"): qclass IN and qtype A → the block
 * page's IPv4 address, AAAA → its IPv6 address, TTL 60; HTTPS (65), SVCB (64) and every other
 * qtype → NODATA (NOERROR, empty answer section), so browsers fall back to A. Written straight
 * into one Buffer: header, the query's question, the template record, OPT when asked.
 */
export function blockedAnswer(ctx: QueryContext, templates: BlockedTemplates): DnsAnswer {
  const q = ctx.request.question;
  const record = q.classCode !== 1 ? null : q.typeCode === 1 ? templates.a : q.typeCode === 28 ? templates.aaaa : null;
  let wire: Buffer;
  if (record === null) {
    wire = emptyResponse(ctx.request, Rcode.NOERROR);
  } else {
    wire = allocResponse(ctx.request, Rcode.NOERROR, 0, 1, 0, 0, record.length);
    record.copy(wire, ctx.request.questionEnd);
  }
  return { wire, rcode: Rcode.NOERROR, source: 'synthesized', context: ctx };
}

/** REFUSED for a client Cordon does not serve (docs/architecture.md "Decision order": never an open resolver). */
export function refusedAnswer(ctx: QueryContext): DnsAnswer {
  return { wire: emptyResponse(ctx.request, Rcode.REFUSED), rcode: Rcode.REFUSED, source: 'refused', context: ctx };
}

/** SERVFAIL: no upstream answered and nothing stale was cached (RFC 8767 §4 last resort). */
export function servfailAnswer(ctx: QueryContext): DnsAnswer {
  return { wire: emptyResponse(ctx.request, Rcode.SERVFAIL), rcode: Rcode.SERVFAIL, source: 'error', context: ctx };
}
