import {
  customerStatsParamsSchema,
  customerTrafficParamsSchema,
  Role,
  statsOverviewSchema,
  statsTrafficSchema,
} from '@cordon/shared';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppDeps } from '../../types.ts';
import * as service from './service.ts';

/** Customer stats routes (spec §7 "Stats", the `/users/{id}/stats` family). */
export async function statsRoutes(root: FastifyInstance, deps: AppDeps): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const tags = ['stats'];
  const config = { scope: 'customer', roles: [Role.System, Role.Msp, Role.Customer] } as const;

  // Static `traffic` wins over `:date` in the router.
  app.get(
    '/users/:id/stats/traffic/:day',
    { config, schema: { tags, params: customerTrafficParamsSchema, response: { 200: statsTrafficSchema } } },
    (req) => service.customerTraffic(deps, req.tenant, req.params.id, req.params.day),
  );

  app.get(
    '/users/:id/stats/:date',
    { config, schema: { tags, params: customerStatsParamsSchema, response: { 200: statsOverviewSchema } } },
    (req) => service.customerOverview(deps, req.tenant, req.params.id, req.params.date),
  );
}
