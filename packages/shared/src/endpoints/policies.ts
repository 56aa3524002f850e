import { Role } from '../roles.ts';
import { deletedResponseSchema, idParamsSchema, listOf } from '../schemas/common.ts';
import {
  defaultPolicyQuerySchema,
  policyCategoriesUpdateSchema,
  policyCategoryListSchema,
  policyCreateSchema,
  policyListQuerySchema,
  policySchema,
  policyUpdateSchema,
} from '../schemas/policy.ts';
import { defineEndpoint } from './define.ts';

const tag = 'policies';
/** Policies are addressed by their own ids: the repository filters every query by the caller's tenant. */
const access = { scope: 'owned', roles: [Role.System, Role.Msp, Role.Customer] } as const;

/**
 * Policies (spec §7 "Policies"): `/policies`, `/policies/{id}`, `/policies/{id}/categories` and the
 * customer default policy `/policies/default[/categories]?user_id=`. The category `allowed` flag is
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
    summary: "A customer's policies (spec §7 Policies).",
  }),
  create: defineEndpoint({
    method: 'POST',
    path: '/policies',
    body: policyCreateSchema,
    response: policySchema,
    status: 201,
    access,
    tag,
    summary: 'Create a policy (spec §7 Policies).',
  }),
  getDefault: defineEndpoint({
    method: 'GET',
    path: '/policies/default',
    query: defaultPolicyQuerySchema,
    response: policySchema,
    status: 200,
    access,
    tag,
    summary: "A customer's default policy (spec §7 Policies).",
  }),
  updateDefault: defineEndpoint({
    method: 'PUT',
    path: '/policies/default',
    query: defaultPolicyQuerySchema,
    body: policyUpdateSchema,
    response: policySchema,
    status: 200,
    access,
    tag,
    summary: "Update a customer's default policy (spec §7 Policies).",
  }),
  getDefaultCategories: defineEndpoint({
    method: 'GET',
    path: '/policies/default/categories',
    query: defaultPolicyQuerySchema,
    response: policyCategoryListSchema,
    status: 200,
    access,
    tag,
    summary: "The default policy's categories (spec §7 Policies; inverted `allowed`).",
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
    summary: "Set the default policy's categories (spec §7 Policies).",
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
    summary: "Set the default policy's categories; the spec's POST form (spec §7 Policies).",
  }),
  get: defineEndpoint({
    method: 'GET',
    path: '/policies/:id',
    params: idParamsSchema,
    response: policySchema,
    status: 200,
    access,
    tag,
    summary: 'One policy (spec §7 Policies).',
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
    summary: 'Update a policy; a named level resets its categories (spec §7 Policies).',
  }),
  remove: defineEndpoint({
    method: 'DELETE',
    path: '/policies/:id',
    params: idParamsSchema,
    response: deletedResponseSchema,
    status: 200,
    access,
    tag,
    summary: 'Delete a policy that is not the default (spec §7 Policies).',
  }),
  getCategories: defineEndpoint({
    method: 'GET',
    path: '/policies/:id/categories',
    params: idParamsSchema,
    response: policyCategoryListSchema,
    status: 200,
    access,
    tag,
    summary: "A policy's categories (spec §7 Policies; inverted `allowed`).",
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
    summary: "Set a policy's categories; the level becomes custom (spec §7 Policies).",
  }),
} as const;
