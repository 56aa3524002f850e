import { allocResponse, Rcode } from '../dns/message.ts';
import type { ResolverCounters } from '../metrics.ts';
import type { Middleware, PipelineResponse } from '../request.ts';
import { refusedAnswer } from './answers.ts';

/** qclass IN (RFC 1035 §3.2.4): the only class Cordon forwards. */
const QCLASS_IN = 1;
/** qclass CH, CHAOS (RFC 1035 §3.2.4). */
const QCLASS_CH = 3;
/** qtype TXT (RFC 1035 §3.3.14). */
const QTYPE_TXT = 16;

/**
 * What the resolver says about itself over CHAOS TXT (docs/operations.md "CHAOS queries"): the
 * conventional `version.bind` / `version.server` and `hostname.bind` / `id.server` (RFC 4892 §2)
 * names. An empty text answers REFUSED, the default: nothing about the operator's software or
 * hosts is revealed unless the operator chooses to.
 */
export interface ChaosIdentity {
  /** The text of `version.bind` and `version.server`; '' to refuse them. */
  readonly version: string;
  /** The text of `hostname.bind` and `id.server`; '' to refuse them. */
  readonly identity: string;
}

/** The TXT record body for `text`: owner 0xC00C (the question), class CH, TTL 0, one character-string per 255 bytes (RFC 1035 §3.3). */
function txtRecord(text: string): Buffer | null {
  if (text === '') return null;
  const bytes = Buffer.from(text, 'utf8');
  const strings: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += 255) {
    const part = bytes.subarray(at, Math.min(at + 255, bytes.length));
    strings.push(Buffer.from([part.length]), part);
  }
  const rdata = Buffer.concat(strings);
  const rr = Buffer.alloc(12 + rdata.length);
  rr.writeUInt16BE(0xc00c, 0);
  rr.writeUInt16BE(QTYPE_TXT, 2);
  rr.writeUInt16BE(QCLASS_CH, 4);
  rr.writeUInt32BE(0, 6);
  rr.writeUInt16BE(rdata.length, 10);
  rdata.copy(rr, 12);
  return rr;
}

/**
 * chaos: a question of any class but IN is never forwarded — an upstream's `version.bind` would
 * tell every customer which software the operator runs. CHAOS TXT `version.bind`,
 * `version.server`, `hostname.bind` and `id.server` are answered locally from `identity` (when its
 * text is not empty); every other non-IN question gets REFUSED with EDE 18 Prohibited. It sits
 * below identify (unknown clients are already REFUSED) and above policy (these are not domain
 * names to filter). IN questions pass at once.
 */
export function chaosLink(identity: ChaosIdentity, counters: ResolverCounters): Middleware {
  const version = txtRecord(identity.version);
  const host = txtRecord(identity.identity);
  const records = new Map<string, Buffer | null>([
    ['version.bind', version],
    ['version.server', version],
    ['hostname.bind', host],
    ['id.server', host],
  ]);
  return (next) => (ctx) => {
    const q = ctx.request.question;
    if (q.classCode === QCLASS_IN) return next(ctx);
    counters.nonInternetClass++;
    const record = q.classCode === QCLASS_CH && q.typeCode === QTYPE_TXT ? records.get(q.qname) : undefined;
    if (record === undefined || record === null) return refusedAnswer(ctx);
    const wire = allocResponse(ctx.request, Rcode.NOERROR, 0, 1, 0, 0, record.length);
    record.copy(wire, ctx.request.questionEnd);
    return { wire, rcode: Rcode.NOERROR, source: 'synthesized', context: ctx } satisfies PipelineResponse;
  };
}
