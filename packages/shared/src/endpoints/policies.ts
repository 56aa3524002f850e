import { Role } from '../roles.ts';
import { deletedResponseSchema, idParamsSchema, listOf } from '../schemas/common.ts';
import { dependantsResponseSchema, policyDeleteQuerySchema } from '../schemas/dependants.ts';
import {
  categoryIdParamsSchema,
  categoryLevelUpdateSchema,
  customerPolicyParamsSchema,
  defaultPolicyQuerySchema,
  defaultPolicySchema,
  policyCategoriesUpdateSchema,
  policyCategoryListSchema,
  policyCategorySchema,
  policyCreateSchema,
  policyListQuerySchema,
  policyPatchSchema,
  policySchema,
  policyUpdateSchema,
} from '../schemas/policy.ts';
import { defineEndpoint } from './define.ts';

const tag = 'policies';
/** Policies are addressed by their own ids: the repository filters every query by the caller's tenant. */
const access = { scope: 'owned', roles: [Role.System, Role.Msp, Role.Customer] } as const;

/**
 * Policies (spec-notes §7 "Policies"): `/policies`, `/policies/{id}`, `/policies/{id}/categories` and the
 * default policies `/policies/default[/categories[/{id}]]` (`user_id`, `msp_id` or the system's). The category `allowed` flag is
 * inverted on the wire (docs/api.md).
 */
export const policyEndpoints = {
  list: defineEndpoint({
    method: 'GET',
    path: '/policies',
    query: policyListQuerySchema,
    response: listOf(policySchema),
    status: 200,
    access,
    tag,
    summary: "A customer's policies (spec-notes §7 Policies).",
  }),
  create: defineEndpoint({
    method: 'POST',
    path: '/policies',
    body: policyCreateSchema,
    response: policySchema,
    status: 201,
    access,
    tag,
    summary: 'Create a policy (spec-notes §7 Policies).',
  }),
  getDefault: defineEndpoint({
    method: 'GET',
    path: '/policies/default',
    query: defaultPolicyQuerySchema,
    response: defaultPolicySchema,
    status: 200,
    access,
    tag,
    summary:
      "A default policy: a customer's (user_id), an MSP's global one (msp_id) or the system's (spec-notes §7 Policies).",
  }),
  updateDefault: defineEndpoint({
    method: 'PUT',
    path: '/policies/default',
    query: defaultPolicyQuerySchema,
    body: policyUpdateSchema,
    response: defaultPolicySchema,
    status: 200,
    access,
    tag,
    summary:
      "Update a default policy (user_id, msp_id or the system's); a named level resets its categories (spec-notes §7 Policies).",
  }),
  getDefaultCategories: defineEndpoint({
    method: 'GET',
    path: '/policies/default/categories',
    query: defaultPolicyQuerySchema,
    response: policyCategoryListSchema,
    status: 200,
    access,
    tag,
    summary: "The default policy's categories (spec-notes §7 Policies; inverted `allowed`).",
  }),
  setDefaultCategories: defineEndpoint({
    method: 'PUT',
    path: '/policies/default/categories',
    query: defaultPolicyQuerySchema,
    body: policyCategoriesUpdateSchema,
    response: policyCategoryListSchema,
    status: 200,
    access,
    tag,
    summary: "Set the default policy's categories (spec-notes §7 Policies).",
  }),
  /** The spec lists POST for the default policy's categories too; same as the PUT. */
  postDefaultCategories: defineEndpoint({
    method: 'POST',
    path: '/policies/default/categories',
    query: defaultPolicyQuerySchema,
    body: policyCategoriesUpdateSchema,
    response: policyCategoryListSchema,
    status: 200,
    access,
    tag,
    summary: "Set the default policy's categories; the spec's POST form (spec-notes §7 Policies).",
  }),
  getDefaultCategory: defineEndpoint({
    method: 'GET',
    path: '/policies/default/categories/:id',
    params: categoryIdParamsSchema,
    query: defaultPolicyQuerySchema,
    response: policyCategorySchema,
    status: 200,
    access,
    tag,
    summary:
      'One category of a default policy, with its protection level (spec-notes §7 Policies; inverted `allowed`).',
  }),
  /** The system admin edits which protection levels block a category; new policies only (spec-notes §4). */
  setCategoryLevel: defineEndpoint({
    method: 'PUT',
    path: '/policies/default/categories/:id',
    params: categoryIdParamsSchema,
    body: categoryLevelUpdateSchema,
    response: policyCategorySchema,
    status: 200,
    access: { scope: 'system', roles: [Role.System] },
    tag,
    summary: "Set a category's protection level; applies to policies created afterwards (spec-notes §4, §7 Policies).",
  }),
  get: defineEndpoint({
    method: 'GET',
    path: '/policies/:id',
    params: idParamsSchema,
    response: policySchema,
    status: 200,
    access,
    tag,
    summary: 'One policy (spec-notes §7 Policies).',
  }),
  update: defineEndpoint({
    method: 'PUT',
    path: '/policies/:id',
    params: idParamsSchema,
    body: policyUpdateSchema,
    response: policySchema,
    status: 200,
    access,
    tag,
    summary: 'Update a policy; a named level resets its categories (spec-notes §7 Policies).',
  }),
  remove: defineEndpoint({
    method: 'DELETE',
    path: '/policies/:id',
    params: idParamsSchema,
    query: policyDeleteQuerySchema,
    response: deletedResponseSchema,
    status: 200,
    access,
    tag,
    summary:
      'Delete a policy that is not the default; one in use needs move_to_policy_id, else 409 ERR_IN_USE with its dependants (spec-notes §7 Policies; docs/api.md "Deletes of things in use").',
  }),
  /** Ours (issue 29): what a delete would move, for the console's dialog and automation. */
  dependants: defineEndpoint({
    method: 'GET',
    path: '/policies/:id/dependants',
    params: idParamsSchema,
    response: dependantsResponseSchema,
    status: 200,
    access,
    tag,
    summary:
      'What names a policy (locations, groups, users, devices, the device configuration): counts and first names (docs/api.md "Deletes of things in use").',
  }),
  patch: defineEndpoint({
    method: 'PATCH',
    path: '/users/:id/policies/:policyId',
    params: customerPolicyParamsSchema,
    body: policyPatchSchema,
    response: policySchema,
    status: 200,
    access: { scope: 'customer', roles: [Role.System, Role.Msp, Role.Customer] },
    tag,
    summary:
      "Partly update one of customer {id}'s policies; a named level resets its categories (spec-notes §7 Policies).",
  }),
  getCategories: defineEndpoint({
    method: 'GET',
    path: '/policies/:id/categories',
    params: idParamsSchema,
    response: policyCategoryListSchema,
    status: 200,
    access,
    tag,
    summary: "A policy's categories (spec-notes §7 Policies; inverted `allowed`).",
  }),
  setCategories: defineEndpoint({
    method: 'PUT',
    path: '/policies/:id/categories',
    params: idParamsSchema,
    body: policyCategoriesUpdateSchema,
    response: policyCategoryListSchema,
    status: 200,
    access,
    tag,
    summary: "Set a policy's categories; the level becomes custom (spec-notes §7 Policies).",
  }),
} as const;
