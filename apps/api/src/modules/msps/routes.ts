import { msps } from '@cordon/core';
import { Endpoints } from '@cordon/shared';
import type { FastifyInstance } from 'fastify';
import { registerEndpoint } from '../../http/endpoint.ts';
import type { AppDeps } from '../../types.ts';

/** MSP routes (spec-notes §7 "MSPs"): `/msp`, `/msp/{id}`, from `Endpoints.msps`; the work is core's `msps`. */
export function registerMspRoutes(app: FastifyInstance, deps: AppDeps): void {
  const e = Endpoints.msps;
  registerEndpoint(app, e.list, ({ caller, query }) => msps.listMsps(deps, caller, query));
  registerEndpoint(app, e.create, ({ caller, body }) => msps.createMsp(deps, caller, body));
  registerEndpoint(app, e.get, ({ caller, params }) => msps.getMsp(deps, caller, params.id));
  registerEndpoint(app, e.update, ({ caller, params, body }) => msps.updateMsp(deps, caller, params.id, body));
  registerEndpoint(app, e.remove, ({ caller, params, query }) => msps.deleteMsp(deps, caller, params.id, query));
  registerEndpoint(app, e.dependants, ({ caller, params }) => msps.mspDependants(deps, caller, params.id));
}
