import { policies } from '@cordon/core';
import { Endpoints } from '@cordon/shared';
import type { FastifyInstance } from 'fastify';
import { registerEndpoint } from '../../http/endpoint.ts';
import type { AppDeps } from '../../types.ts';

/**
 * Policy routes (spec §7 "Policies"), from `Endpoints.policies`: `/policies`, `/policies/{id}`,
 * `/policies/{id}/categories` and the customer default policy `/policies/default[/categories]?user_id=`.
 * Policies are addressed by their own ids (scope `owned`): core filters every query by the caller's
 * tenant in SQL. The static `default` paths win over `/policies/:id` in the router.
 */
export function registerPolicyRoutes(app: FastifyInstance, deps: AppDeps): void {
  const e = Endpoints.policies;
  const defaultId = (caller: Parameters<typeof policies.defaultPolicyIdFor>[1], userId: number | undefined) =>
    policies.defaultPolicyIdFor(deps, caller, userId);
  registerEndpoint(app, e.list, ({ caller, query }) => policies.listPolicies(deps, caller, query));
  registerEndpoint(app, e.create, ({ caller, body }) => policies.createPolicy(deps, caller, body));
  registerEndpoint(app, e.getDefault, async ({ caller, query }) =>
    policies.getPolicy(deps, caller, await defaultId(caller, query.user_id)),
  );
  registerEndpoint(app, e.updateDefault, async ({ caller, query, body }) =>
    policies.updatePolicy(deps, caller, await defaultId(caller, query.user_id), body),
  );
  registerEndpoint(app, e.getDefaultCategories, async ({ caller, query }) =>
    policies.getPolicyCategories(deps, caller, await defaultId(caller, query.user_id)),
  );
  // The spec lists GET and POST for the default policy's categories; PUT matches /policies/{id}/categories.
  for (const endpoint of [e.setDefaultCategories, e.postDefaultCategories]) {
    registerEndpoint(app, endpoint, async ({ caller, query, body }) =>
      policies.setPolicyCategories(deps, caller, await defaultId(caller, query.user_id), body),
    );
  }
  registerEndpoint(app, e.get, ({ caller, params }) => policies.getPolicy(deps, caller, params.id));
  registerEndpoint(app, e.update, ({ caller, params, body }) => policies.updatePolicy(deps, caller, params.id, body));
  registerEndpoint(app, e.remove, ({ caller, params }) => policies.deletePolicy(deps, caller, params.id));
  registerEndpoint(app, e.getCategories, ({ caller, params }) => policies.getPolicyCategories(deps, caller, params.id));
  registerEndpoint(app, e.setCategories, ({ caller, params, body }) =>
    policies.setPolicyCategories(deps, caller, params.id, body),
  );
}
