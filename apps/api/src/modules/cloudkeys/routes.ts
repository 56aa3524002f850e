import { cloudkeys } from '@cordon/core';
import { Endpoints } from '@cordon/shared';
import type { FastifyInstance } from 'fastify';
import { registerEndpoint } from '../../http/endpoint.ts';
import type { AppDeps } from '../../types.ts';

/**
 * Cloud-key routes (spec-notes §7 "Cloud keys and history") under `/users/{id}/cloudkeys`, from
 * `Endpoints.cloudkeys`. Scope `customer`: the guard checks customer `id` is visible; core scopes
 * every query by tenant and customer in SQL. Updates are POSTs, as the spec's calls are.
 */
export function registerCloudKeyRoutes(app: FastifyInstance, deps: AppDeps): void {
  const e = Endpoints.cloudkeys;
  registerEndpoint(app, e.list, ({ caller, params, query }) => cloudkeys.listCloudKeys(deps, caller, params.id, query));
  registerEndpoint(app, e.create, ({ caller, params, body }) =>
    cloudkeys.createCloudKey(deps, caller, params.id, body),
  );
  registerEndpoint(app, e.get, ({ caller, params }) => cloudkeys.getCloudKey(deps, caller, params.id, params.keyId));
  registerEndpoint(app, e.update, ({ caller, params, body }) =>
    cloudkeys.updateCloudKey(deps, caller, params.id, params.keyId, body),
  );
  registerEndpoint(app, e.remove, ({ caller, params }) =>
    cloudkeys.deleteCloudKey(deps, caller, params.id, params.keyId),
  );
}
