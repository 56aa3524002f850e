import { defineModule } from '../../http/module.ts';
import { registerCustomerRoutes } from './routes.ts';

/** Customers (spec-notes §7 "Customers"): an MSP's customers, each created with its default policy. */
export const customerModule = defineModule({
  name: 'customers',
  resources: ['customers'],
  register: registerCustomerRoutes,
  isolationCases: {
    // Sales reads every MSP's customers (read-only, like the MSP list), so it is not tried here.
    'customers.list': [{ query: (_, b) => ({ msp_id: b.mspId }), msp: 404, customer: 404 }],
    'customers.create': [
      { body: (_, b) => ({ accountName: 'Rogue', msp_id: b.mspId }), msp: 404, customer: 403, sales: 403 },
    ],
    'customers.get': [{ params: (_, b) => ({ id: b.customerId }), msp: 404, customer: 404, sales: 403 }],
    'customers.update': [
      {
        params: (_, b) => ({ id: b.customerId }),
        body: () => ({ accountName: 'Hijacked' }),
        msp: 404,
        customer: 404,
        sales: 403,
      },
    ],
    'customers.all': [{ params: (_, b) => ({ id: b.mspId }), msp: 404, customer: 403, sales: 403 }],
    'customers.remove': [{ params: (_, b) => ({ id: b.customerId }), msp: 404, customer: 403, sales: 403 }],
    'customers.dependants': [{ params: (_, b) => ({ id: b.customerId }), msp: 404, customer: 403, sales: 403 }],
  },
  topics: ['tenants', 'policies', 'locations'],
});
