import { AnswerCache } from '../cache/answer-cache.ts';
import { buildResponse, Rcode, rcodeOf } from '../dns/message.ts';
import type { ResolverCounters } from '../metrics.ts';
import type { DnsAnswer, Middleware } from '../request.ts';

/**
 * cache: answers from the shared answer cache (STYLE.md §6) with the client's id and question and
 * decremented TTLs; on a miss asks `next` and stores what the upstream said. When the upstream
 * fails (no answer, or SERVFAIL) an expired entry is served stale with TTL 30 (RFC 8767).
 */
export function cacheLink(cache: AnswerCache, counters: ResolverCounters): Middleware {
  return (next) => async (ctx) => {
    const req = ctx.request;
    const q = req.question;
    const key = AnswerCache.key(q.qname, q.typeCode, q.class, req.edns?.dnssecOk ?? false);
    const hit = cache.get(key, q.name);
    if (hit) {
      counters.cacheHits++;
      return { message: buildResponse(req, hit), source: 'cache', context: ctx };
    }
    counters.cacheMisses++;
    const answer = await next(ctx);
    if (answer.source === 'upstream' && rcodeOf(answer.message) !== Rcode.SERVFAIL) {
      cache.set(key, answer.message);
      return answer;
    }
    if (answer.source === 'upstream' || answer.source === 'error') {
      const stale = cache.getStale(key, q.name);
      if (stale) {
        counters.staleAnswers++;
        return { message: buildResponse(req, stale), source: 'stale', context: answer.context } satisfies DnsAnswer;
      }
    }
    return answer;
  };
}
