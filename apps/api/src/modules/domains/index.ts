import type { IsolationCase, TenantIds } from '../../http/module.ts';
import { defineModule } from '../../http/module.ts';
import { registerDomainRoutes } from './routes.ts';

type Ids = (own: TenantIds, foreign: TenantIds) => Record<string, string | number>;
const entry = () => ({ domain: 'rogue.example' });
/** A call on a foreign policy's list: 404 for MSP and customer admins (as a missing policy), 403 for sales. */
const foreignPolicy = (params: Ids, extra: Partial<IsolationCase> = {}): IsolationCase => ({
  params,
  msp: 404,
  customer: 404,
  sales: 403,
  ...extra,
});
/** Own policy, but `user_id`/`msp_id` naming the foreign tenant: refused as not found. */
const ownPolicyForeignQuery = (params: Ids, extra: Partial<IsolationCase> = {}): IsolationCase => ({
  params,
  query: (_, b) => ({ user_id: b.customerId }),
  msp: 404,
  customer: 404,
  sales: 403,
  note: 'own policy, foreign user_id',
  ...extra,
});
/** A global list of the foreign MSP: 404 for an MSP admin, 403 for customer and sales admins. */
const foreignMsp = (params: Ids, extra: Partial<IsolationCase> = {}): IsolationCase => ({
  params,
  query: (_, b) => ({ msp_id: b.mspId }),
  msp: 404,
  customer: 403,
  sales: 403,
  ...extra,
});

const list: Ids = (_, b) => ({ id: b.policyId, action: 'all' });
const block: Ids = (_, b) => ({ id: b.policyId, action: 'block' });
/** Entry ids do not exist in the fixture: the policy's (or MSP's) check refuses first, so any id proves it. */
const oneEntry: Ids = (_, b) => ({ id: b.policyId, action: 'all', entryId: 1 });
const ownList: Ids = (a) => ({ id: a.policyId, action: 'block' });

/** Domain lists (spec-notes §7 "Domains"): policies' allow and block lists, and the MSP and system global lists. */
export const domainModule = defineModule({
  name: 'domains',
  resources: ['domains'],
  register: registerDomainRoutes,
  isolationCases: {
    'domains.list': [foreignPolicy(list), ownPolicyForeignQuery(ownList)],
    'domains.create': [foreignPolicy(block, { body: entry }), ownPolicyForeignQuery(ownList, { body: entry })],
    'domains.import': [foreignPolicy(block, { note: 'no file: the policy is checked first' })],
    'domains.export': [foreignPolicy(list)],
    'domains.get': [foreignPolicy(oneEntry)],
    'domains.update': [foreignPolicy(oneEntry, { body: entry })],
    'domains.remove': [foreignPolicy(oneEntry)],
    'domains.globalList': [
      foreignMsp(() => ({ action: 'all' })),
      { params: () => ({ action: 'all' }), customer: 403, sales: 403, note: "the system's lists" },
    ],
    'domains.globalCreate': [foreignMsp(() => ({ action: 'block' }), { body: entry })],
    'domains.globalImport': [foreignMsp(() => ({ action: 'block' }))],
    'domains.globalExport': [foreignMsp(() => ({ action: 'all' }))],
    'domains.globalGet': [foreignMsp(() => ({ action: 'all', id: 1 }))],
    'domains.globalUpdate': [foreignMsp(() => ({ action: 'all', id: 1 }), { body: entry })],
    'domains.globalRemove': [foreignMsp(() => ({ action: 'all', id: 1 }))],
  },
  topics: ['lists'],
});
