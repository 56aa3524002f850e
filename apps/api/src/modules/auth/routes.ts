import {
  ALL_ROLES,
  ApiError,
  authorizeQuerySchema,
  authorizeResponseSchema,
  logoutResponseSchema,
} from '@cordon/shared';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { clientKey, createLoginThrottle } from '../../lib/limiter.ts';
import type { AppDeps } from '../../types.ts';
import * as service from './service.ts';

/** Failures of these codes count against the throttle: wrong credentials, and wrong second factors. */
const FAILURE_CODES: ReadonlySet<string> = new Set([
  'ERR_BAD_CREDENTIALS',
  'ERR_2FA_INVALID_CODE',
  'ERR_2FA_INCORRECT_RECOVERY',
]);

/**
 * Public auth routes (no token): `GET /oauth/authorize` (spec §7 Auth; DESIGN.md §6). Before the
 * credentials are checked, the login throttle (DESIGN.md §14; `lib/limiter.ts`) may refuse the attempt:
 * 429 `Client error: Too many requests.` with `Retry-After` (seconds, RFC 9110 §10.2.3). The caller is
 * keyed by {@link clientKey} of `request.ip` (which honours the `trustProxy` setting). The token answer
 * is `Cache-Control: no-store` (RFC 6749 §5.1).
 */
export async function publicAuthRoutes(root: FastifyInstance, deps: AppDeps): Promise<void> {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const throttle = createLoginThrottle(deps.handle.db, deps.now, deps.loginThrottle);

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
    async (req, reply) => {
      const credentials = service.parseBasic(req.headers.authorization);
      const account = credentials.email.trim().toLowerCase();
      const client = clientKey(req.ip);
      const waitMs = await throttle.waitMs(account, client);
      if (waitMs > 0) {
        reply.header('retry-after', String(Math.ceil(waitMs / 1000)));
        throw new ApiError('ERR_RATE_LIMITED');
      }
      try {
        const answer = await service.authorize(deps, req.query, credentials);
        await throttle.succeeded(account, client);
        return answer;
      } catch (err) {
        if (err instanceof ApiError && FAILURE_CODES.has(err.code)) await throttle.failed(account, client);
        throw err;
      }
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
