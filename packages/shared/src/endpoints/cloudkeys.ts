import { Role } from '../roles.ts';
import {
  cloudKeyCreateSchema,
  cloudKeyParamsSchema,
  cloudKeySchema,
  cloudKeyUpdateSchema,
} from '../schemas/cloudkey.ts';
import { deletedResponseSchema, idParamsSchema, listOf, listQuerySchema } from '../schemas/common.ts';
import { defineEndpoint } from './define.ts';

const tag = 'cloudkeys';
/** The guard checks customer `id` is visible; the repository scopes every query by tenant and customer. */
const access = { scope: 'customer', roles: [Role.System, Role.Msp, Role.Customer] } as const;

/**
 * Cloud keys (spec-notes §7 "Cloud keys and history") under `/users/{id}/cloudkeys`. Updates are POSTs, as
 * the spec's are; DELETE is ours (the console's delete and multi-delete; docs/api.md "Cloud keys").
 */
export const cloudKeyEndpoints = {
  list: defineEndpoint({
    method: 'GET',
    path: '/users/:id/cloudkeys',
    params: idParamsSchema,
    query: listQuerySchema,
    response: listOf(cloudKeySchema),
    status: 200,
    access,
    tag,
    summary:
      "A customer's cloud keys; sortkey name (the key), description, times_used, created_at, id (spec-notes §7).",
  }),
  create: defineEndpoint({
    method: 'POST',
    path: '/users/:id/cloudkeys',
    params: idParamsSchema,
    body: cloudKeyCreateSchema,
    response: cloudKeySchema,
    status: 201,
    access,
    tag,
    summary: 'Create a cloud key (spec-notes §7 Cloud keys).',
  }),
  get: defineEndpoint({
    method: 'GET',
    path: '/users/:id/cloudkeys/:keyId',
    params: cloudKeyParamsSchema,
    response: cloudKeySchema,
    status: 200,
    access,
    tag,
    summary: 'One cloud key (spec-notes §7 Cloud keys).',
  }),
  update: defineEndpoint({
    method: 'POST',
    path: '/users/:id/cloudkeys/:keyId',
    params: cloudKeyParamsSchema,
    body: cloudKeyUpdateSchema,
    response: cloudKeySchema,
    status: 200,
    access,
    tag,
    summary: 'Update a cloud key; `reset_uses: true` sets times used to 0 (spec-notes §7 Cloud keys).',
  }),
  remove: defineEndpoint({
    method: 'DELETE',
    path: '/users/:id/cloudkeys/:keyId',
    params: cloudKeyParamsSchema,
    response: deletedResponseSchema,
    status: 200,
    access,
    tag,
    summary: 'Delete a cloud key and end its bypasses (docs/api.md "Cloud keys").',
  }),
} as const;
