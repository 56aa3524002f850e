import { groups } from '@cordon/core';
import { Endpoints } from '@cordon/shared';
import type { FastifyInstance } from 'fastify';
import { registerEndpoint } from '../../http/endpoint.ts';
import type { AppDeps } from '../../types.ts';

/**
 * Group routes (spec-notes §7 "Groups and internal users") under `/users/{id}/groups`. Scope `customer`: the guard checks customer `id` is visible; core scopes
 * every query by tenant and customer in SQL.
 */
export function registerGroupRoutes(app: FastifyInstance, deps: AppDeps): void {
  const g = Endpoints.groups;
  registerEndpoint(app, g.list, ({ caller, params, query }) => groups.listGroups(deps, caller, params.id, query));
  registerEndpoint(app, g.create, ({ caller, params, body }) => groups.createGroup(deps, caller, params.id, body));
  registerEndpoint(app, g.get, ({ caller, params }) => groups.getGroup(deps, caller, params.id, params.groupId));
  registerEndpoint(app, g.update, ({ caller, params, body }) =>
    groups.updateGroup(deps, caller, params.id, params.groupId, body),
  );
  registerEndpoint(app, g.remove, ({ caller, params, query }) =>
    groups.deleteGroup(deps, caller, params.id, params.groupId, query),
  );
  registerEndpoint(app, g.dependants, ({ caller, params }) =>
    groups.groupDependants(deps, caller, params.id, params.groupId),
  );
}
