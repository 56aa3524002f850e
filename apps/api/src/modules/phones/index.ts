import { defineModule } from '../../http/module.ts';
import { registerPhoneRoutes } from './routes.ts';

/**
 * Phone set-up (docs/agent.md "Phones"): the public DoH URL and DoT host-name suffix the console
 * shows, and Apple configuration profiles (`.mobileconfig`) for a device or a roaming or virtual
 * location. Reads only: no topics.
 */
export const phoneModule = defineModule({
  name: 'phones',
  resources: ['phones'],
  register: registerPhoneRoutes,
  isolationCases: {
    'phones.settings': [{ params: (_, b) => ({ id: b.customerId }), msp: 404, customer: 404, sales: 403 }],
    'phones.deviceProfile': [
      { params: (_, b) => ({ id: b.customerId, deviceId: b.deviceId }), msp: 404, customer: 404, sales: 403 },
      {
        note: 'own customer, foreign device',
        params: (a, b) => ({ id: a.customerId, deviceId: b.deviceId }),
        msp: 404,
        customer: 404,
      },
    ],
    'phones.locationProfile': [
      {
        params: (_, b) => ({ id: b.customerId, type: 'virtual', locId: b.virtualLocationId }),
        msp: 404,
        customer: 404,
        sales: 403,
      },
      {
        note: 'own customer, foreign location',
        params: (a, b) => ({ id: a.customerId, type: 'virtual', locId: b.virtualLocationId }),
        msp: 404,
        customer: 404,
      },
    ],
  },
  topics: [],
});
