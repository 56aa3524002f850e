import { staticroutes } from '@cordon/core';
import { Endpoints } from '@cordon/shared';
import type { FastifyInstance } from 'fastify';
import { registerEndpoint } from '../../http/endpoint.ts';
import type { AppDeps } from '../../types.ts';

/**
 * Static-route routes (spec-notes §7 `/staticroutes[/{id}]`), from `Endpoints.staticroutes`. Scope
 * `owned`: the customer comes from `user_id` (checked visible by core) or, by id, from the row,
 * scoped by tenant in SQL. Updates are POSTs, as the spec's are.
 */
export function registerStaticRouteRoutes(app: FastifyInstance, deps: AppDeps): void {
  const e = Endpoints.staticroutes;
  registerEndpoint(app, e.list, ({ caller, query }) => staticroutes.listStaticRoutes(deps, caller, query));
  registerEndpoint(app, e.create, ({ caller, query, body }) =>
    staticroutes.createStaticRoute(deps, caller, query.user_id, body),
  );
  registerEndpoint(app, e.get, ({ caller, params }) => staticroutes.getStaticRoute(deps, caller, params.id));
  registerEndpoint(app, e.update, ({ caller, params, body }) =>
    staticroutes.updateStaticRoute(deps, caller, params.id, body),
  );
  registerEndpoint(app, e.remove, ({ caller, params }) => staticroutes.deleteStaticRoute(deps, caller, params.id));
}
