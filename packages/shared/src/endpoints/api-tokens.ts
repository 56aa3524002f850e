import { ALL_ROLES } from '../roles.ts';
import {
  apiTokenCreatedSchema,
  apiTokenCreateSchema,
  apiTokenListSchema,
  apiTokenSchema,
} from '../schemas/api-token.ts';
import { idParamsSchema } from '../schemas/common.ts';
import { defineEndpoint } from './define.ts';

const tag = 'apitokens';

/**
 * The caller's own API tokens (issue 26; docs/api.md "API tokens"): every role, its own tokens only
 * (the repository filters by the caller's admin id in SQL; another admin's token id answers 404).
 */
export const apiTokenEndpoints = {
  list: defineEndpoint({
    method: 'GET',
    path: '/auth/api-tokens',
    response: apiTokenListSchema,
    status: 200,
    access: { scope: 'any', roles: ALL_ROLES },
    tag,
    summary: "The caller's API tokens, newest first, revoked ones included (never a secret).",
  }),
  create: defineEndpoint({
    method: 'POST',
    path: '/auth/api-tokens',
    body: apiTokenCreateSchema,
    response: apiTokenCreatedSchema,
    status: 201,
    access: { scope: 'any', roles: ALL_ROLES },
    tag,
    summary: 'Create an API token with the current password (and 2FA code); the secret is answered this once.',
  }),
  revoke: defineEndpoint({
    method: 'DELETE',
    path: '/auth/api-tokens/:id',
    params: idParamsSchema,
    response: apiTokenSchema,
    status: 200,
    access: { scope: 'owned', roles: ALL_ROLES },
    tag,
    summary: "Revoke one of the caller's API tokens: refused from the next call on.",
  }),
} as const;
