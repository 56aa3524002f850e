import { logstreams } from '@cordon/core';
import { Endpoints } from '@cordon/shared';
import type { FastifyInstance } from 'fastify';
import { registerEndpoint } from '../../http/endpoint.ts';
import { defineModule } from '../../http/module.ts';
import type { AppDeps } from '../../types.ts';

/** Per-MSP query-log stream routes (issue 26; docs/operations.md "Query-log streaming" "Per-MSP destinations"). */
function registerLogStreamRoutes(app: FastifyInstance, deps: AppDeps): void {
  const e = Endpoints.logstreams;
  registerEndpoint(app, e.list, ({ caller, query }) => logstreams.listLogStreams(deps, caller, query));
  registerEndpoint(app, e.create, ({ caller, query, body }) => logstreams.createLogStream(deps, caller, query, body));
  registerEndpoint(app, e.get, ({ caller, params }) => logstreams.getLogStream(deps, caller, params.id));
  registerEndpoint(app, e.update, ({ caller, params, body }) =>
    logstreams.updateLogStream(deps, caller, params.id, body),
  );
  registerEndpoint(app, e.remove, ({ caller, params }) => logstreams.deleteLogStream(deps, caller, params.id));
}

/** MSP admins: another MSP is missing (404); customer admins and sales are not in the roles (403). */
const foreign = { msp: 404, customer: 403, sales: 403 } as const;
const body = () => ({ name: 'SIEM', format: 'ndjson', address: 'https://siem.example.test/ingest' });
// The fixture has no destinations: ids of another MSP's destinations are tried in
// apps/api/src/modules/logstreams/logstreams.test.ts ("refuses another MSP's destination…").
const byId = { note: 'no such destination here; foreign destination ids: logstreams.test.ts', ...foreign } as const;

/** Query-log stream destinations of MSPs (syslog, NDJSON), streamed to by the resolvers' writer threads. */
export const logStreamModule = defineModule({
  name: 'logstreams',
  resources: ['logstreams'],
  register: registerLogStreamRoutes,
  isolationCases: {
    'logstreams.list': [{ query: (_, b) => ({ msp_id: b.mspId }), ...foreign }],
    'logstreams.create': [{ query: (_, b) => ({ msp_id: b.mspId }), body, ...foreign }],
    'logstreams.get': [{ params: () => ({ id: 999_999 }), ...byId }],
    'logstreams.update': [{ params: () => ({ id: 999_999 }), body: () => ({ enabled: false }), ...byId }],
    'logstreams.remove': [{ params: () => ({ id: 999_999 }), ...byId }],
  },
  topics: [],
});
