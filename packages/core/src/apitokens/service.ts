import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { nowIso } from '@cordon/db';
import {
  ApiError,
  type ApiToken,
  type ApiTokenAccess,
  type ApiTokenCreate,
  type ApiTokenCreated,
  isRole,
  type Role,
} from '@cordon/shared';
import * as admins from '../admins/index.ts';
import { recordEvent } from '../audit/index.ts';
import type { Caller, CoreDeps } from '../context.ts';
import { mutate } from '../mutation/index.ts';
import * as repo from './repository.ts';

/** Every API token secret starts with this, so secret scanners can find a leaked one (docs/security.md "API tokens"). */
export const API_TOKEN_PREFIX = 'cdn_';

/** A token's `last_used_at` is written at most once per this many milliseconds (no write per request). */
export const LAST_USED_INTERVAL_MS = 60_000;

const DAY_MS = 86_400_000;
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** `cdn_` + 12 base62 characters (the public lookup prefix) + `_` + 43 base64url characters (32 random bytes). */
const SECRET_SHAPE = /^cdn_([0-9A-Za-z]{12})_([A-Za-z0-9_-]{43})$/;

/** True when a bearer value is meant as an API token (it then never goes to the JWT check). */
export function looksLikeApiToken(bearer: string): boolean {
  return bearer.startsWith(API_TOKEN_PREFIX);
}

/** `n` characters of base62 from the CSPRNG (rejection sampling: no modulo bias). */
function base62(n: number): string {
  let out = '';
  while (out.length < n) {
    for (const byte of randomBytes(n * 2)) {
      if (byte < 248 && out.length < n) out += BASE62[byte % 62];
    }
  }
  return out;
}

const sha256 = (text: string): Buffer => createHash('sha256').update(text).digest();

function toApiToken(r: repo.ApiTokenRow): ApiToken {
  return {
    id: r.id,
    name: r.name,
    prefix: r.prefix,
    access: r.access === 'read' ? 'read' : 'read-write',
    created_at: r.created_at,
    expires_at: r.expires_at,
    last_used_at: r.last_used_at,
    last_used_ip: r.last_used_ip,
    revoked_at: r.revoked_at,
  };
}

/** The caller's admin id. @throws ApiError ERR_FORBIDDEN for the operator (tokens belong to admins) */
function adminIdOf(caller: Caller): number {
  if (caller.kind !== 'admin' || caller.adminId === null) throw new ApiError('ERR_FORBIDDEN');
  return caller.adminId;
}

/** `GET /auth/api-tokens`: the caller's own tokens, newest first, revoked ones included; never a secret. */
export async function listApiTokens(deps: CoreDeps, caller: Caller): Promise<{ data: ApiToken[]; total: number }> {
  const rows = await repo.tokensOf(deps.handle.db, adminIdOf(caller));
  return { data: rows.map(toApiToken), total: rows.length };
}

/**
 * `POST /auth/api-tokens` (docs/api.md "API tokens"): checks the caller's current password and, when
 * its 2FA is on, `code` (admins' `checkSecondFactor`: a TOTP code is used once), then stores a new
 * token for the caller with its current role, and answers the secret this once. Expiry: `now +
 * expires_in_days` days, or `expires_at`, or never. A wrong password is recorded as
 * `admin.api_token_create_failed`; the creation as `admin.api_token_create` (name, access, prefix,
 * expiry; never the secret or its hash).
 * @throws admins.WrongPasswordError (400 on `current_password`); ApiError of the 2FA codes (422);
 *   ERR_VALIDATION (400) for an `expires_at` not in the future; ERR_FORBIDDEN (403) when the caller
 *   is itself an API token (a token cannot mint tokens) or not an admin
 */
export async function createApiToken(deps: CoreDeps, caller: Caller, body: ApiTokenCreate): Promise<ApiTokenCreated> {
  const adminId = adminIdOf(caller);
  if (caller.apiToken) {
    throw new ApiError('ERR_FORBIDDEN', 'An API token cannot create API tokens: log in with your password.');
  }
  const admin = await admins.findAdminById(deps.handle.db, adminId);
  if (!admin) throw new ApiError('ERR_UNAUTHENTICATED');
  const now = deps.now();
  let expiresAt: string | null = null;
  if (body.expires_in_days !== undefined) expiresAt = nowIso(now + body.expires_in_days * DAY_MS);
  if (body.expires_at !== undefined) {
    if (Date.parse(body.expires_at) <= now) {
      const message = 'The expiry must be in the future.';
      throw new ApiError('ERR_VALIDATION', message, { expires_at: message });
    }
    expiresAt = body.expires_at;
  }
  if (!(await admins.verifyPassword(admin.password_hash, body.current_password))) {
    await admins.recordRefusal(deps, admin, caller.ip, 'admin.api_token_create_failed', 'wrong current password');
    throw new admins.WrongPasswordError('current_password', 'The current password is not correct.');
  }
  await admins.checkSecondFactor(deps, admin, body.code, caller.ip);
  const prefix = base62(12);
  const secret = `${API_TOKEN_PREFIX}${prefix}_${randomBytes(32).toString('base64url')}`;
  const row = await mutate(
    deps,
    caller,
    { topics: [], audit: { action: 'admin.api_token_create', entity: 'api_token' } },
    async (trx, note) => {
      const inserted = await repo.insertToken(trx, {
        admin_id: adminId,
        name: body.name,
        prefix,
        secret_hash: sha256(secret).toString('hex'),
        access: body.access,
        role: admin.role,
        expires_at: expiresAt,
        created_at: nowIso(now),
      });
      Object.assign(note, {
        entityId: inserted.id,
        after: { name: body.name, access: body.access, prefix, expires_at: expiresAt },
      });
      return inserted;
    },
  );
  return { ...toApiToken(row), secret };
}

