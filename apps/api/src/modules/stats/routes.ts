import { stats } from '@cordon/core';
import { Endpoints } from '@cordon/shared';
import type { FastifyInstance } from 'fastify';
import { registerEndpoint } from '../../http/endpoint.ts';
import type { AppDeps } from '../../types.ts';

/** Customer stats routes (spec §7 "Stats", the `/users/{id}/stats` family), from `Endpoints.stats`. */
export function registerStatsRoutes(app: FastifyInstance, deps: AppDeps): void {
  const e = Endpoints.stats;
  // Static `traffic` wins over `:date` in the router.
  registerEndpoint(app, e.customerTraffic, ({ caller, params }) =>
    stats.customerTraffic(deps, caller, params.id, params.day),
  );
  registerEndpoint(app, e.customerOverview, ({ caller, params }) =>
    stats.customerOverview(deps, caller, params.id, params.date),
  );
}
