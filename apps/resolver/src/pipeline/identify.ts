import type { ResolverCounters } from '../metrics.ts';
import type { Middleware } from '../request.ts';
import type { IdentifiedBy } from '../snapshot/identities.ts';
import type { SnapshotStore } from '../snapshot/store.ts';
import { refusedAnswer } from './answers.ts';

/**
 * identify: who is asking → the identity (tenant, MSP, location or device and user, compiled
 * effective policy: built with the snapshot, a device's on its first query; nothing allocated per
 * query after that), stored on the context (docs/architecture.md "Identification"). In order: the
 * DoH path key, the EDNS(0) device key (option 65073, with the user of option 65074), the longest
 * prefix covering the source address.
 * Unknown clients get REFUSED and are only counted: Cordon is never an open resolver.
 */
export function identifyLink(store: SnapshotStore, counters: ResolverCounters): Middleware {
  const count = (how: IdentifiedBy) => {
    if (how === 'device') counters.byDeviceKey++;
    else if (how === 'location-key') counters.byLocationKey++;
  };
  return (next) => (ctx) => {
    const req = ctx.request;
    const edns = req.edns;
    const identity =
      req.pathKey === null && (edns === null || edns.deviceKey === null)
        ? store.identify(req.clientIp)
        : store.identifyQuery(
            {
              clientIp: req.clientIp,
              pathKey: req.pathKey,
              deviceKey: edns?.deviceKey ?? null,
              user: edns?.user ?? null,
            },
            count,
          );
    const next_ = { request: req, identity, decision: null };
    if (identity.kind === 'unknown') {
      counters.unknownClients++;
      return refusedAnswer(next_);
    }
    return next(next_);
  };
}
