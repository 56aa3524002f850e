import { allocResponse, Rcode } from '../dns/message.ts';
import type { ResolverCounters } from '../metrics.ts';
import type { Middleware, PipelineResponse } from '../request.ts';

/** qtype ANY, "*" (RFC 1035 §3.2.3). */
export const QTYPE_ANY = 255;

/** TTL of the synthesized HINFO, seconds: long, so resolvers cache it and stop asking (RFC 8482 §4.2). */
export const MINIMAL_ANY_TTL = 3600;

/**
 * The synthesized HINFO record body of RFC 8482 §4.2 without its class: owner `0xC00C` (the
 * question's name: RFC 1035 §4.1.4), type HINFO (13), class (patched per query), TTL
 * {@link MINIMAL_ANY_TTL}, RDATA CPU "RFC8482" and OS "" (two character-strings, RFC 1035 §3.3.2).
 */
const HINFO = (() => {
  const cpu = Buffer.from('RFC8482', 'latin1');
  const rdata = Buffer.concat([Buffer.from([cpu.length]), cpu, Buffer.from([0])]);
  const rr = Buffer.alloc(12 + rdata.length);
  rr.writeUInt16BE(0xc00c, 0);
  rr.writeUInt16BE(13, 2);
  rr.writeUInt16BE(1, 4);
  rr.writeUInt32BE(MINIMAL_ANY_TTL, 6);
  rr.writeUInt16BE(rdata.length, 10);
  rdata.copy(rr, 12);
  return rr;
})();

/**
 * minimal-any: answers qtype ANY with one synthesized HINFO record ("RFC8482", "") instead of
 * forwarding it (RFC 8482 §4.2), so an ANY query costs no upstream query and cannot be
 * amplified into the name's full record set. It sits below policy: a blocked name has already
 * been answered NODATA there and logged as blocked (docs/architecture.md "Decision order" "other blocked types →
 * NODATA"), so only allowed names reach it. Same answer over UDP and TCP (RFC 8482 §4.3 allows
 * the full set over TCP; a forwarder has none to give). The HINFO's class is the query's, or IN
 * when the query asked for class ANY (255). Not cached: it is one small copy per query.
 */
export function minimalAnyLink(counters: ResolverCounters): Middleware {
  return (next) => (ctx) => {
    const req = ctx.request;
    if (req.question.typeCode !== QTYPE_ANY) return next(ctx);
    counters.minimalAny++;
    const wire = allocResponse(req, Rcode.NOERROR, 0, 1, 0, 0, HINFO.length);
    const at = req.questionEnd;
    HINFO.copy(wire, at);
    const qclass = req.question.classCode;
    wire.writeUInt16BE(qclass === 255 ? 1 : qclass, at + 4);
    return { wire, rcode: Rcode.NOERROR, source: 'synthesized', context: ctx } satisfies PipelineResponse;
  };
}
