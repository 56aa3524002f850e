import { safeSearchTarget } from '@cordon/policy';
import dnsPacket, { type Answer } from 'dns-packet';
import { codec } from '../dns/codec.ts';
import { allocResponse, Rcode } from '../dns/message.ts';
import type { DnsRequest, Handler, Middleware, PipelineResponse, QueryContext } from '../request.ts';
import { servfailAnswer } from './answers.ts';

/** TTL of the synthesized CNAME, seconds: like a blocked answer's, so turning safe search off shows within a minute. */
export const SAFE_SEARCH_CNAME_TTL = 60;

const QTYPE_CNAME = 5;
const QTYPE_ANY = 255;
const QCLASS_IN = 1;

/**
 * safe-search (docs/architecture.md "Decision order" "Answers"; docs/architecture.md "Safe search"): when the client's
 * policy turns safe search on and the allowed qname is a search engine's host
 * (`policy/safe-search.ts`), the answer is a CNAME from the qname to the engine's safe-search host
 * (TTL {@link SAFE_SEARCH_CNAME_TTL}), followed by that host's records of the asked type, resolved
 * through the rest of the chain (answer cache, upstream) under the target's own name, so the cache
 * stays tenant-agnostic. A CNAME question gets the CNAME alone; ANY goes on unchanged (minimal-any
 * answers it); names a static route forwards are left alone. Every other query passes at once.
 */
export function safeSearchLink(): Middleware {
  return (next) => (ctx) => {
    const identity = ctx.identity;
    if (identity === null || identity.kind !== 'ok' || identity.policy === null || !identity.policy.safeSearch) {
      return next(ctx);
    }
    const q = ctx.request.question;
    if (q.classCode !== QCLASS_IN || q.typeCode === QTYPE_ANY || ctx.decision?.forwardTo !== undefined)
      return next(ctx);
    const target = safeSearchTarget(q.qname);
    if (target === undefined) return next(ctx);
    const cname = cnameRecord(target);
    if (q.typeCode === QTYPE_CNAME) return synthesize(ctx, Rcode.NOERROR, [cname], [], [], 'synthesized');
    return resolveTarget(next, ctx, target, cname);
  };
}

/** The CNAME record from the qname (pointer 0xC00C to the question: RFC 1035 §4.1.4) to `target`. */
function cnameRecord(target: string): Buffer {
  const rr = codec.answer.encode({ name: '.', type: 'CNAME', class: 'IN', ttl: SAFE_SEARCH_CNAME_TTL, data: target });
  return Buffer.concat([Buffer.from([0xc0, 0x0c]), rr.subarray(1)]);
}

/** A query for `target` with the client's type, class, flags and EDNS: what the chain below resolves. */
function targetRequest(req: DnsRequest, target: string): DnsRequest {
  const q = req.question;
  const name = codec.name.encode(target);
  const raw = Buffer.alloc(12 + name.length + 4);
  raw.writeUInt16BE(req.id, 0);
  raw.writeUInt16BE(req.flags, 2);
  raw.writeUInt16BE(1, 4);
  name.copy(raw, 12);
  raw.writeUInt16BE(q.typeCode, 12 + name.length);
  raw.writeUInt16BE(q.classCode, 14 + name.length);
  return {
    ...req,
    raw,
    questionEnd: raw.length,
    question: { ...q, name: target, qname: target },
  };
}

async function resolveTarget(
  next: Handler,
  ctx: QueryContext,
  target: string,
  cname: Buffer,
): Promise<PipelineResponse> {
  const inner = await next({
    request: targetRequest(ctx.request, target),
    identity: ctx.identity,
    decision: ctx.decision,
  });
  if (inner.rcode === Rcode.SERVFAIL) return servfailAnswer(ctx);
  let packet: dnsPacket.Packet;
  try {
    packet = dnsPacket.decode(inner.wire);
  } catch {
    return servfailAnswer(ctx);
  }
  const encode = (records: Answer[] | undefined) => {
    const out: Buffer[] = [];
    for (const rr of records ?? []) {
      if (rr.type === 'OPT') continue;
      try {
        out.push(codec.answer.encode(rr));
      } catch {
        // A record dns-packet cannot re-encode is left out, as the cache does.
      }
    }
    return out;
  };
  const source = inner.source === 'synthesized' ? 'upstream' : inner.source;
  return synthesize(
    ctx,
    inner.rcode,
    [cname, ...encode(packet.answers)],
    encode(packet.authorities),
    encode(packet.additionals),
    source,
  );
}

function synthesize(
  ctx: QueryContext,
  rcode: number,
  answers: Buffer[],
  authorities: Buffer[],
  additionals: Buffer[],
  source: PipelineResponse['source'],
): PipelineResponse {
  const body = Buffer.concat([...answers, ...authorities, ...additionals]);
  const wire = allocResponse(
    ctx.request,
    rcode,
    0,
    answers.length,
    authorities.length,
    additionals.length,
    body.length,
  );
  body.copy(wire, ctx.request.questionEnd);
  return { wire, rcode, source, context: ctx };
}
