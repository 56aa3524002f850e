import { Role } from '../roles.ts';
import { deletedResponseSchema, idParamsSchema, listOf, listQuerySchema } from '../schemas/common.ts';
import { dependantsResponseSchema, groupDeleteQuerySchema } from '../schemas/dependants.ts';
import {
  groupCreateSchema,
  groupParamsSchema,
  groupSchema,
  groupUpdateSchema,
  internalUserListQuerySchema,
  internalUserParamsSchema,
  internalUserSchema,
  internalUserUpdateSchema,
} from '../schemas/environment.ts';
import { defineEndpoint } from './define.ts';

/** The guard checks customer `id` is visible; the repository scopes every query by tenant and customer. */
const access = { scope: 'customer', roles: [Role.System, Role.Msp, Role.Customer] } as const;

/**
 * Groups (spec-notes §7 "Groups and internal users") under `/users/{id}/groups`. Creation is
 * `POST /users/{id}/groups` (docs/api.md: the spec's path was a defect); the ranking page sends each
 * group's new weight as a PUT through `/batch`.
 */
export const groupEndpoints = {
  list: defineEndpoint({
    method: 'GET',
    path: '/users/:id/groups',
    params: idParamsSchema,
    query: listQuerySchema,
    response: listOf(groupSchema),
    status: 200,
    access,
    tag: 'groups',
    summary: "A customer's groups (spec-notes §7 Groups and internal users).",
  }),
  create: defineEndpoint({
    method: 'POST',
    path: '/users/:id/groups',
    params: idParamsSchema,
    body: groupCreateSchema,
    response: groupSchema,
    status: 201,
    access,
    tag: 'groups',
    summary: 'Create a group, ranked last (spec-notes §7 Groups and internal users; docs/api.md).',
  }),
  get: defineEndpoint({
    method: 'GET',
    path: '/users/:id/groups/:groupId',
    params: groupParamsSchema,
    response: groupSchema,
    status: 200,
    access,
    tag: 'groups',
    summary: 'One group (spec-notes §7 Groups and internal users).',
  }),
  update: defineEndpoint({
    method: 'PUT',
    path: '/users/:id/groups/:groupId',
    params: groupParamsSchema,
    body: groupUpdateSchema,
    response: groupSchema,
    status: 200,
    access,
    tag: 'groups',
    summary: "Update a group's policy, description, switch or weight (spec-notes §7 Groups and internal users).",
  }),
  remove: defineEndpoint({
    method: 'DELETE',
    path: '/users/:id/groups/:groupId',
    params: groupParamsSchema,
    query: groupDeleteQuerySchema,
    response: deletedResponseSchema,
    status: 200,
    access,
    tag: 'groups',
    summary:
      'Delete a group; one with members needs move_to_group_id or detach=true, else 409 ERR_IN_USE (spec-notes §7 Groups and internal users; docs/api.md "Deletes of things in use").',
  }),
  /** Ours (issue 29): the group's members before a delete. */
  dependants: defineEndpoint({
    method: 'GET',
    path: '/users/:id/groups/:groupId/dependants',
    params: groupParamsSchema,
    response: dependantsResponseSchema,
    status: 200,
    access,
    tag: 'groups',
    summary: 'A group\'s members: count and first names (docs/api.md "Deletes of things in use").',
  }),
} as const;

/** Internal users (spec-notes §7 "Groups and internal users") under `/users/{id}/users`. */
export const internalUserEndpoints = {
  list: defineEndpoint({
    method: 'GET',
    path: '/users/:id/users/',
    params: idParamsSchema,
    query: internalUserListQuerySchema,
    response: listOf(internalUserSchema),
    status: 200,
    access,
    tag: 'internal_users',
    summary:
      "A customer's internal users; `group_id` keeps a group's members (spec-notes §7 Groups and internal users).",
  }),
  get: defineEndpoint({
    method: 'GET',
    path: '/users/:id/users/:userId',
    params: internalUserParamsSchema,
    response: internalUserSchema,
    status: 200,
    access,
    tag: 'internal_users',
    summary: 'One internal user (spec-notes §7 Groups and internal users).',
  }),
  update: defineEndpoint({
    method: 'POST',
    path: '/users/:id/users/:userId',
    params: internalUserParamsSchema,
    body: internalUserUpdateSchema,
    response: internalUserSchema,
    status: 200,
    access,
    tag: 'internal_users',
    summary: "Update an internal user's policy, description and groups (spec-notes §7 Groups and internal users).",
  }),
  remove: defineEndpoint({
    method: 'DELETE',
    path: '/users/:id/users/:userId',
    params: internalUserParamsSchema,
    response: deletedResponseSchema,
    status: 200,
    access,
    tag: 'internal_users',
    summary:
      'Delete an internal user; the agent creates it again when it reports the user (docs/decisions.md Environment).',
  }),
} as const;
