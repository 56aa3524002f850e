import {
  deletedResponseSchema,
  idParamsSchema,
  listOf,
  listQuerySchema,
  locationAddressCreateSchema,
  locationAddressParamsSchema,
  locationAddressSchema,
  locationParamsSchema,
  locationSchema,
  locationTypeParamsSchema,
  Role,
  staticIpLocationCreateSchema,
  staticIpLocationUpdateSchema,
} from '@cordon/shared';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../types.ts';
import * as service from './service.ts';

/**
 * Location routes (spec §7 "Locations") under `/users/{id}/locations`. Scope `customer`: the guard
 * checks customer `id` is visible; the repository scopes every query by tenant and customer in SQL.
 * Updates are POSTs, as the spec's calls are.
 */
export async function locationRoutes(root: FastifyInstance, deps: AppDeps): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const tags = ['locations'];
  const config = { scope: 'customer', roles: [Role.System, Role.Msp, Role.Customer] } as const;

  app.get(
    '/users/:id/locations/:type',
    {
      config,
      schema: {
        tags,
        params: locationTypeParamsSchema,
        querystring: listQuerySchema,
        response: { 200: listOf(locationSchema) },
      },
    },
    (req) => service.listLocations(deps, req.tenant, req.params.id, req.params.type, req.query),
  );

  app.post(
    '/users/:id/locations/staticip',
    {
      config,
      schema: { tags, params: idParamsSchema, body: staticIpLocationCreateSchema, response: { 201: locationSchema } },
    },
    async (req, reply) =>
      reply.status(201).send(await service.createStaticLocation(deps, req.tenant, req.params.id, req.body)),
  );

  app.get(
    '/users/:id/locations/staticip/:locId',
    { config, schema: { tags, params: locationParamsSchema, response: { 200: locationSchema } } },
    (req) => service.getStaticLocation(deps, req.tenant, req.params.id, req.params.locId),
  );

  app.post(
    '/users/:id/locations/staticip/:locId',
    {
      config,
      schema: {
        tags,
        params: locationParamsSchema,
        body: staticIpLocationUpdateSchema,
        response: { 200: locationSchema },
      },
    },
    (req) => service.updateStaticLocation(deps, req.tenant, req.params.id, req.params.locId, req.body),
  );

  app.delete(
    '/users/:id/locations/staticip/:locId',
    { config, schema: { tags, params: locationParamsSchema, response: { 200: deletedResponseSchema } } },
    (req) => service.deleteStaticLocation(deps, req.tenant, req.params.id, req.params.locId),
  );

  app.get(
    '/users/:id/locations/staticip/:locId/addresses',
    { config, schema: { tags, params: locationParamsSchema, response: { 200: listOf(locationAddressSchema) } } },
    (req) => service.listAddresses(deps, req.tenant, req.params.id, req.params.locId),
  );

  app.post(
    '/users/:id/locations/staticip/:locId/addresses',
    {
      config,
      schema: {
        tags,
        params: locationParamsSchema,
        body: locationAddressCreateSchema,
        response: { 201: locationAddressSchema },
      },
    },
    async (req, reply) =>
      reply.status(201).send(await service.addAddress(deps, req.tenant, req.params.id, req.params.locId, req.body.ip)),
  );

  app.delete(
    '/users/:id/locations/staticip/:locId/addresses/:addrId',
    { config, schema: { tags, params: locationAddressParamsSchema, response: { 200: deletedResponseSchema } } },
    (req) => service.deleteAddress(deps, req.tenant, req.params.id, req.params.locId, req.params.addrId),
  );
}
