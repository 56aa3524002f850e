import { admins } from '@cordon/core';
import { ApiError, Endpoints } from '@cordon/shared';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
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

/** The bearer token of a request, or undefined. */
function bearer(request: FastifyRequest): string | undefined {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
  return m?.[1];
}

/**
 * The admin a `POST /auth/two-factor-auth` call acts for: the subject of a full access token, or of
 * an enrolment-only token (the `2FA is enforced` login answer), whose one right is this call.
 * @throws ApiError ERR_UNAUTHENTICATED (401) without a valid token of either kind
 */
async function enrollingAdmin(
  deps: AppDeps,
  request: FastifyRequest,
): Promise<{ admin: admins.AdminForToken; enrolOnly: boolean }> {
  const token = bearer(request);
  if (token === undefined) throw new ApiError('ERR_UNAUTHENTICATED');
  const tenant = await service.authenticateToken(deps, token, request.ip).catch(() => undefined);
  if (tenant) {
    const admin = await admins.findAdminById(deps.handle.db, tenant.adminId);
    if (!admin) throw new ApiError('ERR_UNAUTHENTICATED');
    return { admin, enrolOnly: false };
  }
  return { admin: await service.authenticateEnrolToken(deps, token), enrolOnly: true };
}

/**
 * Public auth routes (no token): `GET /oauth/authorize` (spec-notes §7 Auth; docs/api.md "Auth"), the
 * invitation and password-reset links, and 2FA enrolment (which checks its own token). Before the
 * credentials are checked, the login throttle (docs/security.md "Logins"; `lib/limiter.ts`) may
 * refuse the attempt: 429 `Client error: Too many requests.` with `Retry-After` (seconds, RFC 9110
 * §10.2.3). The caller is keyed by {@link clientKey} of `request.ip` (which honours the `trustProxy`
 * setting). The token answer is `Cache-Control: no-store` (RFC 6749 §5.1). Logins and failed logins
 * are recorded in the audit log (docs/security.md "Accounts"). Password-reset requests are throttled
 * the same way on counters of their own.
 */
export function registerPublicAuthRoutes(app: FastifyInstance, deps: AppDeps): void {
  const throttle = createLoginThrottle(deps.handle.db, deps.now, deps.loginThrottle);
  const e = Endpoints.auth;
  registerEndpoint(app, e.authorize, async ({ query, request, reply }) => {
    const credentials = service.parseBasic(request.headers.authorization);
    const account = credentials.email.trim().toLowerCase();
    // Checked and counted at once, before the password is (lib/limiter.ts): parallel guesses cannot
    // all pass before the first is counted.
    const admission = await throttle.attempt(account, clientKey(request.ip));
    if (!admission.admitted) {
      reply.header('retry-after', String(Math.ceil(admission.waitMs / 1000)));
      throw new ApiError('ERR_RATE_LIMITED');
    }
    try {
      const answer = await service.authorize(deps, query, credentials, request.ip);
      await throttle.succeeded(admission.ticket);
      return answer;
    } catch (err) {
      if (err instanceof ApiError && FAILURE_CODES.has(err.code)) {
        const admin = await admins.findAdminByEmail(deps.handle.db, account);
        await admins.recordLoginEvent(deps, admin, account, request.ip, { ok: false, reason: err.code });
      } else {
        // Not a wrong secret (a malformed request, or the right password with the second factor to come).
        await throttle.refund(admission.ticket);
      }
      throw err;
    }
  });
  registerEndpoint(app, e.register, ({ body, request }) => admins.registerInvitedAdmin(deps, body, request.ip));
  registerEndpoint(app, e.passwordForgot, async ({ body, request, reply }) => {
    // Every request counts, whether or not the address exists, on counters of their own (`reset:`
    // keys, apart from the login's): a client cannot flood an inbox or sweep addresses.
    const account = `reset:${body.email}`;
    const client = `reset:${clientKey(request.ip)}`;
    const admission = await throttle.attempt(account, client);
    if (!admission.admitted) {
      reply.header('retry-after', String(Math.ceil(admission.waitMs / 1000)));
      throw new ApiError('ERR_RATE_LIMITED');
    }
    const { answer, sending } = await admins.requestPasswordReset(deps, body.email, request.ip);
    void sending.then((error) => {
      if (error) request.log.warn({ err: error.message }, 'password-reset mail not sent');
    });
    return answer;
  });
  registerEndpoint(app, e.passwordReset, ({ body, request }) => admins.resetPassword(deps, body, request.ip));
  registerEndpoint(app, e.twoFactorEnable, async ({ body, request, reply }) => {
    reply.header('cache-control', 'no-store');
    const { admin, enrolOnly } = await enrollingAdmin(deps, request);
    if (body.code === undefined) return admins.beginTwoFactor(deps, admin);
    const created = await admins.confirmTwoFactor(deps, admin, body.code, request.ip);
    if (!enrolOnly) return created;
    // Enrolled from the login's setup page: the admin is now logged in.
    const fresh = await admins.findAdminById(deps.handle.db, admin.id);
    if (!fresh) throw new ApiError('ERR_UNAUTHENTICATED');
    await admins.recordLogin(deps, fresh.id);
    await admins.recordLoginEvent(deps, fresh, fresh.email, request.ip, { ok: true });
    return { ...created, access_token: await service.signAccessToken(deps, fresh) };
  });
}

