import { Role } from '../roles.ts';
import { deletedResponseSchema, idParamsSchema, listOf } from '../schemas/common.ts';
import {
  staticRouteCreateSchema,
  staticRouteListQuerySchema,
  staticRouteQuerySchema,
  staticRouteSchema,
  staticRouteUpdateSchema,
} from '../schemas/static-route.ts';
import { defineEndpoint } from './define.ts';

const tag = 'staticroutes';
/**
 * Static routes belong to a customer (`user_id`, docs/decisions.md "Static routes") and are addressed
 * by their own ids: the repository filters every query by the caller's tenant in SQL.
 */
const access = { scope: 'owned', roles: [Role.System, Role.Msp, Role.Customer] } as const;

/**
 * Static routes (spec-notes §7 "GET, POST and DELETE /staticroutes[/{id}]"): conditional forwarding of a
 * customer's domain suffix to a resolver (docs/architecture.md "Decision order" step 2). Updates are
 * POSTs, as the spec's are.
 */
export const staticRouteEndpoints = {
  list: defineEndpoint({
    method: 'GET',
    path: '/staticroutes',
    query: staticRouteListQuerySchema,
    response: listOf(staticRouteSchema),
    status: 200,
    access,
    tag,
    summary: "A customer's static routes (spec-notes §7 Static routes).",
  }),
  create: defineEndpoint({
    method: 'POST',
    path: '/staticroutes',
    query: staticRouteQuerySchema,
    body: staticRouteCreateSchema,
    response: staticRouteSchema,
    status: 201,
    access,
    tag,
    summary: 'Create a static route for customer `user_id` (spec-notes §7 Static routes).',
  }),
  get: defineEndpoint({
    method: 'GET',
    path: '/staticroutes/:id',
    params: idParamsSchema,
    response: staticRouteSchema,
    status: 200,
    access,
    tag,
    summary: 'One static route (spec-notes §7 Static routes).',
  }),
  update: defineEndpoint({
    method: 'POST',
    path: '/staticroutes/:id',
    params: idParamsSchema,
    body: staticRouteUpdateSchema,
    response: staticRouteSchema,
    status: 200,
    access,
    tag,
    summary: 'Update a static route (spec-notes §7 Static routes).',
  }),
  remove: defineEndpoint({
    method: 'DELETE',
    path: '/staticroutes/:id',
    params: idParamsSchema,
    response: deletedResponseSchema,
    status: 200,
    access,
    tag,
    summary: 'Delete a static route (spec-notes §7 Static routes).',
  }),
} as const;