/**
 * `DELETE /auth/api-tokens/{id}`: revokes one of the caller's tokens; the next call with it is
 * refused. Revoking a revoked token answers it unchanged (and writes nothing). Audit `admin.api_token_revoke`.
 * @throws ApiError ERR_NOT_FOUND (404) for a missing id or another admin's token (the same answer)
 */
export async function revokeApiToken(deps: CoreDeps, caller: Caller, id: number): Promise<ApiToken> {
  const adminId = adminIdOf(caller);
  const found = await repo.tokenOf(deps.handle.db, adminId, id);
  if (!found) throw new ApiError('ERR_NOT_FOUND');
  if (found.revoked_at !== null) return toApiToken(found);
  const at = nowIso(deps.now());
  await mutate(
    deps,
    caller,
    { topics: [], audit: { action: 'admin.api_token_revoke', entity: 'api_token' } },
    async (trx, note) => {
      await trx
        .updateTable('api_tokens')
        .set({ revoked_at: at })
        .where('id', '=', id)
        .where('admin_id', '=', adminId)
        .execute();
      Object.assign(note, { entityId: id, before: { name: found.name }, after: { revoked_at: at } });
    },
  );
  return toApiToken({ ...found, revoked_at: at });
}

/** An accepted use of an API token: who it acts as, and the token's own facts. */
export interface ApiTokenUse {
  readonly admin: {
    readonly id: number;
    readonly email: string;
    readonly role: Role;
    readonly mspId: number | null;
    readonly customerId: number | null;
  };
  readonly token: { readonly id: number; readonly name: string; readonly access: ApiTokenAccess };
}

/**
 * Checks an API token secret on a request (docs/api.md "API tokens"): the shape, the row found by its
 * prefix, the SHA-256 of the secret compared in constant time, then not revoked, not expired
 * (`expires_at` ≤ now is expired), its admin still there (the row is joined on every use) and with
 * the role the token was created with (a demoted or promoted admin's tokens are refused). Records the
 * use (at most once per {@link LAST_USED_INTERVAL_MS}). A refused token whose secret was right is
 * recorded as `auth.token_refused` with the reason in its admin's tenant.
 * @returns the use, or undefined when the token is refused (the API answers 401)
 */
export async function authenticateApiToken(
  deps: CoreDeps,
  secret: string,
  ip: string | null,
): Promise<ApiTokenUse | undefined> {
  const m = SECRET_SHAPE.exec(secret);
  if (!m?.[1]) return undefined;
  const row = await repo.tokenByPrefix(deps.handle.db, m[1]);
  if (!row) return undefined;
  if (!timingSafeEqual(sha256(secret), Buffer.from(row.secret_hash, 'hex'))) return undefined;
  const now = deps.now();
  const reason =
    row.revoked_at !== null
      ? 'api token revoked'
      : row.expires_at !== null && Date.parse(row.expires_at) <= now
        ? 'api token expired'
        : row.admin_role !== row.role || !isRole(row.admin_role)
          ? 'api token of a changed role'
          : null;
  if (reason !== null) {
    await recordEvent(deps, {
      adminId: row.admin_id,
      email: row.admin_email,
      role: row.admin_role,
      mspId: row.admin_msp_id,
      customerId: row.admin_customer_id,
      ip,
      action: 'auth.token_refused',
      entity: 'api_token',
      entityId: row.id,
      after: { reason },
    });
    return undefined;
  }
  await repo.touchToken(deps.handle.db, row.id, nowIso(now), ip, nowIso(now - LAST_USED_INTERVAL_MS));
  return {
    admin: {
      id: row.admin_id,
      email: row.admin_email,
      role: row.admin_role as Role,
      mspId: row.admin_msp_id,
      customerId: row.admin_customer_id,
    },
    token: { id: row.id, name: row.name, access: row.access === 'read' ? 'read' : 'read-write' },
  };
}
