import type { ResolverCounters } from '../metrics.ts';
import { identifyClient, type SnapshotStore } from '../policy/snapshot.ts';
import type { Middleware } from '../request.ts';
import { refusedAnswer } from './answers.ts';

/**
 * identify: source address → location → customer and effective policy, once per query, stored on
 * the context (STYLE.md §3). Unknown clients get REFUSED (DESIGN.md §8) and are only counted.
 */
export function identifyLink(store: SnapshotStore, counters: ResolverCounters): Middleware {
  return (next) => (ctx) => {
    const identity = identifyClient(store.tenants, ctx.request.clientIp);
    const next_ = { request: ctx.request, identity, decision: null };
    if (identity.kind === 'unknown') {
      counters.unknownClients++;
      return refusedAnswer(next_);
    }
    return next(next_);
  };
}