/** The throttle keys of a profile action that checks the caller's password: per admin, per client (namespaced apart from logins). */
function profileKeys(adminId: number, ip: string): { account: string; client: string } {
  return { account: `profile:admin:${adminId}`, client: `profile:${clientKey(ip)}` };
}

/**
 * Authenticated auth routes: logout (this token, or every token), the profile and password change,
 * 2FA off and new recovery codes, an admin's 2FA reset and an MSP's enforcement. The two routes that
 * check the caller's password (`PUT /auth/password`, `DELETE /auth/two-factor-auth`) are throttled
 * like logins (docs/security.md "Logins"; issue 30: a stolen session must not become a stolen
 * password): the same atomic counters (`lib/limiter.ts`), keyed by the admin and by the client,
 * apart from the login's; a wrong password counts, anything else is uncounted; a throttled call
 * answers 429 with `Retry-After` before the password is checked.
 */
export function registerAuthRoutes(app: FastifyInstance, deps: AppDeps): void {
  const throttle = createLoginThrottle(deps.handle.db, deps.now, deps.loginThrottle);
  const e = Endpoints.auth;

  /** Runs `check` (which verifies the caller's password) under the profile throttle. */
  async function throttled<T>(request: FastifyRequest, reply: FastifyReply, check: () => Promise<T>): Promise<T> {
    const { account, client } = profileKeys(request.principal.adminId, request.ip);
    const admission = await throttle.attempt(account, client);
    if (!admission.admitted) {
      reply.header('retry-after', String(Math.ceil(admission.waitMs / 1000)));
      throw new ApiError('ERR_RATE_LIMITED');
    }
    try {
      const result = await check();
      await throttle.succeeded(admission.ticket);
      return result;
    } catch (err) {
      if (!(err instanceof admins.WrongPasswordError)) await throttle.refund(admission.ticket);
      throw err;
    }
  }

  registerEndpoint(app, e.logout, ({ request }) => service.logout(deps, request.principal));
  registerEndpoint(app, e.logoutAll, ({ caller }) => admins.logoutEverywhere(deps, caller));
  registerEndpoint(app, e.profile, ({ caller }) => admins.getProfile(deps, caller));
  registerEndpoint(app, e.profileUpdate, ({ caller, body }) => admins.updateProfile(deps, caller, body));
  registerEndpoint(app, e.passwordChange, ({ caller, body, request, reply }) =>
    throttled(request, reply, async () => {
      const admin = await admins.changePassword(deps, caller, body);
      return { access_token: await service.signAccessToken(deps, admin) };
    }),
  );
  registerEndpoint(app, e.twoFactorDisable, ({ caller, body, request, reply }) =>
    throttled(request, reply, () => admins.disableTwoFactor(deps, caller, body.password)),
  );
  registerEndpoint(app, e.recoveryCodes, ({ caller }) => admins.regenerateRecoveryCodes(deps, caller));
  registerEndpoint(app, e.twoFactorReset, ({ caller, params }) => admins.resetTwoFactor(deps, caller, params.id));
  registerEndpoint(app, e.enforceGet, ({ params }) => admins.getEnforcement(deps, params.id));
  registerEndpoint(app, e.enforceSet, ({ caller, params, body }) =>
    admins.setEnforcement(deps, caller, params.id, body.enforce),
  );
}
