import { defineModule } from '../../http/module.ts';
import { registerToolRoutes } from './routes.ts';

/** Tools (spec-notes §7 "UI and tools"): test categorisation through the resolver's policy engine, recategorisation. */
export const toolModule = defineModule({
  name: 'tools',
  resources: ['tools'],
  register: registerToolRoutes,
  isolationCases: {
    'tools.testCategory': [
      {
        note: "another tenant's policy",
        body: (_, b) => ({ domain: 'example.com', policy_id: b.policyId }),
        msp: 404,
        customer: 404,
        sales: 403,
      },
      {
        note: "another tenant's customer",
        body: (_, b) => ({ domain: 'example.com', user_id: b.customerId }),
        msp: 404,
        customer: 404,
        sales: 403,
      },
    ],
    'tools.recategorize': [
      {
        note: "no foreign id: the request is recorded for the caller's own tenant; sales may not ask",
        body: () => ({ domain: 'example.com', category_id: 20 }),
        sales: 403,
      },
    ],
    'tools.recategorizeList': [
      { note: "no foreign id: each role lists its own tenant's requests (SQL scope); sales may not", sales: 403 },
    ],
    'tools.dnsLookup': [
      {
        note: 'no tenant data: a lookup through the upstreams; customer and sales admins may not',
        query: () => ({ domain: 'example.invalid' }),
        customer: 403,
        sales: 403,
      },
    ],
    'tools.recategorizeReview': [
      { params: () => ({ id: 1 }), body: () => ({ action: 'approve' }), msp: 403, customer: 403, sales: 403 },
    ],
  },
  topics: ['category_overrides'],
});
