import { defineModule } from '../../http/module.ts';
import { registerStaticRouteRoutes } from './routes.ts';

const route = { domain: 'hijack.example', resolver: '10.9.9.9' };

/** Static routes (spec-notes §7 `/staticroutes`): a customer's conditional forwarding (decision order step 2). */
export const staticRouteModule = defineModule({
  name: 'staticroutes',
  resources: ['staticroutes'],
  register: registerStaticRouteRoutes,
  isolationCases: {
    'staticroutes.list': [{ query: (_, b) => ({ user_id: b.customerId }), msp: 404, customer: 404, sales: 403 }],
    'staticroutes.create': [
      { query: (_, b) => ({ user_id: b.customerId }), body: () => route, msp: 404, customer: 404, sales: 403 },
    ],
    'staticroutes.get': [{ params: (_, b) => ({ id: b.staticRouteId }), msp: 404, customer: 404, sales: 403 }],
    'staticroutes.update': [
      { params: (_, b) => ({ id: b.staticRouteId }), body: () => route, msp: 404, customer: 404, sales: 403 },
    ],
    'staticroutes.remove': [{ params: (_, b) => ({ id: b.staticRouteId }), msp: 404, customer: 404, sales: 403 }],
  },
  topics: ['staticroutes'],
});
