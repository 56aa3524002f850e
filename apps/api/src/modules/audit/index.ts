import { defineModule } from '../../http/module.ts';
import { registerAuditRoutes } from './routes.ts';

/** The audit log (docs/security.md "Accounts"): read and export, by system and MSP admins. */
export const auditModule = defineModule({
  name: 'audit',
  resources: ['audit'],
  register: registerAuditRoutes,
  isolationCases: {
    'audit.list': [
      { query: (_, b) => ({ msp_id: b.mspId }), msp: 404, customer: 403, sales: 403 },
      { query: (_, b) => ({ user_id: b.customerId }), msp: 404, customer: 403, sales: 403 },
    ],
    'audit.export': [
      { query: (_, b) => ({ msp_id: b.mspId }), msp: 404, customer: 403, sales: 403 },
      { query: (_, b) => ({ user_id: b.customerId }), msp: 404, customer: 403, sales: 403 },
    ],
  },
  topics: [],
});
