import { internalusers } from '@cordon/core';
import { Endpoints } from '@cordon/shared';
import type { FastifyInstance } from 'fastify';
import { registerEndpoint } from '../../http/endpoint.ts';
import type { AppDeps } from '../../types.ts';

/**
 * Internal-user routes (spec-notes §7 "Groups and internal users") under `/users/{id}/users`. Scope
 * `customer`: the guard checks customer `id` is visible; core scopes every query by tenant and
 * customer in SQL.
 */
export function registerInternalUserRoutes(app: FastifyInstance, deps: AppDeps): void {
  const u = Endpoints.internalusers;
  registerEndpoint(app, u.list, ({ caller, params, query }) =>
    internalusers.listInternalUsers(deps, caller, params.id, query),
  );
  registerEndpoint(app, u.get, ({ caller, params }) =>
    internalusers.getInternalUser(deps, caller, params.id, params.userId),
  );
  registerEndpoint(app, u.update, ({ caller, params, body }) =>
    internalusers.updateInternalUser(deps, caller, params.id, params.userId, body),
  );
  registerEndpoint(app, u.remove, ({ caller, params }) =>
    internalusers.deleteInternalUser(deps, caller, params.id, params.userId),
  );
}
