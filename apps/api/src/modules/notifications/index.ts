import { notifications } from '@cordon/core';
import { Endpoints } from '@cordon/shared';
import type { FastifyInstance } from 'fastify';
import { registerEndpoint } from '../../http/endpoint.ts';
import { defineModule } from '../../http/module.ts';
import type { AppDeps } from '../../types.ts';

/** Category notification routes (spec-notes §3 "Notification settings"; docs/decisions.md "Category notifications"). */
function registerNotificationRoutes(app: FastifyInstance, deps: AppDeps): void {
  const e = Endpoints.notifications;
  registerEndpoint(app, e.getDefault, ({ caller, query }) =>
    notifications.getDefaultNotifications(deps, caller, query.user_id),
  );
  registerEndpoint(app, e.setDefault, ({ caller, query, body }) =>
    notifications.setDefaultNotifications(deps, caller, query.user_id, body),
  );
  registerEndpoint(app, e.get, ({ caller, params }) => notifications.getNotifications(deps, caller, params.id));
  registerEndpoint(app, e.set, ({ caller, params, body }) =>
    notifications.setNotifications(deps, caller, params.id, body),
  );
}

const foreign = { msp: 404, customer: 404, sales: 403 } as const;
const body = () => ({ categories: [6], interval: 'daily', period: 'day', emails: ['spy@example.test'] });

/** A policy's category notifications, and those of a customer's default policy. */
export const notificationModule = defineModule({
  name: 'notifications',
  resources: ['notifications'],
  register: registerNotificationRoutes,
  isolationCases: {
    'notifications.getDefault': [{ query: (_, b) => ({ user_id: b.customerId }), ...foreign }],
    'notifications.setDefault': [{ query: (_, b) => ({ user_id: b.customerId }), body, ...foreign }],
    'notifications.get': [{ params: (_, b) => ({ id: b.policyId }), ...foreign }],
    'notifications.set': [{ params: (_, b) => ({ id: b.policyId }), body, ...foreign }],
  },
  topics: [],
});
