import {
  ALL_ROLES,
  ApiError,
  authorizeQuerySchema,
  authorizeResponseSchema,
  logoutResponseSchema,
} from '@cordon/shared';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { createLimiter } from '../../lib/limiter.ts';
import type { AppDeps } from '../../types.ts';
import * as service from './service.ts';

/** Login attempts allowed per minute per account and per client IP (DESIGN.md §6 brute-force limits). */
export const LOGIN_LIMITS = { perAccount: 20, perIp: 100, windowMs: 60_000 } as const;

/**
 * Public auth routes (no token): `GET /oauth/authorize` (spec §7 Auth; DESIGN.md §6). Login attempts are
 * counted per IP and per account before the credentials are checked; over the limit → 429.
 */
export async function publicAuthRoutes(root: FastifyInstance, deps: AppDeps): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const perIp = createLimiter(LOGIN_LIMITS.perIp, LOGIN_LIMITS.windowMs, deps.now);
  const perAccount = createLimiter(LOGIN_LIMITS.perAccount, LOGIN_LIMITS.windowMs, deps.now);

  app.get(
    '/oauth/authorize',
    {
      schema: {
        tags: ['auth'],
        description: 'Login: HTTP Basic credentials plus a PKCE (S256) pair; answers an access token.',
        querystring: authorizeQuerySchema,
        response: { 200: authorizeResponseSchema },
      },
    },
    async (req) => {
      const credentials = service.parseBasic(req.headers.authorization);
      const ipOk = perIp.hit(req.ip);
      const accountOk = perAccount.hit(credentials.email.trim().toLowerCase());
      if (!ipOk || !accountOk) throw new ApiError('ERR_RATE_LIMITED');
      return service.authorize(deps, req.query, credentials);
    },
  );
}

/** Authenticated auth routes: `POST /auth/logout` revokes the caller's token. */
export async function authRoutes(root: FastifyInstance, deps: AppDeps): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  app.post(
    '/auth/logout',
    {
      config: { scope: 'any', roles: ALL_ROLES },
      schema: { tags: ['auth'], response: { 200: logoutResponseSchema } },
    },
    (req) => service.logout(deps, req.tenant),
  );
}
