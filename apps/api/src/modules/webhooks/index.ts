import { webhooks } from '@cordon/core';
import { Endpoints } from '@cordon/shared';
import type { FastifyInstance } from 'fastify';
import { registerEndpoint } from '../../http/endpoint.ts';
import { defineModule } from '../../http/module.ts';
import type { AppDeps } from '../../types.ts';

/** Webhook routes (issue 26; docs/api.md "Webhooks"). */
function registerWebhookRoutes(app: FastifyInstance, deps: AppDeps): void {
  const e = Endpoints.webhooks;
  registerEndpoint(app, e.list, ({ caller, query }) => webhooks.listWebhooks(deps, caller, query));
  registerEndpoint(app, e.create, ({ caller, query, body }) => webhooks.createWebhook(deps, caller, query, body));
  registerEndpoint(app, e.get, ({ caller, params }) => webhooks.getWebhook(deps, caller, params.id));
  registerEndpoint(app, e.update, ({ caller, params, body }) => webhooks.updateWebhook(deps, caller, params.id, body));
  registerEndpoint(app, e.remove, ({ caller, params }) => webhooks.deleteWebhook(deps, caller, params.id));
  registerEndpoint(app, e.rotate, ({ caller, params }) => webhooks.rotateWebhookSecret(deps, caller, params.id));
  registerEndpoint(app, e.test, ({ caller, params }) => webhooks.testWebhook(deps, caller, params.id));
  registerEndpoint(app, e.deliveries, ({ caller, params, query }) =>
    webhooks.listDeliveries(deps, caller, params.id, query),
  );
  registerEndpoint(app, e.redeliver, ({ caller, params }) =>
    webhooks.redeliver(deps, caller, params.id, params.deliveryId),
  );
}

const foreign = { msp: 404, customer: 404, sales: 403 } as const;
const body = () => ({ url: 'https://hooks.example.test/cordon', events: ['security.hit'] });
// The fixture has no webhook endpoints: ids of another tenant's endpoints are tried in
// apps/api/src/modules/webhooks/webhooks.test.ts ("refuses another tenant's endpoint…").
const byId = { note: 'no such endpoint here; foreign endpoint ids: webhooks.test.ts', ...foreign } as const;

/** Webhook endpoints of MSPs and customers, their delivery log, test and redelivery. */
export const webhookModule = defineModule({
  name: 'webhooks',
  resources: ['webhooks'],
  register: registerWebhookRoutes,
  isolationCases: {
    'webhooks.list': [
      { query: (_, b) => ({ user_id: b.customerId }), ...foreign },
      { query: (_, b) => ({ msp_id: b.mspId }), ...foreign },
    ],
    'webhooks.create': [
      { query: (_, b) => ({ user_id: b.customerId }), body, ...foreign },
      { query: (_, b) => ({ msp_id: b.mspId }), body, ...foreign },
    ],
    'webhooks.get': [{ params: () => ({ id: 999_999 }), ...byId }],
    'webhooks.update': [{ params: () => ({ id: 999_999 }), body: () => ({ enabled: false }), ...byId }],
    'webhooks.remove': [{ params: () => ({ id: 999_999 }), ...byId }],
    'webhooks.rotate': [{ params: () => ({ id: 999_999 }), ...byId }],
    'webhooks.test': [{ params: () => ({ id: 999_999 }), ...byId }],
    'webhooks.deliveries': [{ params: () => ({ id: 999_999 }), ...byId }],
    'webhooks.redeliver': [{ params: () => ({ id: 999_999, deliveryId: 1 }), ...byId }],
  },
  topics: [],
});
