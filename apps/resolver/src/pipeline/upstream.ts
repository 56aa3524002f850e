import { buildResponse, Flag } from '../dns/message.ts';
import { questionEnd } from '../dns/wire.ts';
import type { Middleware } from '../request.ts';
import type { UpstreamClient } from '../upstream/client.ts';
import { servfailAnswer } from './answers.ts';

/**
 * upstream: the terminal link — forwards the question to the upstream resolvers and relays their
 * answer (sections as received, OPT replaced by ours). No answer from any upstream → SERVFAIL
 * with source `error` (the cache link above may still serve stale).
 */
export function upstreamLink(client: UpstreamClient): Middleware {
  return (_next) => async (ctx) => {
    const req = ctx.request;
    const res = await client.resolve({
      question: req.raw.subarray(12, questionEnd(req.raw)),
      dnssecOk: req.edns?.dnssecOk ?? false,
    });
    if (res === null) return servfailAnswer(ctx);
    const additionals = (res.additionals ?? []).filter((rr) => rr.type !== 'OPT');
    const message = buildResponse(req, {
      rcode: (res.flags ?? 0) & 0xf,
      flags: (res.flags ?? 0) & Flag.AD,
      answers: res.answers ?? [],
      authorities: res.authorities ?? [],
      additionals,
    });
    return { message, source: 'upstream', context: ctx };
  };
}
