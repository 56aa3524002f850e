import type { ResolverCounters } from '../metrics.ts';
import { decide } from '../policy/decide.ts';
import type { SnapshotStore } from '../policy/snapshot.ts';
import type { Middleware } from '../request.ts';
import { type BlockAddresses, blockedAnswer, blockedTemplates } from './answers.ts';

/**
 * policy: the identified client's compiled policy decides the qname (DESIGN.md §8 decision order,
 * categories and unclassified for now). Blocked → a synthesized answer (wire template, no
 * promise), and the chain stops here, so nothing below (cache, upstream) ever sees a blocked
 * name. Allowed → `next` with the decision.
 * @throws when a block address is not a valid IP literal (at pipeline construction)
 */
export function policyLink(store: SnapshotStore, addresses: BlockAddresses, counters: ResolverCounters): Middleware {
  const templates = blockedTemplates(addresses);
  return (next) => (ctx) => {
    const identity = ctx.identity;
    const policy =
      identity?.kind === 'ok' && identity.policyId !== null ? store.tenants.policies.get(identity.policyId) : null;
    const decision = decide(store.categories, policy, ctx.request.question.qname);
    const decided = { request: ctx.request, identity, decision };
    if (decision.action === 'blocked') {
      counters.blocked++;
      return blockedAnswer(decided, templates);
    }
    counters.allowed++;
    return next(decided);
  };
}
