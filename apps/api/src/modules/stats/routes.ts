import { stats } from '@cordon/core';
import { Endpoints } from '@cordon/shared';
import type { FastifyInstance } from 'fastify';
import { registerEndpoint } from '../../http/endpoint.ts';
import type { AppDeps } from '../../types.ts';

/**
 * Stats routes (spec-notes §7 "Stats"; docs/api.md "Stats"), from `Endpoints.stats`: the customer, MSP and
 * system families and the location stats. In each family the static `traffic` and `history` segments
 * are registered before the `{date}`/`{dim}` params (the router prefers static segments anyway).
 */
export function registerStatsRoutes(app: FastifyInstance, deps: AppDeps): void {
  const e = Endpoints.stats;
  const customer = (id: number) => ({ kind: 'customer', id }) as const;
  const msp = (id: number) => ({ kind: 'msp', id }) as const;
  const system = { kind: 'system' } as const;

  registerEndpoint(app, e.customerTraffic, ({ caller, params }) =>
    stats.traffic(deps, caller, customer(params.id), params.day),
  );
  registerEndpoint(app, e.customerHistory, ({ caller, params }) =>
    stats.history(deps, caller, customer(params.id), params.days),
  );
  registerEndpoint(app, e.customerTop, ({ caller, params, query }) =>
    stats.topList(deps, caller, customer(params.id), params.dim, params.action, params.date, query.limit),
  );
  registerEndpoint(app, e.customerOverview, ({ caller, params }) =>
    stats.overview(deps, caller, customer(params.id), params.date),
  );

  // Registered before `/msp/{id}/stats/{date}`, like `traffic` and `history` (the static segment).
  registerEndpoint(app, e.mspCustomers, ({ caller, params, query }) =>
    stats.customerStatuses(deps, caller, params.id, query),
  );
  registerEndpoint(app, e.mspBreakdown, ({ caller, params, query }) =>
    stats.mspBreakdown(deps, caller, params.id, query),
  );
  registerEndpoint(app, e.mspTraffic, ({ caller, params }) => stats.traffic(deps, caller, msp(params.id), params.day));
  registerEndpoint(app, e.mspHistory, ({ caller, params }) => stats.history(deps, caller, msp(params.id), params.days));
  registerEndpoint(app, e.mspTop, ({ caller, params, query }) =>
    stats.topList(deps, caller, msp(params.id), params.dim, params.action, params.date, query.limit),
  );
  registerEndpoint(app, e.mspOverview, ({ caller, params }) =>
    stats.overview(deps, caller, msp(params.id), params.date),
  );

  registerEndpoint(app, e.systemBreakdown, ({ caller, query }) => stats.systemBreakdown(deps, caller, query));
  registerEndpoint(app, e.systemTraffic, ({ caller, params }) => stats.traffic(deps, caller, system, params.day));
  registerEndpoint(app, e.systemHistory, ({ caller, params }) => stats.history(deps, caller, system, params.days));
  registerEndpoint(app, e.systemTop, ({ caller, params, query }) =>
    stats.topList(deps, caller, system, params.dim, params.action, params.date, query.limit),
  );
  registerEndpoint(app, e.systemOverview, ({ caller, params }) => stats.overview(deps, caller, system, params.date));

  registerEndpoint(app, e.locationTop, ({ caller, params, query }) =>
    stats.locationTop(deps, caller, params.id, params.locId, params.dim, params.action, query),
  );
  registerEndpoint(app, e.locationOverview, ({ caller, params, query }) =>
    stats.locationOverview(deps, caller, params.id, params.locId, query),
  );
}
