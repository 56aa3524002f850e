import { defineModule } from '../../http/module.ts';
import { registerBatchRoutes } from './routes.ts';

/**
 * `POST /batch` (spec-notes §7 Batch): sub-requests run through the same router with the caller's own
 * token. The batch itself is open to every role and changes nothing of its own; what each
 * sub-request may do is decided by that sub-request's route, exactly as if it were sent alone.
 */
export const batchModule = defineModule({
  name: 'batch',
  resources: ['batch'],
  register: (app, deps) => registerBatchRoutes(app, deps),
  isolationCases: {
    'batch.run': [
      {
        body: (_, b) => ({ del: { method: 'DELETE', path: `/policies/${b.policyId}` } }),
        msp: 200,
        customer: 200,
        sales: 200,
        note: 'deleting a foreign policy inside a batch: the batch answers 200, the item 404/403, nothing changes',
      },
      {
        body: (_, b) => ({
          upd: { method: 'POST', path: `/users/${b.customerId}`, parameters: { accountName: 'Hijacked' } },
          loc: { method: 'DELETE', path: `/users/${b.customerId}/locations/staticip/${b.locationId}` },
          msp: { method: 'PUT', path: `/msp/${b.mspId}`, parameters: { company_name: 'Hijacked' } },
        }),
        msp: 200,
        customer: 200,
        sales: 200,
        note: 'foreign customer, location and MSP writes inside a batch: each item refused, nothing changes',
      },
    ],
  },
  topics: [],
});
