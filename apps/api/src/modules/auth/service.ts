import { createHash, randomUUID, timingSafeEqual, webcrypto } from 'node:crypto';
import { admins } from '@cordon/core';
import {
  ApiError,
  type AuthorizeQuery,
  Constants,
  isRole,
  Role,
  type TokenClaims,
  tokenClaimsSchema,
} from '@cordon/shared';
import { jwtVerify, SignJWT } from 'jose';
import type { AppDeps, Principal } from '../../types.ts';
import { revokeToken } from './repository.ts';

type AdminForToken = admins.AdminForToken;

/** base64url(sha256(verifier)): the S256 PKCE challenge (RFC 7636 §4.2). */
export function pkceChallenge(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url');
}

/** Constant-time string equality. */
function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * Parses `Authorization: Basic base64(email:password)`.
 * @throws ApiError ERR_BAD_CREDENTIALS (401) when missing or malformed
 */
export function parseBasic(header: string | undefined): { email: string; password: string } {
  const m = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? '');
  const decoded = m ? Buffer.from(m[1] ?? '', 'base64').toString('utf8') : '';
  const colon = decoded.indexOf(':');
  if (colon <= 0) throw new ApiError('ERR_BAD_CREDENTIALS');
  return { email: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/** The token's `account_name`: the customer's for role 4, the MSP's for role 3, 'System' otherwise (docs/api.md "Auth"). */
function accountName(admin: AdminForToken): string {
  if (admin.role === Role.Customer) return admin.customer_name ?? '';
  if (admin.role === Role.Msp) return admin.msp_name ?? '';
  return 'System';
}

/**
 * Signs a 12 h HS256 access token with exactly the claims of `tokenClaimsSchema` (docs/api.md "Auth"), with
 * the key ring's signing key, whose id travels in the `kid` header (RFC 7515 §4.1.4).
 * @returns the compact JWT
 */
export async function signAccessToken(deps: AppDeps, admin: AdminForToken): Promise<string> {
  const iat = Math.floor(deps.now() / 1000);
  const role = isRole(admin.role) ? admin.role : Role.Customer;
  return new SignJWT({
    name: admin.full_name,
    email: admin.email,
    account_name: accountName(admin),
    '2fa_enabled': admin.twofa_enabled === 1,
    vue_role: role,
    msp_id: role === Role.Msp || role === Role.Customer ? admin.msp_id : null,
    is_default: admin.is_default === 1,
    user_id: role === Role.Customer ? admin.customer_id : null,
  })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT', kid: deps.jwtKeys.signing.kid })
    .setSubject(String(admin.id))
    .setJti(tokenId(admin))
    .setIssuedAt(iat)
    .setExpirationTime(iat + Constants.accessTokenTtlSeconds)
    .sign(deps.jwtKeys.signing.secret);
}

/**
 * A token id: `<generation>.<uuid>`. The admin's token generation travels in it, so raising the
 * generation (logout everywhere, a password or role change, a 2FA reset) refuses every older token
 * (docs/security.md "Accounts").
 */
function tokenId(admin: AdminForToken): string {
  return `${Number(admin.token_generation)}.${randomUUID()}`;
}

/** The generation of a token id of {@link tokenId}; an id without one (issued before generations existed) is generation 0. */
function generationOf(jti: string): number {
  const dot = jti.indexOf('.');
  const gen = dot < 0 ? 0 : Number(jti.slice(0, dot));
  return Number.isSafeInteger(gen) && gen >= 0 ? gen : -1;
}

/** The `aud` of an enrolment-only token: its one right is `POST /auth/two-factor-auth` (docs/api.md "Auth"). */
export const ENROL_AUDIENCE = 'cordon:2fa-enrol';
/** Lifetime of an enrolment-only token, s: long enough to install an authenticator app. */
export const ENROL_TOKEN_TTL_SECONDS = 15 * 60;

/**
 * Signs the short-lived enrolment-only token of the `2FA is enforced` login answer: `sub`, `aud`
 * {@link ENROL_AUDIENCE}, `jti`, `iat`, `exp` and none of the access token's claims, so the token
 * check of every other route refuses it.
 */
export async function signEnrolToken(deps: AppDeps, admin: AdminForToken): Promise<string> {
  const iat = Math.floor(deps.now() / 1000);
  return new SignJWT({})
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT', kid: deps.jwtKeys.signing.kid })
    .setSubject(String(admin.id))
    .setAudience(ENROL_AUDIENCE)
    .setJti(tokenId(admin))
    .setIssuedAt(iat)
    .setExpirationTime(iat + ENROL_TOKEN_TTL_SECONDS)
    .sign(deps.jwtKeys.signing.secret);
}

/**
 * The 422 `2FA is enforced` answer with its enrolment-only token (docs/api.md "Auth"): in `token`,
 * and in `fields.token` too, where the console's client keeps an error's details.
 */
export class TwoFactorEnforcedError extends ApiError {
  readonly token: string;
  constructor(token: string) {
    super('ERR_2FA_ENFORCED', undefined, { token });
    this.token = token;
  }
  override toBody() {
    return { ...super.toBody(), token: this.token };
  }
}

/**
 * Each ring secret as a WebCrypto HMAC SHA-256 verification key, imported once. jose 6 uses a
 * `CryptoKey` as it is; given raw bytes, or a secret `KeyObject` (which it exports back to bytes),
 * it imports one on every verification: `importKey` and its checks were ≈ 5 % of the API's busy CPU
 * on a light route (bench/results/history.md "The API's token key imported once, and this round's API reads").
 */
const verifyKeys = new WeakMap<Uint8Array, Promise<webcrypto.CryptoKey>>();

/**
 * The key of a token's `kid` header in the ring, as a `CryptoKey` for HS256 verification.
 * @throws Error for an unknown kid
 */
function keyFor(deps: AppDeps) {
  return (header: { kid?: string | undefined }): Promise<webcrypto.CryptoKey> => {
    const key = header.kid === undefined ? undefined : deps.jwtKeys.byKid.get(header.kid);
    if (!key) throw new Error('unknown kid');
    let imported = verifyKeys.get(key.secret);
    if (imported === undefined) {
      imported = webcrypto.subtle.importKey('raw', key.secret, { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']);
      verifyKeys.set(key.secret, imported);
    }
    return imported;
  };
}

/**
 * Verifies an enrolment-only token (signature, `aud`, expiry, generation) and returns its admin, who
 * must not have 2FA on yet.
 * @throws ApiError ERR_UNAUTHENTICATED for any failure
 */
export async function authenticateEnrolToken(deps: AppDeps, token: string): Promise<AdminForToken> {
  try {
    const { payload } = await jwtVerify(token, keyFor(deps), {
      algorithms: ['HS256'],
      audience: ENROL_AUDIENCE,
      currentDate: new Date(deps.now()),
      maxTokenAge: ENROL_TOKEN_TTL_SECONDS,
      clockTolerance: TOKEN_CLOCK_SKEW_SECONDS,
      requiredClaims: ['iat', 'exp', 'jti', 'sub'],
    });
    const exp = payload.exp ?? 0;
    if (exp <= Math.floor(deps.now() / 1000) || exp - (payload.iat ?? 0) > ENROL_TOKEN_TTL_SECONDS) {
      throw new Error('expired');
    }
    const admin = await admins.adminForToken(deps, Number(payload.sub), generationOf(payload.jti ?? ''));
    if (!admin || admin.twofa_enabled === 1) throw new Error('no admin');
    return admin;
  } catch {
    throw new ApiError('ERR_UNAUTHENTICATED');
  }
}

/**
 * The login of spec-notes §7 (`GET /oauth/authorize`): checks the PKCE pair, the credentials and the
 * second factor, and issues an access token (docs/api.md "Auth"). The query has already been validated
 * (client id, response type, lengths).
 * @throws ApiError ERR_VALIDATION (400) for a challenge that does not match the verifier;
 *   ERR_BAD_CREDENTIALS (401) for a wrong e-mail or password; the 422s of the second factor
 *   (`admins.checkSecondFactor`); {@link TwoFactorEnforcedError} (422 with an enrolment-only token)
 *   when the admin's MSP enforces 2FA and it has none
 */
export async function authorize(
  deps: AppDeps,
  query: AuthorizeQuery,
  credentials: { email: string; password: string },
  ip: string | null = null,
): Promise<{ access_token: string }> {
  if (!safeEqual(pkceChallenge(query.code_verifier), query.code_challenge)) {
    const message = 'code_challenge does not match code_verifier (S256).';
    throw new ApiError('ERR_VALIDATION', message, { code_challenge: message });
  }
  const admin = await admins.checkCredentials(deps, credentials.email, credentials.password);
  if (!admin) throw new ApiError('ERR_BAD_CREDENTIALS');
  const outcome = await admins.checkSecondFactor(deps, admin, query.code, ip);
  if (outcome === 'enrol') throw new TwoFactorEnforcedError(await signEnrolToken(deps, admin));
  await admins.recordLogin(deps, admin.id);
  await admins.recordLoginEvent(deps, admin, admin.email, ip, { ok: true });
  return { access_token: await signAccessToken(deps, admin) };
}

/** Clock difference between API processes tolerated on `iat` (a token issued slightly "in the future"), seconds. */
export const TOKEN_CLOCK_SKEW_SECONDS = 30;

/**
 * Verifies a bearer token: a known `kid` of the key ring and its signature, expiry (against the app
 * clock), an `iat` neither in the future (beyond {@link TOKEN_CLOCK_SKEW_SECONDS}) nor older than the
 * 12 h lifetime, a lifetime `exp − iat` of at most 12 h (docs/security.md "Tokens and secrets at rest": a token signed with a long
 * `exp` is refused whatever it claims), the claim shape (an enrolment-only token has none of the
 * claims, so it is refused here), revocation, and that its admin still exists with the token's
 * generation (docs/security.md "Accounts"). A genuine token refused (revoked, superseded, its admin
 * deleted) is recorded as `auth.token_refused` with the client address `ip` (`admins.recordTokenRefusal`).
 * Role and tenant ids come from the database row, not the claims, so a moved or deleted admin loses
 * access at once.
 * @throws ApiError ERR_UNAUTHENTICATED (401, text contains '401') for any failure
 */
export async function authenticateToken(deps: AppDeps, token: string, ip: string | null = null): Promise<Principal> {
  let claims: TokenClaims;
  try {
    const { payload } = await jwtVerify(token, keyFor(deps), {
      algorithms: ['HS256'],
      currentDate: new Date(deps.now()),
      maxTokenAge: Constants.accessTokenTtlSeconds,
      clockTolerance: TOKEN_CLOCK_SKEW_SECONDS,
      requiredClaims: ['iat', 'exp', 'jti', 'sub'],
    });
    claims = tokenClaimsSchema.parse(payload);
    // The skew tolerance is for `iat` only: an expired token is refused from its `exp` on.
    if (claims.exp <= Math.floor(deps.now() / 1000)) throw new Error('expired');
    if (claims.exp - claims.iat > Constants.accessTokenTtlSeconds) throw new Error('lifetime too long');
  } catch {
    throw new ApiError('ERR_UNAUTHENTICATED');
  }
  // From here the token is genuine (our key, in its lifetime): a refusal is worth an audit row in its
  // admin's tenant (OWASP ASVS V7.2.2; docs/security.md "Accounts").
  // The revocation and the admin in one statement (every request asks them).
  const { admin, revoked } = await admins.adminForBearer(
    deps,
    Number(claims.sub),
    generationOf(claims.jti),
    claims.jti,
  );
  if (revoked) {
    await admins.recordTokenRefusal(deps, Number(claims.sub), ip, 'revoked');
    throw new ApiError('ERR_UNAUTHENTICATED');
  }
  if (!admin || !isRole(admin.role)) {
    await admins.recordTokenRefusal(deps, Number(claims.sub), ip, 'stale');
    throw new ApiError('ERR_UNAUTHENTICATED');
  }
  return {
    adminId: admin.id,
    email: admin.email,
    role: admin.role,
    mspId: admin.msp_id,
    customerId: admin.customer_id,
    jti: claims.jti,
    exp: claims.exp,
  };
}

/**
 * Revokes the caller's token (`POST /auth/logout`). Not a tenant change, so not through the mutation
 * path: the revocation list is the API's token state, and a logout carries nothing to audit.
 */
export async function logout(deps: AppDeps, principal: Principal): Promise<{ logged_out: true }> {
  await revokeToken(deps.handle.db, principal.jti, principal.exp, Math.floor(deps.now() / 1000));
  return { logged_out: true };
}
