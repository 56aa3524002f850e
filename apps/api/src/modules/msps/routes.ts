import {
  deletedResponseSchema,
  idParamsSchema,
  listOf,
  listQuerySchema,
  mspCreateSchema,
  mspSchema,
  mspUpdateSchema,
  Role,
} from '@cordon/shared';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../types.ts';
import * as service from './service.ts';

/** MSP routes (spec §7 "MSPs"): `/msp`, `/msp/{id}`. Registered in the authenticated context. */
export async function mspRoutes(root: FastifyInstance, deps: AppDeps): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const tags = ['msp'];

  app.get(
    '/msp',
    {
      config: { scope: 'system', roles: [Role.System, Role.Sales] },
      schema: { tags, querystring: listQuerySchema, response: { 200: listOf(mspSchema) } },
    },
    (req) => service.listMsps(deps, req.tenant, req.query),
  );

  app.post(
    '/msp',
    {
      config: { scope: 'system', roles: [Role.System] },
      schema: { tags, body: mspCreateSchema, response: { 201: mspSchema } },
    },
    async (req, reply) => reply.status(201).send(await service.createMsp(deps, req.tenant, req.body)),
  );

  app.get(
    '/msp/:id',
    {
      config: { scope: 'msp', roles: [Role.System, Role.Sales, Role.Msp] },
      schema: { tags, params: idParamsSchema, response: { 200: mspSchema } },
    },
    (req) => service.getMsp(deps, req.tenant, req.params.id),
  );

  app.put(
    '/msp/:id',
    {
      config: { scope: 'msp', roles: [Role.System, Role.Msp] },
      schema: { tags, params: idParamsSchema, body: mspUpdateSchema, response: { 200: mspSchema } },
    },
    (req) => service.updateMsp(deps, req.tenant, req.params.id, req.body),
  );

  app.delete(
    '/msp/:id',
    {
      config: { scope: 'msp', roles: [Role.System] },
      schema: { tags, params: idParamsSchema, response: { 200: deletedResponseSchema } },
    },
    (req) => service.deleteMsp(deps, req.tenant, req.params.id),
  );
}
