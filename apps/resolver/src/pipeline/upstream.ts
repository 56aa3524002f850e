import { parseResolverAddress } from '@cordon/shared';
import { type CompiledAnswer, compileAnswer, renderAnswer } from '../cache/compiled-answer.ts';
import { EdeCode, Flag } from '../dns/message.ts';
import type { Middleware } from '../request.ts';
import type { UpstreamClient, UpstreamResult, UpstreamServer } from '../upstream/client.ts';
import { servfailAnswer } from './answers.ts';

/** Parsed static-route targets kept at most; past it the memo starts over (targets are few). */
const TARGETS_MAX = 4096;

/**
 * upstream: the terminal link — forwards the wire question to the upstream resolvers, with the
 * client's DO and CD bits (RFC 4035 §3.2.2, RFC 6840 §5.9), and relays their answer: the sections as
 * received, compiled straight from the wire (cache/compiled-answer.ts: compressed, the upstream's
 * OPT replaced by ours carrying its Extended DNS Errors, AD kept for clients that ask for it).
 * No answer from any upstream → SERVFAIL with source `error` and EDE 22 No Reachable Authority
 * (every attempt timed out) or 23 Network Error (RFC 8914 §4.23–4.24); the cache link above may
 * still serve stale. A message that does not parse is SERVFAIL too.
 *
 * Target selection per query: a `static_route` decision (`forwardTo`, docs/architecture.md
 * "Decision order" step 2) sends the question to that resolver only ({@link UpstreamClient.resolveAt});
 * every other query goes to the configured upstreams. The common path pays one property read;
 * a target's text is parsed once and memoised.
 */
export function upstreamLink(client: UpstreamClient): Middleware {
  const targets = new Map<string, UpstreamServer | null>();
  const serverOf = (forwardTo: string): UpstreamServer | null => {
    let server = targets.get(forwardTo);
    if (server === undefined) {
      const parsed = parseResolverAddress(forwardTo);
      server = parsed === null ? null : { host: parsed.ip, port: parsed.port };
      if (targets.size >= TARGETS_MAX) targets.clear();
      targets.set(forwardTo, server);
    }
    return server;
  };
  return (_next) => async (ctx) => {
    const req = ctx.request;
    const question = {
      question: req.raw.subarray(12, req.questionEnd),
      dnssecOk: req.edns?.dnssecOk === true,
      checkingDisabled: (req.flags & Flag.CD) !== 0,
    };
    const forwardTo = ctx.decision?.forwardTo;
    let res: UpstreamResult | null;
    if (forwardTo === undefined) res = await client.resolve(question);
    else {
      const server = serverOf(forwardTo);
      res = server === null ? null : await client.resolveAt(server, question);
    }
    if (res === null) return servfailAnswer(ctx, EdeCode.NETWORK_ERROR);
    if (res.kind === 'failure') {
      return servfailAnswer(ctx, res.reason === 'timeout' ? EdeCode.NO_REACHABLE_AUTHORITY : EdeCode.NETWORK_ERROR);
    }
    let compiled: CompiledAnswer;
    try {
      compiled = compileAnswer(res.message, req.question.qname);
    } catch {
      return servfailAnswer(ctx, EdeCode.NETWORK_ERROR);
    }
    const wire = renderAnswer(req, compiled, 0);
    return { wire, rcode: compiled.rcode, source: 'upstream', context: ctx, compiled };
  };
}
