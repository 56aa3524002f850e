import type { Rule } from '../types.ts';

/**
 * Step 2, static routes (conditional forwarding): first the device exception's `Use Specific
 * Resolver` rules of a device (spec-notes §4: device exceptions come first), then the customer's longest
 * route suffix covering the qname → `allowed`/`static_route` with `forwardTo` its resolver. No
 * routes: passes at once.
 */
export const staticRouteRule: Rule = {
  name: 'static-route',
  decide(snapshot, identity, qname, _now, clientIp) {
    const own = identity.deviceRoutes;
    if (own !== null) {
      const hit = own.lookup(qname, clientIp);
      if (hit !== null) return hit;
    }
    const routes = snapshot.staticRoutes;
    if (routes.size === 0) return null;
    return routes.get(identity.customerId)?.lookup(qname) ?? null;
  },
};
