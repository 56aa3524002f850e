import { policypreview } from '@cordon/core';
import { Endpoints } from '@cordon/shared';
import type { FastifyInstance } from 'fastify';
import { registerEndpoint } from '../../http/endpoint.ts';
import { defineModule } from '../../http/module.ts';
import type { AppDeps } from '../../types.ts';

/**
 * `POST /policies/{id}/preview` (issue 29; docs/categories.md "Preview"): the policy is addressed by
 * its own id (scope `owned`), core reads it and the roll-ups within the caller's tenant in SQL.
 */
function registerPolicyPreviewRoutes(app: FastifyInstance, deps: AppDeps): void {
  registerEndpoint(app, Endpoints.policypreview.preview, ({ caller, params, body }) =>
    policypreview.previewPolicy(deps, caller, params.id, body),
  );
}

/** The policy editor's preview: what unsaved category choices would have blocked of the last 7 days. */
export const policyPreviewModule = defineModule({
  name: 'policypreview',
  resources: ['policypreview'],
  register: registerPolicyPreviewRoutes,
  isolationCases: {
    'policypreview.preview': [
      {
        params: (_, b) => ({ id: b.policyId }),
        body: () => ({ blocked: [20] }),
        msp: 404,
        customer: 404,
        sales: 403,
        note: "a foreign tenant's policy: nothing of its customer's traffic is read",
      },
    ],
  },
  topics: [],
});
