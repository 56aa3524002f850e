import { defineModule } from '../../http/module.ts';
import { registerCloudKeyRoutes } from './routes.ts';

const key = { key: 'Hijack key', expires_after: 600 };

/** Cloud keys (spec-notes §7 "Cloud keys and history"; docs/architecture.md "Block page"): a customer's keys for block-page bypasses. */
export const cloudKeyModule = defineModule({
  name: 'cloudkeys',
  resources: ['cloudkeys'],
  register: registerCloudKeyRoutes,
  isolationCases: {
    'cloudkeys.list': [{ params: (_, b) => ({ id: b.customerId }), msp: 404, customer: 404, sales: 403 }],
    'cloudkeys.create': [
      { params: (_, b) => ({ id: b.customerId }), body: () => key, msp: 404, customer: 404, sales: 403 },
    ],
    'cloudkeys.get': [
      { params: (_, b) => ({ id: b.customerId, keyId: b.cloudKeyId }), msp: 404, customer: 404, sales: 403 },
      {
        note: 'own customer, foreign key',
        params: (a, b) => ({ id: a.customerId, keyId: b.cloudKeyId }),
        msp: 404,
        customer: 404,
      },
    ],
    'cloudkeys.update': [
      {
        params: (_, b) => ({ id: b.customerId, keyId: b.cloudKeyId }),
        body: () => ({ reset_uses: true, active: false }),
        msp: 404,
        customer: 404,
        sales: 403,
      },
      {
        note: 'own customer, foreign key',
        params: (a, b) => ({ id: a.customerId, keyId: b.cloudKeyId }),
        body: () => ({ description: 'Hijacked', active: false }),
        msp: 404,
        customer: 404,
      },
    ],
    'cloudkeys.remove': [
      { params: (_, b) => ({ id: b.customerId, keyId: b.cloudKeyId }), msp: 404, customer: 404, sales: 403 },
      {
        note: 'own customer, foreign key',
        params: (a, b) => ({ id: a.customerId, keyId: b.cloudKeyId }),
        msp: 404,
        customer: 404,
      },
    ],
  },
  topics: ['bypasses'],
});
