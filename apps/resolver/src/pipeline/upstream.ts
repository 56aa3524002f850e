import { compileAnswer, renderAnswer } from '../cache/compiled-answer.ts';
import type { Middleware } from '../request.ts';
import type { UpstreamClient } from '../upstream/client.ts';
import { servfailAnswer } from './answers.ts';

/**
 * upstream: the terminal link — forwards the wire question to the upstream resolvers and relays
 * their answer: the sections as received (decoded once by dns-packet, compiled to wire bytes for
 * the cache link above), the upstream's OPT replaced by ours, AD kept. No answer from any
 * upstream → SERVFAIL with source `error` (the cache link above may still serve stale).
 */
export function upstreamLink(client: UpstreamClient): Middleware {
  return (_next) => async (ctx) => {
    const req = ctx.request;
    const res = await client.resolve({
      question: req.raw.subarray(12, req.questionEnd),
      dnssecOk: req.edns?.dnssecOk === true,
    });
    if (res === null) return servfailAnswer(ctx);
    const compiled = compileAnswer(res, req.question.qname);
    const wire = renderAnswer(req, compiled, 0);
    return { wire, rcode: compiled.rcode, source: 'upstream', context: ctx, upstream: compiled };
  };
}
