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

/** Policies (spec §7 "Policies"): a customer's policies and their blocked categories. */
export const policyModule = defineModule({
  name: 'policies',
  resources: ['policies'],
  register: registerPolicyRoutes,
  isolationCases: {
    'policies.list': foreignDefault(),
    'policies.create': [
      { body: (_, b) => ({ user_id: b.customerId, name: 'Rogue' }), msp: 404, customer: 404, sales: 403 },
    ],
    'policies.getDefault': foreignDefault(),
    'policies.updateDefault': foreignDefault({ body: () => ({ filtering_level: 'high' }) }),
    'policies.getDefaultCategories': foreignDefault(),
    'policies.setDefaultCategories': foreignDefault({ body: () => categories }),
    'policies.postDefaultCategories': foreignDefault({ body: () => categories }),
    'policies.get': foreignPolicy(),
    'policies.update': foreignPolicy({ body: () => ({ filtering_level: 'low' }) }),
    'policies.remove': foreignPolicy(),
    'policies.getCategories': foreignPolicy(),
    'policies.setCategories': foreignPolicy({ body: () => categories }),
  },
  topics: ['policies', 'locations'],
});
