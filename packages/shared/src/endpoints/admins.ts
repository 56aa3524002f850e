import { Role } from '../roles.ts';
import {
  adminCreatedSchema,
  adminCreateSchema,
  adminListQuerySchema,
  adminSchema,
  adminUpdateSchema,
  invitationResponseSchema,
} from '../schemas/admin.ts';
import { deletedResponseSchema, idParamsSchema, listOf } from '../schemas/common.ts';
import { defineEndpoint } from './define.ts';

const tag = 'admins';
/**
 * Admins are addressed by their own ids; core scopes every query in SQL (a system admin: all; an MSP
 * admin: its MSP's and its customers'; a customer admin: its customer's) and applies the role rules
 * (docs/security.md "Accounts"). Sales admins manage no one.
 */
const access = { scope: 'owned', roles: [Role.System, Role.Msp, Role.Customer] } as const;

/** Administrators (spec-notes §7 "Admins"; docs/api.md "Administrators"). DELETE is implied by the spec's multi-delete. */
export const adminEndpoints = {
  list: defineEndpoint({
    method: 'GET',
    path: '/admin',
    query: adminListQuerySchema,
    response: listOf(adminSchema),
    status: 200,
    access,
    tag,
    summary: "Administrators of an MSP (msp_id), a customer (user_id) or the caller's level (spec-notes §7 Admins).",
  }),
  create: defineEndpoint({
    method: 'POST',
    path: '/admin/',
    body: adminCreateSchema,
    response: adminCreatedSchema,
    status: 201,
    access,
    tag,
    summary: 'Add an administrator; an invitation mail sets its password (spec-notes §7 Admins).',
  }),
  get: defineEndpoint({
    method: 'GET',
    path: '/admin/:id',
    params: idParamsSchema,
    response: adminSchema,
    status: 200,
    access,
    tag,
    summary: 'One administrator (spec-notes §7 Admins).',
  }),
  update: defineEndpoint({
    method: 'PUT',
    path: '/admin/:id',
    params: idParamsSchema,
    body: adminUpdateSchema,
    response: adminSchema,
    status: 200,
    access,
    tag,
    summary: "Change an administrator's name, e-mail or role within the caller's rights (spec-notes §7 Admins).",
  }),
  remove: defineEndpoint({
    method: 'DELETE',
    path: '/admin/:id',
    params: idParamsSchema,
    response: deletedResponseSchema,
    status: 200,
    access,
    tag,
    summary: 'Delete an administrator; never a primary (is_default) one (docs/api.md "Administrators").',
  }),
  invite: defineEndpoint({
    method: 'POST',
    path: '/admin/:id/invite',
    params: idParamsSchema,
    response: invitationResponseSchema,
    status: 200,
    access,
    tag,
    summary: 'Send a pending administrator a new invitation link (docs/api.md "Administrators").',
  }),
} as const;
