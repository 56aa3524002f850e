import { Role } from '../roles.ts';
import { deletedResponseSchema, idParamsSchema, listOf, listQuerySchema } from '../schemas/common.ts';
import { confirmNameQuerySchema, dependantsResponseSchema } from '../schemas/dependants.ts';
import { mspCreateSchema, mspSchema, mspUpdateSchema } from '../schemas/msp.ts';
import { defineEndpoint } from './define.ts';

const tag = 'msp';

/** MSPs (spec-notes §7 "MSPs"): `/msp`, `/msp/{id}`. */
export const mspEndpoints = {
  list: defineEndpoint({
    method: 'GET',
    path: '/msp',
    query: listQuerySchema,
    response: listOf(mspSchema),
    status: 200,
    access: { scope: 'system', roles: [Role.System, Role.Sales] },
    tag,
    summary: 'MSP list (spec-notes §7 MSPs).',
  }),
  create: defineEndpoint({
    method: 'POST',
    path: '/msp',
    body: mspCreateSchema,
    response: mspSchema,
    status: 201,
    access: { scope: 'system', roles: [Role.System] },
    tag,
    summary: 'Create an MSP with its primary admin (spec-notes §7 MSPs).',
  }),
  get: defineEndpoint({
    method: 'GET',
    path: '/msp/:id',
    params: idParamsSchema,
    response: mspSchema,
    status: 200,
    access: { scope: 'msp', roles: [Role.System, Role.Sales, Role.Msp] },
    tag,
    summary: 'One MSP (spec-notes §7 MSPs).',
  }),
  update: defineEndpoint({
    method: 'PUT',
    path: '/msp/:id',
    params: idParamsSchema,
    body: mspUpdateSchema,
    response: mspSchema,
    status: 200,
    access: { scope: 'msp', roles: [Role.System, Role.Msp] },
    tag,
    summary: 'Update an MSP (spec-notes §7 MSPs).',
  }),
  remove: defineEndpoint({
    method: 'DELETE',
    path: '/msp/:id',
    params: idParamsSchema,
    query: confirmNameQuerySchema,
    response: deletedResponseSchema,
    status: 200,
    access: { scope: 'msp', roles: [Role.System] },
    tag,
    summary:
      'Delete an MSP and everything it owns; one with customers or admins needs confirm_name (its name), else 409 ERR_IN_USE (spec-notes §7 MSPs; docs/api.md "Deletes of things in use").',
  }),
  /** Ours (issue 29): what a delete of the MSP takes with it. */
  dependants: defineEndpoint({
    method: 'GET',
    path: '/msp/:id/dependants',
    params: idParamsSchema,
    response: dependantsResponseSchema,
    status: 200,
    access: { scope: 'msp', roles: [Role.System] },
    tag,
    summary: 'The customers and admins a delete of the MSP takes with it (docs/api.md "Deletes of things in use").',
  }),
} as const;
