import { defineModule } from '../../http/module.ts';
import { registerGroupRoutes } from './routes.ts';

/** Groups with their ranking (spec-notes §7 "Groups and internal users"; spec-notes §4 "Group weight"). */
export const groupModule = defineModule({
  name: 'groups',
  resources: ['groups'],
  register: registerGroupRoutes,
  isolationCases: {
    'groups.list': [{ params: (_, b) => ({ id: b.customerId }), msp: 404, customer: 404, sales: 403 }],
    'groups.create': [
      {
        params: (_, b) => ({ id: b.customerId }),
        body: () => ({ name: 'Intruders' }),
        msp: 404,
        customer: 404,
        sales: 403,
      },
      {
        note: "own customer, another tenant's policy: a field error",
        params: (a) => ({ id: a.customerId }),
        body: (_, b) => ({ name: 'Intruders', policyid: b.policyId }),
        msp: 400,
        customer: 400,
      },
    ],
    'groups.get': [
      { params: (_, b) => ({ id: b.customerId, groupId: b.groupId }), msp: 404, customer: 404, sales: 403 },
      {
        note: 'own customer, foreign group',
        params: (a, b) => ({ id: a.customerId, groupId: b.groupId }),
        msp: 404,
        customer: 404,
      },
    ],
    'groups.update': [
      {
        params: (_, b) => ({ id: b.customerId, groupId: b.groupId }),
        body: () => ({ weight: 1, description: 'Hijacked' }),
        msp: 404,
        customer: 404,
        sales: 403,
      },
      {
        note: 'own customer, foreign group (a ranking PUT through /batch with a foreign id)',
        params: (a, b) => ({ id: a.customerId, groupId: b.groupId }),
        body: () => ({ weight: 1 }),
        msp: 404,
        customer: 404,
      },
    ],
    'groups.dependants': [
      { params: (_, b) => ({ id: b.customerId, groupId: b.groupId }), msp: 404, customer: 404, sales: 403 },
      {
        note: 'own customer, foreign group',
        params: (a, b) => ({ id: a.customerId, groupId: b.groupId }),
        msp: 404,
        customer: 404,
      },
    ],
    'groups.remove': [
      {
        note: "own group, members moved to another tenant's group: a field error",
        params: (a) => ({ id: a.customerId, groupId: a.groupId }),
        query: (_, b) => ({ move_to_group_id: b.groupId }),
        msp: 400,
        customer: 400,
      },
      { params: (_, b) => ({ id: b.customerId, groupId: b.groupId }), msp: 404, customer: 404, sales: 403 },
      {
        note: 'own customer, foreign group',
        params: (a, b) => ({ id: a.customerId, groupId: b.groupId }),
        msp: 404,
        customer: 404,
      },
    ],
  },
  topics: ['groups'],
});
