import { ApiError } from '@cordon/shared';
import type { FastifyInstance } from 'fastify';
import { authenticateToken } from '../modules/auth/index.ts';
import type { AppDeps } from '../types.ts';

/**
 * Adds the authentication hook to the (encapsulated) authenticated context: every request must carry
 * `Authorization: Bearer <jwt>`; the verified caller lands on `request.tenant` (docs/api.md "Auth").
 * Missing, invalid, expired or revoked tokens → 401 whose text contains '401' (the console then clears storage).
 */
export function registerAuthentication(app: FastifyInstance, deps: AppDeps): void {
  app.addHook('onRequest', async (request) => {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
    if (!m?.[1]) throw new ApiError('ERR_UNAUTHENTICATED');
    request.tenant = await authenticateToken(deps, m[1], request.ip);
  });
}
