import { AnswerCache, STALE_TTL } from '../cache/answer-cache.ts';
import { type CompiledAnswer, renderAnswer } from '../cache/compiled-answer.ts';
import { batchReceiveTime, EdeCode, edeOption, Flag, Rcode } from '../dns/message.ts';
import type { ResolverCounters } from '../metrics.ts';
import type { DnsRequest, Middleware, PipelineResponse, QueryContext } from '../request.ts';
import { servfailAnswer } from './answers.ts';

const STALE_EDE = edeOption(EdeCode.STALE_ANSWER);

/**
 * cache: answers from the shared answer cache (docs/contributing.md "Conventions" 6) with the client's id and question and
 * decremented TTLs — synchronously, one copy and a TTL patch; on a miss asks `next` and
 * stores what the upstream said. When the upstream fails (no answer, or SERVFAIL) an expired
 * entry is served stale with TTL 30 (RFC 8767).
 *
 * Identical misses coalesce: while one question (same cache key: qname, qtype, qclass, DO, CD) is in
 * flight upstream, later askers wait for that answer instead of sending their own, and each gets
 * it rendered with its own id, question spelling and EDNS (source `upstream`; counted in
 * `coalesced`, not `cacheMisses`). If the shared query fails they get stale or SERVFAIL like the
 * first asker. So a burst of one name costs one upstream query (docs/architecture.md "Data plane").
 *
 * A `static_route` decision (`forwardTo`, decision order step 2) passes straight through: its answer
 * comes from one customer's private resolver, so it is never stored in, served from or coalesced
 * with the shared, tenant-agnostic cache (docs/decisions.md "Static routes"). Neither is a question
 * whose qname text does not fix its wire form ({@link DnsRequest.irregularName}): a compiled answer's
 * compression pointers fit one question layout.
 *
 * Stale answers carry EDE 3 Stale Answer (RFC 8914 §4.4) besides the upstream's own EDEs. Every
 * answer carries the compiled answer it was rendered from, for the answer check above.
 */
export function cacheLink(cache: AnswerCache, counters: ResolverCounters): Middleware {
  /** cache key → the compiled answer of the upstream query in flight for it (null: it failed). */
  const inflight = new Map<string, Promise<CompiledAnswer | null>>();
  return (next) => (ctx) => {
    const req = ctx.request;
    if (ctx.decision?.forwardTo !== undefined || req.irregularName === true) return next(ctx);
    const q = req.question;
    const key = AnswerCache.key(
      q.qname,
      q.typeCode,
      q.classCode,
      req.edns?.dnssecOk === true,
      (req.flags & Flag.CD) !== 0,
    );
    // One wall-clock reading per receive batch rather than two per hit (dns/message.ts batchReceiveTime).
    const now = cache.wallClock && batchReceiveTime.set ? batchReceiveTime.wall : cache.now();
    const hit = cache.get(key, now);
    if (hit !== undefined) {
      counters.cacheHits++;
      const wire = renderAnswer(req, hit.answer, cache.elapsedSeconds(hit, now));
      return {
        wire,
        rcode: hit.answer.rcode,
        source: 'cache',
        context: ctx,
        compiled: hit.answer,
      } satisfies PipelineResponse;
    }
    const pending = inflight.get(key);
    if (pending !== undefined) {
      counters.coalesced++;
      return pending.then((compiled) => shared(compiled, key, ctx));
    }
    counters.cacheMisses++;
    const answer = next(ctx);
    if (!(answer instanceof Promise)) return afterUpstream(answer, key, ctx);
    const compiled = answer.then(
      (a) => (a.source === 'upstream' && a.rcode !== Rcode.SERVFAIL && a.compiled ? a.compiled : null),
      () => null,
    );
    inflight.set(key, compiled);
    void compiled.then(() => {
      if (inflight.get(key) === compiled) inflight.delete(key);
    });
    return answer.then((a) => afterUpstream(a, key, ctx));
  };

  /** A coalesced asker's answer: the shared upstream answer rendered for it, else stale / SERVFAIL. */
  function shared(compiled: CompiledAnswer | null, key: string, ctx: QueryContext): PipelineResponse {
    if (compiled === null) return afterUpstream(servfailAnswer(ctx), key, ctx);
    const wire = renderAnswer(ctx.request, compiled, 0);
    return { wire, rcode: compiled.rcode, source: 'upstream', context: ctx, compiled };
  }

  function afterUpstream(answer: PipelineResponse, key: string, ctx: QueryContext): PipelineResponse {
    if (answer.source === 'upstream' && answer.rcode !== Rcode.SERVFAIL) {
      if (answer.compiled) cache.set(key, answer.compiled);
      return answer;
    }
    if (answer.source === 'upstream' || answer.source === 'error') {
      const stale = cache.getStale(key);
      if (stale) {
        counters.staleAnswers++;
        const ede = stale.answer.ede === null ? STALE_EDE : Buffer.concat([STALE_EDE, stale.answer.ede]);
        const wire = renderAnswer(ctx.request, stale.answer, 0, STALE_TTL, ede);
        return { wire, rcode: stale.answer.rcode, source: 'stale', context: answer.context, compiled: stale.answer };
      }
    }
    return answer;
  }
}
