import { ApiError, Endpoints } from '@cordon/shared';
import type { FastifyInstance } from 'fastify';
import { registerEndpoint } from '../../http/endpoint.ts';
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
 * Public auth routes (no token): `GET /oauth/authorize` (spec §7 Auth; docs/api.md "Auth"). Before
 * the credentials are checked, the login throttle (docs/security.md "Logins"; `lib/limiter.ts`) may
 * refuse the attempt: 429 `Client error: Too many requests.` with `Retry-After` (seconds, RFC 9110
 * §10.2.3). The caller is keyed by {@link clientKey} of `request.ip` (which honours the `trustProxy`
 * setting). The token answer is `Cache-Control: no-store` (RFC 6749 §5.1).
 */
export function registerPublicAuthRoutes(app: FastifyInstance, deps: AppDeps): void {
  const throttle = createLoginThrottle(deps.handle.db, deps.now, deps.loginThrottle);
  registerEndpoint(app, Endpoints.auth.authorize, async ({ query, request, reply }) => {
    const credentials = service.parseBasic(request.headers.authorization);
    const account = credentials.email.trim().toLowerCase();
    const client = clientKey(request.ip);
    const waitMs = await throttle.waitMs(account, client);
    if (waitMs > 0) {
      reply.header('retry-after', String(Math.ceil(waitMs / 1000)));
      throw new ApiError('ERR_RATE_LIMITED');
    }
    try {
      const answer = await service.authorize(deps, query, credentials);
      await throttle.succeeded(account, client);
      return answer;
    } catch (err) {
      if (err instanceof ApiError && FAILURE_CODES.has(err.code)) await throttle.failed(account, client);
      throw err;
    }
  });
}

/** Authenticated auth routes: `POST /auth/logout` revokes the caller's token. */
export function registerAuthRoutes(app: FastifyInstance, deps: AppDeps): void {
  registerEndpoint(app, Endpoints.auth.logout, ({ request }) => service.logout(deps, request.tenant));
}
