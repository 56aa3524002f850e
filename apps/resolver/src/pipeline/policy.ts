import type { ResolverCounters } from '../metrics.ts';
import { decide } from '../policy/decide.ts';
import type { SnapshotStore } from '../policy/snapshot.ts';
import type { Middleware } from '../request.ts';
import { type BlockAddresses, blockedAnswer } from './answers.ts';

/**
 * policy: the identified client's compiled policy decides the qname (DESIGN.md §8 decision order,
 * categories and unclassified for now). Blocked → a synthesized answer, and the chain stops here,
 * so nothing below (cache, upstream) ever sees a blocked name. Allowed → `next` with the decision.
 */
export function policyLink(store: SnapshotStore, addresses: BlockAddresses, counters: ResolverCounters): Middleware {
  return (next) => (ctx) => {
    const identity = ctx.identity;
    const policy =
      identity?.kind === 'ok' && identity.policyId !== null ? store.tenants.policies.get(identity.policyId) : null;
    const decision = decide(store.categories, policy, ctx.request.question.qname);
    if (decision.action === 'blocked') {
      counters.blocked++;
      return Promise.resolve(blockedAnswer({ ...ctx, decision }, addresses));
    }
    counters.allowed++;
    return next({ ...ctx, decision });
  };
}
