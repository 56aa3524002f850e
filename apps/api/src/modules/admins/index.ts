import { defineModule } from '../../http/module.ts';
import { registerAdminRoutes } from './routes.ts';

/** Administrators (spec-notes §7 "Admins"): system, sales, MSP and customer admins, and their invitations. */
export const adminModule = defineModule({
  name: 'admins',
  resources: ['admins'],
  register: registerAdminRoutes,
  isolationCases: {
    'admins.list': [
      { query: (_, b) => ({ msp_id: b.mspId }), msp: 404, customer: 404, sales: 403 },
      { query: (_, b) => ({ user_id: b.customerId }), msp: 404, customer: 404, sales: 403 },
    ],
    'admins.create': [
      {
        body: (_, b) => ({ email: 'intruder@hijack.example', full_name: 'Intruder', msp_id: b.mspId }),
        msp: 404,
        customer: 403,
        sales: 403,
      },
      {
        note: 'into the foreign customer',
        body: (_, b) => ({ email: 'intruder@hijack.example', full_name: 'Intruder', user_id: b.customerId }),
        msp: 404,
        customer: 404,
      },
    ],
    'admins.get': [
      { params: (_, b) => ({ id: b.mspAdminId }), msp: 404, customer: 404, sales: 403 },
      { note: "the foreign customer's admin", params: (_, b) => ({ id: b.customerAdminId }), msp: 404, customer: 404 },
    ],
    'admins.update': [
      {
        params: (_, b) => ({ id: b.mspAdminId }),
        body: () => ({ full_name: 'Hijacked' }),
        msp: 404,
        customer: 404,
        sales: 403,
      },
      {
        note: "the foreign customer's admin",
        params: (_, b) => ({ id: b.customerAdminId }),
        body: () => ({ full_name: 'Hijacked' }),
        msp: 404,
        customer: 404,
      },
    ],
    'admins.remove': [
      { params: (_, b) => ({ id: b.mspAdminId }), msp: 404, customer: 404, sales: 403 },
      { note: "the foreign customer's admin", params: (_, b) => ({ id: b.customerAdminId }), msp: 404, customer: 404 },
    ],
    'admins.invite': [
      { params: (_, b) => ({ id: b.mspAdminId }), msp: 404, customer: 404, sales: 403 },
      { note: "the foreign customer's admin", params: (_, b) => ({ id: b.customerAdminId }), msp: 404, customer: 404 },
    ],
  },
  topics: [],
});
