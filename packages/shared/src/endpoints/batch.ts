import { ALL_ROLES } from '../roles.ts';
import { batchRequestSchema, batchResponseSchema } from '../schemas/batch.ts';
import { defineEndpoint } from './define.ts';

/**
 * `POST /batch` (spec-notes §7 Batch; docs/api.md "Batch"): several calls in one request. Every role may
 * send one (scope `any`): each sub-request goes through the router with the caller's own token, so it
 * is authorised, guarded and scoped exactly as if it were sent alone.
 */
export const batchEndpoints = {
  run: defineEndpoint({
    method: 'POST',
    path: '/batch',
    body: batchRequestSchema,
    response: batchResponseSchema,
    status: 200,
    access: { scope: 'any', roles: ALL_ROLES },
    tag: 'batch',
    summary: 'Run up to 100 sub-requests in order, each authorised as if sent alone (spec-notes §7 Batch).',
  }),
} as const;
