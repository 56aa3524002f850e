import { Role } from '../roles.ts';
import { deletedResponseSchema, idParamsSchema, listOf } from '../schemas/common.ts';
import {
  customerCreateSchema,
  customerListQuerySchema,
  customerSchema,
  customerUpdateSchema,
  mspAccountSchema,
} from '../schemas/customer.ts';
import { confirmNameQuerySchema, dependantsResponseSchema } from '../schemas/dependants.ts';
import { defineEndpoint } from './define.ts';

const tag = 'customers';

/**
 * Customers (spec-notes §7 "Customers"; a customer is a "user" on the wire): `/users/`, `/users/{id}`.
 * `/users` and `/users/` are the same route (the router ignores a trailing slash).
 */
export const customerEndpoints = {
  list: defineEndpoint({
    method: 'GET',
    path: '/users/',
    query: customerListQuerySchema,
    response: listOf(customerSchema),
    status: 200,
    access: { scope: 'owned', roles: [Role.System, Role.Sales, Role.Msp, Role.Customer] },
    tag,
    summary:
      "Customer list, optionally of one MSP; a sales admin reads one MSP's, read-only (spec-notes §7 Customers).",
  }),
  create: defineEndpoint({
    method: 'POST',
    path: '/users/',
    body: customerCreateSchema,
    response: customerSchema,
    status: 201,
    access: { scope: 'owned', roles: [Role.System, Role.Msp] },
    tag,
    summary: 'Create a customer with its default policy and admin (spec-notes §7 Customers).',
  }),
  get: defineEndpoint({
    method: 'GET',
    path: '/users/:id',
    params: idParamsSchema,
    response: customerSchema,
    status: 200,
    access: { scope: 'customer', roles: [Role.System, Role.Msp, Role.Customer] },
    tag,
    summary: 'One customer (spec-notes §7 Customers).',
  }),
  update: defineEndpoint({
    method: 'POST',
    path: '/users/:id',
    params: idParamsSchema,
    body: customerUpdateSchema,
    response: customerSchema,
    status: 200,
    access: { scope: 'customer', roles: [Role.System, Role.Msp, Role.Customer] },
    tag,
    summary: 'Update a customer; updates are POSTs as in the spec (spec-notes §7 Customers).',
  }),
  remove: defineEndpoint({
    method: 'DELETE',
    path: '/users/:id',
    params: idParamsSchema,
    query: confirmNameQuerySchema,
    response: deletedResponseSchema,
    status: 200,
    access: { scope: 'customer', roles: [Role.System, Role.Msp] },
    tag,
    summary:
      'Delete a customer and everything it owns; one owning anything needs confirm_name (its name), else 409 ERR_IN_USE (spec-notes §7 Customers; docs/api.md "Deletes of things in use").',
  }),
  /** Ours (issue 29): what a delete of the customer takes with it. */
  dependants: defineEndpoint({
    method: 'GET',
    path: '/users/:id/dependants',
    params: idParamsSchema,
    response: dependantsResponseSchema,
    status: 200,
    access: { scope: 'customer', roles: [Role.System, Role.Msp] },
    tag,
    summary:
      'What a delete of the customer takes with it: counts and first names (docs/api.md "Deletes of things in use").',
  }),
  all: defineEndpoint({
    method: 'GET',
    path: '/users/:id/all',
    params: idParamsSchema,
    response: mspAccountSchema,
    status: 200,
    access: { scope: 'msp', roles: [Role.System, Role.Msp] },
    tag,
    summary: "MSP id's account with all its customers, unpaged (spec-notes §7 Customers; spec-notes §3 allCustomers).",
  }),
} as const;
