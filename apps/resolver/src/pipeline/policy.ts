import { DECISIONS, evaluate } from '@cordon/policy';
import type { ResolverCounters } from '../metrics.ts';
import type { Middleware } from '../request.ts';
import type { SnapshotStore } from '../snapshot/store.ts';
import { type BlockAddresses, blockedAnswer, blockedTemplates } from './answers.ts';

/**
 * policy: the policy engine decides the qname for the identified client (`evaluate`,
 * docs/architecture.md "Decision order"). Blocked → a synthesized answer (wire template, no
 * promise), and the chain stops here, so nothing below (cache, upstream) ever sees a blocked
 * name. Allowed → `next` with the decision; a `static_route` decision (`forwardTo`) then skips the
 * shared cache and is sent to its route's resolver only (pipeline/cache.ts, pipeline/upstream.ts).
 * @throws when a block address is not a valid IP literal (at pipeline construction)
 */
export function policyLink(store: SnapshotStore, addresses: BlockAddresses, counters: ResolverCounters): Middleware {
  const templates = blockedTemplates(addresses);
  return (next) => (ctx) => {
    const identity = ctx.identity;
    const decision =
      identity?.kind === 'ok'
        ? evaluate(
            store,
            identity,
            { qname: ctx.request.question.qname, clientIp: ctx.request.clientIp },
            ctx.request.receivedAt,
          )
        : DECISIONS.allowedDefault;
    const decided = { request: ctx.request, identity, decision };
    if (decision.action === 'blocked') {
      counters.blocked++;
      return blockedAnswer(decided, templates);
    }
    counters.allowed++;
    return next(decided);
  };
}
