import { defineModule } from '../../http/module.ts';
import { registerMspRoutes } from './routes.ts';

/** MSPs (spec-notes §7 "MSPs"): deployment-wide for the system admin, read-only for sales, its own for an MSP admin. */
export const mspModule = defineModule({
  name: 'msps',
  resources: ['msps'],
  register: registerMspRoutes,
  isolationCases: {
    'msps.list': [{ msp: 403, customer: 403 }],
    'msps.create': [
      { body: () => ({ name: 'Rogue', company_name: 'Rogue Ltd' }), msp: 403, customer: 403, sales: 403 },
    ],
    'msps.get': [{ params: (_, b) => ({ id: b.mspId }), msp: 404, customer: 403 }],
    'msps.update': [
      {
        params: (_, b) => ({ id: b.mspId }),
        body: () => ({ company_name: 'Hijacked' }),
        msp: 404,
        customer: 403,
        sales: 403,
      },
    ],
    'msps.remove': [{ params: (_, b) => ({ id: b.mspId }), msp: 403, customer: 403, sales: 403 }],
    'msps.dependants': [{ params: (_, b) => ({ id: b.mspId }), msp: 403, customer: 403, sales: 403 }],
  },
  topics: ['tenants', 'policies', 'locations'],
});
