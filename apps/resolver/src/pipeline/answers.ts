import { Constants } from '@cordon/shared';
import type { Answer } from 'dns-packet';
import { buildResponse, Rcode } from '../dns/message.ts';
import type { DnsAnswer, QueryContext } from '../request.ts';

/** Addresses blocked A/AAAA questions are answered with (the block page): DESIGN.md §8 "Answers". */
export interface BlockAddresses {
  readonly ipv4: string;
  readonly ipv6: string;
}

/**
 * The answer for a blocked qname (DESIGN.md §8 "Answers"): A → the block page's IPv4 address,
 * AAAA → its IPv6 address, TTL {@link Constants.blockedAnswerTtl} (60 s); HTTPS (65), SVCB (64)
 * and every other qtype → NODATA (NOERROR, empty answer section), so browsers fall back to A.
 */
export function blockedAnswer(ctx: QueryContext, addresses: BlockAddresses): DnsAnswer {
  const q = ctx.request.question;
  let answers: Answer[] = [];
  if (q.class === 'IN' && q.typeCode === 1) {
    answers = [{ name: q.name, type: 'A', class: 'IN', ttl: Constants.blockedAnswerTtl, data: addresses.ipv4 }];
  } else if (q.class === 'IN' && q.typeCode === 28) {
    answers = [{ name: q.name, type: 'AAAA', class: 'IN', ttl: Constants.blockedAnswerTtl, data: addresses.ipv6 }];
  }
  return {
    message: buildResponse(ctx.request, { rcode: Rcode.NOERROR, answers }),
    source: 'synthesized',
    context: ctx,
  };
}

/** REFUSED for a client Cordon does not serve (DESIGN.md §8: never an open resolver). */
export function refusedAnswer(ctx: QueryContext): DnsAnswer {
  return { message: buildResponse(ctx.request, { rcode: Rcode.REFUSED }), source: 'refused', context: ctx };
}

/** SERVFAIL: no upstream answered and nothing stale was cached (RFC 8767 §4 last resort). */
export function servfailAnswer(ctx: QueryContext): DnsAnswer {
  return { message: buildResponse(ctx.request, { rcode: Rcode.SERVFAIL }), source: 'error', context: ctx };
}
