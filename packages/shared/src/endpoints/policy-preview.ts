import { Role } from '../roles.ts';
import { idParamsSchema } from '../schemas/common.ts';
import { policyPreviewBodySchema, policyPreviewSchema } from '../schemas/policy-preview.ts';
import { defineEndpoint } from './define.ts';

/**
 * The policy editor's preview (issue 29; docs/categories.md "Preview"): what unsaved category choices
 * would have blocked of the policy's customer's last 7 days, from the roll-ups. Reads only.
 */
export const policyPreviewEndpoints = {
  preview: defineEndpoint({
    method: 'POST',
    path: '/policies/:id/preview',
    params: idParamsSchema,
    body: policyPreviewBodySchema,
    response: policyPreviewSchema,
    status: 200,
    access: { scope: 'owned', roles: [Role.System, Role.Msp, Role.Customer] },
    tag: 'policies',
    summary:
      "How many of the policy's customer's last 7 days of queries the given category choices would have blocked, and the top names (issue 29).",
  }),
} as const;
