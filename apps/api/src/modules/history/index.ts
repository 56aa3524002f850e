import { stats } from '@cordon/core';
import { Endpoints } from '@cordon/shared';
import type { FastifyInstance } from 'fastify';
import { registerEndpoint } from '../../http/endpoint.ts';
import { defineModule } from '../../http/module.ts';
import type { AppDeps } from '../../types.ts';

/** `GET /users/{id}/history/{action}/{date}` (spec-notes §7; docs/api.md "History"). */
function registerHistoryRoutes(app: FastifyInstance, deps: AppDeps): void {
  registerEndpoint(app, Endpoints.history.search, ({ caller, params, query }) =>
    stats.searchHistory(deps, caller, params.id, params.action, params.date, query),
  );
}

/** The query-log search (spec-notes §7 "Cloud keys and history"): read-only, raw rows of one customer. */
export const historyModule = defineModule({
  name: 'history',
  resources: ['history'],
  register: registerHistoryRoutes,
  isolationCases: {
    'history.search': [
      { params: (_, b) => ({ id: b.customerId, action: 'all', date: 'today' }), msp: 404, customer: 404, sales: 403 },
    ],
  },
  topics: [],
});
