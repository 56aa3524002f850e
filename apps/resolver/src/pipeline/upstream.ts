import { parseResolverAddress } from '@cordon/shared';
import dnsPacket, { type Packet } from 'dns-packet';
import { compileAnswer, renderAnswer } from '../cache/compiled-answer.ts';
import type { Middleware } from '../request.ts';
import type { UpstreamClient, UpstreamResult, UpstreamServer } from '../upstream/client.ts';
import { servfailAnswer } from './answers.ts';

/** Parsed static-route targets kept at most; past it the memo starts over (targets are few). */
const TARGETS_MAX = 4096;

/**
 * upstream: the terminal link — forwards the wire question to the upstream resolvers and relays
 * their answer: the sections as received (decoded once by dns-packet, compiled to wire bytes for
 * the cache link above), the upstream's OPT replaced by ours, AD kept. No answer from any
 * upstream → SERVFAIL with source `error` (the cache link above may still serve stale).
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
      checkingDisabled: (req.flags & 0x10) !== 0,
    };
    const forwardTo = ctx.decision?.forwardTo;
    let res: UpstreamResult | null;
    if (forwardTo === undefined) res = await client.resolve(question);
    else {
      const server = serverOf(forwardTo);
      res = server === null ? null : await client.resolveAt(server, question);
    }
    if (res === null || res.kind === 'failure') return servfailAnswer(ctx);
    let packet: Packet;
    try {
      packet = dnsPacket.decode(res.message);
    } catch {
      return servfailAnswer(ctx);
    }
    const compiled = compileAnswer(packet, req.question.qname);
    const wire = renderAnswer(req, compiled, 0);
    return { wire, rcode: compiled.rcode, source: 'upstream', context: ctx, upstream: compiled };
  };
}
