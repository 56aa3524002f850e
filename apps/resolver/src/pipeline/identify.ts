import type { ResolverCounters } from '../metrics.ts';
import type { Middleware } from '../request.ts';
import type { SnapshotStore } from '../snapshot/store.ts';
import { refusedAnswer } from './answers.ts';

/**
 * identify: source address → the location's identity (tenant, MSP, location and compiled effective
 * policy, built with the snapshot: no allocation), once per query, stored on the context
 * (docs/architecture.md "Data plane"). Unknown clients get REFUSED and are only counted.
 */
export function identifyLink(store: SnapshotStore, counters: ResolverCounters): Middleware {
  return (next) => (ctx) => {
    const identity = store.identify(ctx.request.clientIp);
    const next_ = { request: ctx.request, identity, decision: null };
    if (identity.kind === 'unknown') {
      counters.unknownClients++;
      return refusedAnswer(next_);
    }
    return next(next_);
  };
}
