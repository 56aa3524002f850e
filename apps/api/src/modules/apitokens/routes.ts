import { admins, apitokens } from '@cordon/core';
import { ApiError, Endpoints } from '@cordon/shared';
import type { FastifyInstance } from 'fastify';
import { registerEndpoint } from '../../http/endpoint.ts';
import { clientKey, createLoginThrottle } from '../../lib/limiter.ts';
import type { AppDeps } from '../../types.ts';

/** Wrong secrets that count against the throttle: the password, and a wrong 2FA code. */
const GUESS_CODES: ReadonlySet<string> = new Set(['ERR_2FA_INVALID_CODE', 'ERR_2FA_INCORRECT_RECOVERY']);

/**
 * The caller's API tokens (docs/api.md "API tokens"): list, create, revoke. Creation checks the
 * current password (and 2FA code) under the same throttle as `PUT /auth/password` — the same
 * counters (`profile:` keys, per admin and per client), so guesses here and there add up
 * (docs/security.md "Logins"): a wrong password or code counts, anything else is refunded, and a
 * throttled call answers 429 with `Retry-After` before the password is checked. The answer carries
 * `Cache-Control: no-store` (it holds the secret).
 */
export function registerApiTokenRoutes(app: FastifyInstance, deps: AppDeps): void {
  const throttle = createLoginThrottle(deps.handle.db, deps.now, deps.loginThrottle);
  const e = Endpoints.apitokens;
  registerEndpoint(app, e.list, ({ caller }) => apitokens.listApiTokens(deps, caller));
  registerEndpoint(app, e.create, async ({ caller, body, request, reply }) => {
    reply.header('cache-control', 'no-store');
    const admission = await throttle.attempt(
      `profile:admin:${request.principal.adminId}`,
      `profile:${clientKey(request.ip)}`,
    );
    if (!admission.admitted) {
      reply.header('retry-after', String(Math.ceil(admission.waitMs / 1000)));
      throw new ApiError('ERR_RATE_LIMITED');
    }
    try {
      const created = await apitokens.createApiToken(deps, caller, body);
      await throttle.succeeded(admission.ticket);
      return created;
    } catch (err) {
      const guess = err instanceof admins.WrongPasswordError || (err instanceof ApiError && GUESS_CODES.has(err.code));
      if (!guess) await throttle.refund(admission.ticket);
      throw err;
    }
  });
  registerEndpoint(app, e.revoke, ({ caller, params }) => apitokens.revokeApiToken(deps, caller, params.id));
}
