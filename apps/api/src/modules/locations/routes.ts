import { locations } from '@cordon/core';
import { DNS_RATE_DEFAULTS, Endpoints } from '@cordon/shared';
import type { FastifyInstance } from 'fastify';
import { registerEndpoint } from '../../http/endpoint.ts';
import type { AppDeps } from '../../types.ts';

/**
 * Location routes (spec-notes §7 "Locations") under `/users/{id}/locations`, from `Endpoints.locations`.
 * Scope `customer`: the guard checks customer `id` is visible; core scopes every query by tenant and
 * customer in SQL. Updates are POSTs, as the spec's calls are.
 */
export function registerLocationRoutes(app: FastifyInstance, deps: AppDeps): void {
  const e = Endpoints.locations;
  // The operator's UDP limits (docs/operations.md "Response-rate limiting"); the guard has checked customer `id`.
  const limits = deps.dnsRateLimits ?? DNS_RATE_DEFAULTS;
  registerEndpoint(app, e.rateLimits, async () => ({
    location_qps: limits.locationQps === 0 ? null : limits.locationQps,
    unclaimed_rrl_qps: limits.rrlQps === 0 ? null : limits.rrlQps,
  }));
  registerEndpoint(app, e.list, ({ caller, params, query }) =>
    locations.listLocations(deps, caller, params.id, params.type, query),
  );
  registerEndpoint(app, e.createStatic, ({ caller, params, body }) =>
    locations.createStaticLocation(deps, caller, params.id, body),
  );
  registerEndpoint(app, e.getStatic, ({ caller, params }) =>
    locations.getStaticLocation(deps, caller, params.id, params.locId),
  );
  registerEndpoint(app, e.updateStatic, ({ caller, params, body }) =>
    locations.updateStaticLocation(deps, caller, params.id, params.locId, body),
  );
  registerEndpoint(app, e.removeStatic, ({ caller, params }) =>
    locations.deleteStaticLocation(deps, caller, params.id, params.locId),
  );
  registerEndpoint(app, e.listAddresses, ({ caller, params }) =>
    locations.listAddresses(deps, caller, params.id, params.locId),
  );
  registerEndpoint(app, e.addAddress, ({ caller, params, body }) =>
    locations.addAddress(deps, caller, params.id, params.locId, body.ip),
  );
  registerEndpoint(app, e.removeAddress, ({ caller, params }) =>
    locations.deleteAddress(deps, caller, params.id, params.locId, params.addrId),
  );
  registerEndpoint(app, e.create, ({ caller, params, body }) =>
    locations.createLocation(deps, caller, params.id, params.type, body),
  );
  registerEndpoint(app, e.get, ({ caller, params }) =>
    locations.getLocationOfType(deps, caller, params.id, params.type, params.locId),
  );
  registerEndpoint(app, e.update, ({ caller, params, body }) =>
    locations.updateLocationOfType(deps, caller, params.id, params.type, params.locId, body),
  );
  registerEndpoint(app, e.remove, ({ caller, params }) =>
    locations.deleteLocationOfType(deps, caller, params.id, params.type, params.locId),
  );
  registerEndpoint(app, e.dependants, ({ caller, params }) =>
    locations.locationDependants(deps, caller, params.id, params.type, params.locId),
  );
}

/**
 * The public DynDNS-compatible update URL (docs/decisions.md "Environment"): no token; the
 * location's key authenticates, and the client address is the default new address.
 */
export function registerPublicLocationRoutes(app: FastifyInstance, deps: AppDeps): void {
  registerEndpoint(app, Endpoints.locations.dynDnsUpdate, ({ query, request }) =>
    locations.dynDnsUpdate(deps, query.key, query.myip, request.ip),
  );
}
