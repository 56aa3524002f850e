import { policies } from '@cordon/core';
import { Endpoints } from '@cordon/shared';
import type { FastifyInstance } from 'fastify';
import { registerEndpoint } from '../../http/endpoint.ts';
import type { AppDeps } from '../../types.ts';

/**
 * Policy routes (spec-notes §7 "Policies"), from `Endpoints.policies`: `/policies`, `/policies/{id}`,
 * `/policies/{id}/categories`, `PATCH /users/{id}/policies/{policyId}` and the default policies
 * `/policies/default[/categories[/{id}]]` (`user_id`, `msp_id` or the system's; docs/api.md "Default policies"). Policies are addressed by their own ids (scope `owned`): core filters every query by the caller's
 * tenant in SQL. The static `default` paths win over `/policies/:id` in the router.
 */
export function registerPolicyRoutes(app: FastifyInstance, deps: AppDeps): void {
  const e = Endpoints.policies;
  registerEndpoint(app, e.list, ({ caller, query }) => policies.listPolicies(deps, caller, query));
  registerEndpoint(app, e.create, ({ caller, body }) => policies.createPolicy(deps, caller, body));
  registerEndpoint(app, e.getDefault, ({ caller, query }) => policies.getDefaultPolicy(deps, caller, query));
  registerEndpoint(app, e.updateDefault, ({ caller, query, body }) =>
    policies.updateDefaultPolicy(deps, caller, query, body),
  );
  registerEndpoint(app, e.getDefaultCategories, ({ caller, query }) =>
    policies.getDefaultPolicyCategories(deps, caller, query),
  );
  // The spec lists GET and POST for the default policy's categories; PUT matches /policies/{id}/categories.
  for (const endpoint of [e.setDefaultCategories, e.postDefaultCategories]) {
    registerEndpoint(app, endpoint, ({ caller, query, body }) =>
      policies.setDefaultPolicyCategories(deps, caller, query, body),
    );
  }
  registerEndpoint(app, e.getDefaultCategory, ({ caller, params, query }) =>
    policies.getDefaultPolicyCategory(deps, caller, query, params.id),
  );
  registerEndpoint(app, e.setCategoryLevel, ({ caller, params, body }) =>
    policies.setCategoryLevel(deps, caller, params.id, body),
  );
  registerEndpoint(app, e.get, ({ caller, params }) => policies.getPolicy(deps, caller, params.id));
  registerEndpoint(app, e.update, ({ caller, params, body }) => policies.updatePolicy(deps, caller, params.id, body));
  registerEndpoint(app, e.remove, ({ caller, params, query }) => policies.deletePolicy(deps, caller, params.id, query));
  registerEndpoint(app, e.dependants, ({ caller, params }) => policies.policyDependants(deps, caller, params.id));
  registerEndpoint(app, e.patch, ({ caller, params, body }) =>
    policies.patchCustomerPolicy(deps, caller, params.id, params.policyId, body),
  );
  registerEndpoint(app, e.getCategories, ({ caller, params }) => policies.getPolicyCategories(deps, caller, params.id));
  registerEndpoint(app, e.setCategories, ({ caller, params, body }) =>
    policies.setPolicyCategories(deps, caller, params.id, body),
  );
}
