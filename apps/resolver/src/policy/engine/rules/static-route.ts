import type { Rule } from '../types.ts';

/**
 * Step 2, static routes (conditional forwarding): the customer's longest route suffix covering the
 * qname → `allowed`/`static_route` with `forwardTo` its resolver. No routes: passes at once.
 */
export const staticRouteRule: Rule = {
  name: 'static-route',
  decide(snapshot, identity, qname) {
    const routes = snapshot.staticRoutes;
    if (routes.size === 0) return null;
    return routes.get(identity.customerId)?.lookup(qname) ?? null;
  },
};
