import { reports } from '@cordon/core';
import { Endpoints } from '@cordon/shared';
import type { FastifyInstance } from 'fastify';
import { registerEndpoint } from '../../http/endpoint.ts';
import { defineModule } from '../../http/module.ts';
import type { AppDeps } from '../../types.ts';

/** Power BI routes (spec-notes §7 "UI and tools"; docs/api.md "Power BI"). */
function registerPowerBiRoutes(app: FastifyInstance, deps: AppDeps): void {
  registerEndpoint(app, Endpoints.powerbi.config, () => reports.powerBiConfig(deps));
  registerEndpoint(app, Endpoints.powerbi.embed, ({ caller, body }) => reports.powerBiEmbed(deps, caller, body));
}

/** Power BI: whether an embed is configured, and a report's embed for a visible customer. */
export const powerBiModule = defineModule({
  name: 'powerbi',
  resources: ['powerbi'],
  register: registerPowerBiRoutes,
  isolationCases: {
    'powerbi.config': [{ note: 'one deployment-wide setting, the same for every caller: no tenant data' }],
    'powerbi.embed': [
      {
        note: 'a uuid of no customer the caller sees (the cases carry no uuid; a real foreign one: powerbi.test.ts)',
        body: () => ({ rid: 'r1', uuid: 'not-a-visible-customer' }),
        msp: 404,
        customer: 404,
        sales: 403,
      },
    ],
  },
  topics: [],
});
