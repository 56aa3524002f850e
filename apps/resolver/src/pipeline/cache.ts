import { AnswerCache, STALE_TTL } from '../cache/answer-cache.ts';
import { renderAnswer } from '../cache/compiled-answer.ts';
import { Rcode } from '../dns/message.ts';
import type { ResolverCounters } from '../metrics.ts';
import type { DnsAnswer, Middleware, QueryContext } from '../request.ts';

/**
 * cache: answers from the shared answer cache (STYLE.md §6) with the client's id and question and
 * decremented TTLs — synchronously, one Buffer copy and a TTL patch; on a miss asks `next` and
 * stores what the upstream said. When the upstream fails (no answer, or SERVFAIL) an expired
 * entry is served stale with TTL 30 (RFC 8767).
 */
export function cacheLink(cache: AnswerCache, counters: ResolverCounters): Middleware {
  return (next) => (ctx) => {
    const req = ctx.request;
    const q = req.question;
    const key = AnswerCache.key(q.qname, q.typeCode, q.classCode, req.edns?.dnssecOk === true);
    const hit = cache.get(key);
    if (hit !== undefined) {
      counters.cacheHits++;
      const wire = renderAnswer(req, hit.answer, cache.elapsedSeconds(hit));
      return { wire, rcode: hit.answer.rcode, source: 'cache', context: ctx } satisfies DnsAnswer;
    }
    counters.cacheMisses++;
    const answer = next(ctx);
    return answer instanceof Promise ? answer.then((a) => afterUpstream(a, key, ctx)) : afterUpstream(answer, key, ctx);
  };

  function afterUpstream(answer: DnsAnswer, key: string, ctx: QueryContext): DnsAnswer {
    if (answer.source === 'upstream' && answer.rcode !== Rcode.SERVFAIL) {
      if (answer.upstream) cache.set(key, answer.upstream);
      return answer;
    }
    if (answer.source === 'upstream' || answer.source === 'error') {
      const stale = cache.getStale(key);
      if (stale) {
        counters.staleAnswers++;
        const wire = renderAnswer(ctx.request, stale.answer, 0, STALE_TTL);
        return { wire, rcode: stale.answer.rcode, source: 'stale', context: answer.context };
      }
    }
    return answer;
  }
}
