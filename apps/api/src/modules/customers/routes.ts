import {
  customerCreateSchema,
  customerListQuerySchema,
  customerSchema,
  customerUpdateSchema,
  deletedResponseSchema,
  idParamsSchema,
  listOf,
  Role,
} from '@cordon/shared';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../types.ts';
import * as service from './service.ts';

/**
 * Customer routes (spec §7 "Customers"; a customer is a "user" on the wire): `/users/`, `/users/{id}`.
 * `/users` and `/users/` are the same route (the router ignores a trailing slash).
 */
export async function customerRoutes(root: FastifyInstance, deps: AppDeps): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const tags = ['customers'];

  app.get(
    '/users/',
    {
      config: { scope: 'owned', roles: [Role.System, Role.Msp, Role.Customer] },
      schema: { tags, querystring: customerListQuerySchema, response: { 200: listOf(customerSchema) } },
    },
    (req) => service.listCustomers(deps, req.tenant, req.query),
  );

  app.post(
    '/users/',
    {
      config: { scope: 'owned', roles: [Role.System, Role.Msp] },
      schema: { tags, body: customerCreateSchema, response: { 201: customerSchema } },
    },
    async (req, reply) => reply.status(201).send(await service.createCustomer(deps, req.tenant, req.body)),
  );

  app.get(
    '/users/:id',
    {
      config: { scope: 'customer', roles: [Role.System, Role.Msp, Role.Customer] },
      schema: { tags, params: idParamsSchema, response: { 200: customerSchema } },
    },
    (req) => service.getCustomer(deps, req.tenant, req.params.id),
  );

  app.post(
    '/users/:id',
    {
      config: { scope: 'customer', roles: [Role.System, Role.Msp, Role.Customer] },
      schema: { tags, params: idParamsSchema, body: customerUpdateSchema, response: { 200: customerSchema } },
    },
    (req) => service.updateCustomer(deps, req.tenant, req.params.id, req.body),
  );

  app.delete(
    '/users/:id',
    {
      config: { scope: 'customer', roles: [Role.System, Role.Msp] },
      schema: { tags, params: idParamsSchema, response: { 200: deletedResponseSchema } },
    },
    (req) => service.deleteCustomer(deps, req.tenant, req.params.id),
  );
}
