import { defineModule } from '../../http/module.ts';
import { registerInternalUserRoutes } from './routes.ts';

/** Internal users (spec-notes §7 "Groups and internal users"): the people agents report. */
export const internalUserModule = defineModule({
  name: 'internalusers',
  resources: ['internalusers'],
  register: registerInternalUserRoutes,
  isolationCases: {
    'internalusers.list': [
      { params: (_, b) => ({ id: b.customerId }), msp: 404, customer: 404, sales: 403 },
      {
        note: "own customer, another tenant's group: no rows",
        params: (a) => ({ id: a.customerId }),
        query: (_, b) => ({ group_id: b.groupId }),
      },
    ],
    'internalusers.get': [
      { params: (_, b) => ({ id: b.customerId, userId: b.internalUserId }), msp: 404, customer: 404, sales: 403 },
      {
        note: 'own customer, foreign user',
        params: (a, b) => ({ id: a.customerId, userId: b.internalUserId }),
        msp: 404,
        customer: 404,
      },
    ],
    'internalusers.update': [
      {
        params: (_, b) => ({ id: b.customerId, userId: b.internalUserId }),
        body: () => ({ description: 'Hijacked' }),
        msp: 404,
        customer: 404,
        sales: 403,
      },
      {
        note: 'own customer, foreign user',
        params: (a, b) => ({ id: a.customerId, userId: b.internalUserId }),
        body: () => ({ description: 'Hijacked' }),
        msp: 404,
        customer: 404,
      },
      {
        note: "own user, another tenant's group: a field error",
        params: (a) => ({ id: a.customerId, userId: a.internalUserId }),
        body: (_, b) => ({ group_ids: [b.groupId] }),
        msp: 400,
        customer: 400,
      },
    ],
    'internalusers.remove': [
      { params: (_, b) => ({ id: b.customerId, userId: b.internalUserId }), msp: 404, customer: 404, sales: 403 },
      {
        note: 'own customer, foreign user',
        params: (a, b) => ({ id: a.customerId, userId: b.internalUserId }),
        msp: 404,
        customer: 404,
      },
    ],
  },
  topics: ['groups'],
});
