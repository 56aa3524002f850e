import { apitokens } from '@cordon/core';
import { ApiError, Endpoints } from '@cordon/shared';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { authenticateToken } from '../modules/auth/index.ts';
import type { AppDeps, Principal } from '../types.ts';

/** The API prefix the routes below are served under (app.ts `API_PREFIX`, spec-notes §7). */
const PREFIX = '/restapi';

/**
 * Routes that act on a person's session or credentials, refused to an API token (403): logout (the
 * token is revoked on its own page), a password change, 2FA off and new recovery codes, and making
 * tokens (docs/api.md "API tokens": a token cannot mint tokens or take over its admin's account).
 */
const PERSON_ONLY: ReadonlySet<string> = new Set(
  [
    Endpoints.auth.logout,
    Endpoints.auth.logoutAll,
    Endpoints.auth.passwordChange,
    Endpoints.auth.twoFactorDisable,
    Endpoints.auth.recoveryCodes,
    Endpoints.apitokens.create,
  ].map((e) => `${e.method} ${PREFIX}${e.path}`),
);

/**
 * The caller of an API token (`cdn_…`; docs/api.md "API tokens"): its admin, exactly as a login
 * would make it (role and tenant from the admin's row, read on every use), plus the token.
 * @throws ApiError ERR_UNAUTHENTICATED (401) for an unknown, revoked or expired token, or one whose
 *   admin is deleted or has another role; ERR_FORBIDDEN (403) for a read-only token on anything but
 *   GET or HEAD, or any token on a {@link PERSON_ONLY} route
 */
async function apiTokenPrincipal(deps: AppDeps, request: FastifyRequest, secret: string): Promise<Principal> {
  const use = await apitokens.authenticateApiToken(deps, secret, request.ip);
  if (!use) throw new ApiError('ERR_UNAUTHENTICATED');
  if (use.token.access === 'read' && request.method !== 'GET' && request.method !== 'HEAD') {
    throw new ApiError('ERR_FORBIDDEN', 'This API token is read-only: it may only read (GET).');
  }
  if (PERSON_ONLY.has(`${request.method} ${request.routeOptions.url ?? ''}`)) {
    throw new ApiError('ERR_FORBIDDEN', 'An API token cannot do this: log in with your password.');
  }
  return {
    adminId: use.admin.id,
    email: use.admin.email,
    role: use.admin.role,
    mspId: use.admin.mspId,
    customerId: use.admin.customerId,
    jti: `api-token:${use.token.id}`,
    exp: 0,
    apiToken: use.token,
  };
}

/**
 * Adds the authentication hook to the (encapsulated) authenticated context: every request must carry
 * `Authorization: Bearer <jwt>` or `Bearer cdn_…` (an API token); the verified caller lands on
 * `request.principal` (docs/api.md "Auth", "API tokens"). Missing, invalid, expired or revoked tokens →
 * 401 whose text contains '401' (the console then clears storage).
 */
export function registerAuthentication(app: FastifyInstance, deps: AppDeps): void {
  app.addHook('onRequest', async (request) => {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
    if (!m?.[1]) throw new ApiError('ERR_UNAUTHENTICATED');
    request.principal = apitokens.looksLikeApiToken(m[1])
      ? await apiTokenPrincipal(deps, request, m[1])
      : await authenticateToken(deps, m[1], request.ip);
  });
}
