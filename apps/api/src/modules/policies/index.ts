import type { IsolationCase, TenantIds } from '../../http/module.ts';
import { defineModule } from '../../http/module.ts';
import { registerPolicyRoutes } from './routes.ts';

const categories = [{ id: 21, allowed: true }];
/** A call naming a foreign policy by id: 404 for MSP and customer admins, 403 for sales. */
const foreignPolicy = (extra: Partial<IsolationCase> = {}): [IsolationCase] => [
  { params: (_: TenantIds, b: TenantIds) => ({ id: b.policyId }), msp: 404, customer: 404, sales: 403, ...extra },
];
/** A call naming a foreign customer's default policy by `user_id`. */
const foreignDefault = (extra: Partial<IsolationCase> = {}): [IsolationCase] => [
  { query: (_: TenantIds, b: TenantIds) => ({ user_id: b.customerId }), msp: 404, customer: 404, sales: 403, ...extra },
];

/** A call naming a foreign MSP's global default policy by `msp_id`. */
const foreignMspDefault = (extra: Partial<IsolationCase> = {}): [IsolationCase] => [
  {
    query: (_: TenantIds, b: TenantIds) => ({ msp_id: b.mspId }),
    msp: 404,
    customer: 404,
    sales: 403,
    note: "a foreign MSP's global default policy",
    ...extra,
  },
];
/** A call naming no owner: the system's global default policy, which only a system admin may touch. */
const systemDefault = (extra: Partial<IsolationCase> = {}): [IsolationCase] => [
  {
    msp: 400,
    sales: 403,
    note: "the system's global default policy (an MSP admin must name user_id or msp_id; a customer admin gets its own)",
    ...extra,
  },
];

/** Policies (spec-notes §7 "Policies"): a customer's policies and their blocked categories. */
export const policyModule = defineModule({
  name: 'policies',
  resources: ['policies'],
  register: registerPolicyRoutes,
  isolationCases: {
    'policies.list': foreignDefault(),
    'policies.create': [
      { body: (_, b) => ({ user_id: b.customerId, name: 'Rogue' }), msp: 404, customer: 404, sales: 403 },
    ],
    'policies.getDefault': [...foreignDefault(), ...foreignMspDefault(), ...systemDefault()],
    'policies.updateDefault': [
      ...foreignDefault({ body: () => ({ filtering_level: 'high' }) }),
      ...foreignMspDefault({ body: () => ({ safe_search: true }) }),
      ...systemDefault({ body: () => ({ safe_search: true }) }),
    ],
    'policies.getDefaultCategories': [...foreignDefault(), ...foreignMspDefault(), ...systemDefault()],
    'policies.setDefaultCategories': [
      ...foreignDefault({ body: () => categories }),
      ...foreignMspDefault({ body: () => categories }),
      ...systemDefault({ body: () => categories }),
    ],
    'policies.postDefaultCategories': [
      ...foreignDefault({ body: () => categories }),
      ...foreignMspDefault({ body: () => categories }),
      ...systemDefault({ body: () => categories }),
    ],
    'policies.getDefaultCategory': [
      ...foreignDefault({ params: () => ({ id: 21 }) }),
      ...foreignMspDefault({ params: () => ({ id: 21 }) }),
    ],
    'policies.setCategoryLevel': [
      {
        params: () => ({ id: 21 }),
        body: () => ({ level: 'H' }),
        msp: 403,
        customer: 403,
        sales: 403,
        note: "level edits are the system admin's only",
      },
    ],
    'policies.get': foreignPolicy(),
    'policies.update': foreignPolicy({ body: () => ({ filtering_level: 'low' }) }),
    'policies.remove': [
      ...foreignPolicy(),
      {
        note: "own policy moved to a foreign tenant's policy: a field error, nothing moved or deleted",
        params: (a) => ({ id: a.policyId }),
        query: (_, b) => ({ move_to_policy_id: b.policyId }),
        msp: 400,
        customer: 400,
      },
    ],
    'policies.dependants': foreignPolicy(),
    'policies.patch': [
      {
        params: (_, b) => ({ id: b.customerId, policyId: b.policyId }),
        body: () => ({ name: 'Hijacked' }),
        msp: 404,
        customer: 404,
        sales: 403,
        note: 'foreign customer and its policy',
      },
      {
        params: (a, b) => ({ id: a.customerId, policyId: b.policyId }),
        body: () => ({ name: 'Hijacked' }),
        msp: 404,
        customer: 404,
        sales: 403,
        note: 'own customer, foreign policy',
      },
    ],
    'policies.getCategories': foreignPolicy(),
    'policies.setCategories': foreignPolicy({ body: () => categories }),
  },
  topics: ['policies', 'locations', 'groups', 'devices'],
});
