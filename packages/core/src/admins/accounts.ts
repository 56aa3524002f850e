import { type Database, nowIso } from '@cordon/db';
import {
  type AdminRegister,
  ApiError,
  ErrorTexts,
  isRole,
  type PasswordChange,
  type PasswordReset,
  type Profile,
  type ProfileUpdate,
  Role,
  Texts,
} from '@cordon/shared';
import type { Kysely } from 'kysely';
import { recordEvent } from '../audit/index.ts';
import { interfaceTitle } from '../branding/index.ts';
import { type Caller, type CoreDeps, openStored, sealStored } from '../context.ts';
import { consoleUrl, mailConfigured, sendMail } from '../mail/index.ts';
import { mutate } from '../mutation/index.ts';
import { consumeLinkToken, issueLinkToken } from './links.ts';
import { adminAuditView, managedAdminById, PENDING_PASSWORD } from './management.ts';
import { hashPassword, verifyPassword } from './passwords.ts';
import { type AdminForToken, findAdminByEmail, findAdminById, findAdminByIdAndRevocation } from './repository.ts';
import {
  clearRecoveryCodes,
  isTotpCode,
  newTotpSecret,
  recoveryCodesLeft,
  replaceRecoveryCodes,
  useRecoveryCode,
  useTotpCode,
} from './twofactor.ts';

/** The caller an admin is when acting on its own account from a public route (a link, the login). */
export function selfCaller(admin: AdminForToken, ip: string | null): Caller {
  return {
    kind: 'admin',
    adminId: admin.id,
    email: admin.email,
    role: isRole(admin.role) ? admin.role : Role.Customer,
    mspId: admin.msp_id,
    customerId: admin.customer_id,
    ip,
  };
}

/** The audit event fields of an admin acting on itself. */
function eventOf(admin: AdminForToken, ip: string | null) {
  return {
    adminId: admin.id,
    email: admin.email,
    role: admin.role,
    mspId: admin.msp_id,
    customerId: admin.customer_id,
    ip,
    entity: 'admin',
    entityId: admin.id,
  };
}

const badLink = () => {
  const message = Texts.linkInvalid;
  return new ApiError('ERR_VALIDATION', message, { token: message });
};

/**
 * A wrong password given to confirm an action on one's own account (`PUT /auth/password`'s
 * `current_password`, `DELETE /auth/two-factor-auth`'s `password`): 400 `ERR_VALIDATION` naming the
 * field. Its own class so the API can count it in the throttle as a guess (docs/security.md "Logins").
 */
export class WrongPasswordError extends ApiError {
  constructor(field: 'current_password' | 'password', message: string) {
    super('ERR_VALIDATION', message, { [field]: message });
    this.name = 'WrongPasswordError';
  }
}

/** The audit actions of refused attempts on an account (docs/security.md "Accounts"; OWASP ASVS V7.2). */
export type RefusalAction =
  | 'admin.password_change_failed'
  | 'admin.2fa_disable_failed'
  | 'auth.2fa_code_refused'
  | 'auth.token_refused'
  | 'admin.api_token_create_failed';

/**
 * Records a refused attempt on `admin`'s account — a wrong current password, a refused 2FA code, a
 * refused token — as an audit row of the admin's tenant (its MSP and customer, so the admins who
 * manage it see it) with the client address. Nothing changed, so no mutation: the row is written on
 * its own (`recordEvent`), and a failure audit never needs a successful mutation (OWASP ASVS V7.2.1,
 * V7.2.2). `reason` is a short code or text, never a secret.
 */
export async function recordRefusal(
  deps: CoreDeps,
  admin: AdminForToken,
  ip: string | null,
  action: RefusalAction,
  reason: string,
): Promise<void> {
  await recordEvent(deps, { ...eventOf(admin, ip), action, after: { reason } });
}

/**
 * Records a refused access token whose signature was good: revoked by a logout (`cause` 'revoked'),
 * or of an older token generation than its admin's (a password or role change, a 2FA reset, "log out
 * everywhere": 'stale'), or of an admin deleted since. Written as `auth.token_refused` with reason
 * `revoked`, `superseded` or `admin deleted` in the admin's tenant; when the admin is gone, as a row
 * of no tenant (system admins only) naming the token's subject id. Forged or malformed tokens name
 * no admin and are not recorded (docs/security.md "Accounts").
 */
export async function recordTokenRefusal(
  deps: CoreDeps,
  adminId: number,
  ip: string | null,
  cause: 'revoked' | 'stale',
): Promise<void> {
  const admin = Number.isSafeInteger(adminId) ? await findAdminById(deps.handle.db, adminId) : undefined;
  if (admin) {
    await recordRefusal(deps, admin, ip, 'auth.token_refused', cause === 'revoked' ? 'revoked' : 'superseded');
    return;
  }
  await recordEvent(deps, {
    adminId: null,
    email: null,
    role: null,
    mspId: null,
    customerId: null,
    ip,
    action: 'auth.token_refused',
    entity: 'admin',
    entityId: Number.isSafeInteger(adminId) ? adminId : null,
    after: { reason: 'admin deleted' },
  });
}

/**
 * The admin of a token's subject, checked against the token's generation (docs/security.md
 * "Accounts"): undefined when the admin is gone or the generation was raised since (logout
 * everywhere, a password or role change, a 2FA reset).
 */
export async function adminForToken(
  deps: CoreDeps,
  id: number,
  generation: number,
): Promise<AdminForToken | undefined> {
  const admin = await findAdminById(deps.handle.db, id);
  return admin && Number(admin.token_generation) === generation ? admin : undefined;
}

/**
 * What an API request's bearer token needs checked in the database, in one statement when its
 * admin exists (bench/README.md "API reads": it runs on every request): whether token id `jti` is
 * revoked (the API's revocation list, a logout), and the admin of the token's subject as
 * {@link adminForToken} answers it (undefined when gone or of another token generation).
 */
export async function adminForBearer(
  deps: CoreDeps,
  id: number,
  generation: number,
  jti: string,
): Promise<{ admin: AdminForToken | undefined; revoked: boolean }> {
  const { admin, revoked } = await findAdminByIdAndRevocation(deps.handle.db, id, jti);
  return { admin: admin && Number(admin.token_generation) === generation ? admin : undefined, revoked };
}

/** Sets a new password and raises the token generation (every older token is refused), inside `mutate`. */
async function setPassword(
  deps: CoreDeps,
  caller: Caller,
  admin: AdminForToken,
  password: string,
  action: string,
  extra: { full_name?: string | undefined } = {},
): Promise<void> {
  const hash = await hashPassword(password);
  await mutate(deps, caller, { topics: [], audit: { action, entity: 'admin' } }, async (trx, note) => {
    await trx
      .updateTable('admins')
      .set({
        password_hash: hash,
        token_generation: Number(admin.token_generation) + 1,
        ...(extra.full_name === undefined ? {} : { full_name: extra.full_name }),
        updated_at: nowIso(deps.now()),
      })
      .where('id', '=', admin.id)
      .execute();
    const after = await findAdminById(trx, admin.id);
    Object.assign(note, {
      entityId: admin.id,
      mspId: admin.msp_id,
      customerId: admin.customer_id,
      before: adminAuditView(admin),
      after: after ? adminAuditView(after) : null,
    });
  });
}

/**
 * `POST /auth/adminregister/` (spec-notes §7 "Auth"): completes an invitation — the mailed token (single
 * use, 72 h) and the new password (spec-notes §5 rule, "Passwords must match."); optionally the name.
 * Audit `admin.register`.
 * @throws ApiError ERR_VALIDATION "This link is not valid or has expired." for any other token
 */
export async function registerInvitedAdmin(
  deps: CoreDeps,
  body: AdminRegister,
  ip: string | null,
): Promise<{ email: string; password_set: true }> {
  const adminId = await consumeLinkToken(deps.handle.db, body.token, 'invite', deps.now(), nowIso(deps.now()));
  const admin = adminId === undefined ? undefined : await findAdminById(deps.handle.db, adminId);
  if (!admin) throw badLink();
  await setPassword(deps, selfCaller(admin, ip), admin, body.password, 'admin.register', {
    full_name: body.full_name,
  });
  return { email: admin.email, password_set: true };
}

/**
 * `POST /auth/password/forgot` (spec-notes §7 "Auth"): mails a reset link (`<console>/reset-password?token=…`,
 * 1 h, single use, stored hashed) to a registered admin with this e-mail. The answer is the same
 * whether or not the address exists, and the mail goes out after the answer (its time tells
 * nothing); an unknown address is not recorded.
 * @returns a promise of the background send, for the API to log a failure (it never rejects)
 * @throws ApiError ERR_UNPROCESSABLE "Something went wrong requesting password reset. Please try
 *   again." when the system's mail settings or console address are missing (for every address alike)
 */
export async function requestPasswordReset(
  deps: CoreDeps,
  email: string,
  ip: string | null,
): Promise<{ answer: { requested: true }; sending: Promise<Error | null> }> {
  const base = await consoleUrl(deps);
  if (base === '' || !(await mailConfigured(deps, { mspId: null }))) {
    throw new ApiError('ERR_UNPROCESSABLE', ErrorTexts.passwordResetFailed);
  }
  const admin = await findAdminByEmail(deps.handle.db, email);
  if (!admin || admin.password_hash === PENDING_PASSWORD) {
    return { answer: { requested: true }, sending: Promise.resolve(null) };
  }
  const token = await issueLinkToken(deps.handle.db, admin.id, 'reset', deps.now(), nowIso(deps.now()));
  await recordEvent(deps, { ...eventOf(admin, ip), action: 'auth.password_reset_requested' });
  const title = await interfaceTitle(deps.handle.db, admin.msp_id);
  const sending = sendMail(
    deps,
    { mspId: admin.msp_id },
    {
      to: admin.email,
      subject: `Reset your ${title} password`,
      text: `Hello ${admin.full_name},\n\nsomeone (hopefully you) asked to reset your ${title} password. Choose a new one here (the link works once, for one hour):\n\n${base}/reset-password?token=${token}\n\nIf you did not ask, ignore this mail: your password stays as it is.\n`,
    },
  ).then(
    () => null,
    (e: unknown) => (e instanceof Error ? e : new Error(String(e))),
  );
  return { answer: { requested: true }, sending };
}

/**
 * `POST /auth/password` (spec-notes §7 "Auth"): sets a new password with a reset token (single use, 1 h);
 * every token of the admin issued before stops working. Audit `auth.password_reset`.
 * @throws ApiError ERR_VALIDATION "This link is not valid or has expired." for any other token
 */
export async function resetPassword(
  deps: CoreDeps,
  body: PasswordReset,
  ip: string | null,
): Promise<{ email: string; password_set: true }> {
  const adminId = await consumeLinkToken(deps.handle.db, body.token, 'reset', deps.now(), nowIso(deps.now()));
  const admin = adminId === undefined ? undefined : await findAdminById(deps.handle.db, adminId);
  if (!admin) throw badLink();
  await setPassword(deps, selfCaller(admin, ip), admin, body.password, 'auth.password_reset');
  return { email: admin.email, password_set: true };
}

/** The caller's own row. @throws ApiError ERR_UNAUTHENTICATED when it is gone */
async function own(deps: CoreDeps, caller: Caller): Promise<AdminForToken> {
  const admin = caller.adminId === null ? undefined : await findAdminById(deps.handle.db, caller.adminId);
  if (!admin) throw new ApiError('ERR_UNAUTHENTICATED');
  return admin;
}

/**
 * `PUT /auth/password` (profile): checks the current password, sets the new one and refuses every
 * older token of the caller, this one included. Audit `admin.password_change`; a wrong current
 * password is recorded as `admin.password_change_failed` (docs/security.md "Accounts").
 * @returns the admin row, for the API to sign the caller a new token
 * @throws WrongPasswordError (400 ERR_VALIDATION on `current_password`) when the current password is wrong
 */
export async function changePassword(deps: CoreDeps, caller: Caller, body: PasswordChange): Promise<AdminForToken> {
  const admin = await own(deps, caller);
  if (!(await verifyPassword(admin.password_hash, body.current_password))) {
    await recordRefusal(deps, admin, caller.ip, 'admin.password_change_failed', 'wrong current password');
    throw new WrongPasswordError('current_password', 'The current password is not correct.');
  }
  await setPassword(deps, caller, admin, body.password, 'admin.password_change');
  return own(deps, caller);
}

/**
 * `POST /auth/logout/all`: raises the caller's token generation, so every token it holds anywhere is
 * refused from now on. Recorded as `auth.logout_all`.
 */
export async function logoutEverywhere(
  deps: CoreDeps,
  caller: Caller,
): Promise<{ logged_out: true; everywhere: true }> {
  const admin = await own(deps, caller);
  await deps.handle.db
    .updateTable('admins')
    .set({ token_generation: Number(admin.token_generation) + 1 })
    .where('id', '=', admin.id)
    .execute();
  await recordEvent(deps, { ...eventOf(admin, caller.ip), action: 'auth.logout_all' });
  return { logged_out: true, everywhere: true };
}

/** The profile of an admin row (spec-notes §3 "Auth user" and the stored preferences). */
async function toProfile(deps: CoreDeps, admin: AdminForToken): Promise<Profile> {
  const role = isRole(admin.role) ? admin.role : Role.Customer;
  return {
    id: admin.id,
    accountname:
      role === Role.Customer ? (admin.customer_name ?? '') : role === Role.Msp ? (admin.msp_name ?? '') : 'System',
    email: admin.email,
    mspAccountName: admin.msp_name ?? '',
    twoFactorAuthEnabled: admin.twofa_enabled === 1,
    full_name: admin.full_name,
    role,
    lang: admin.lang,
    timezone: admin.timezone,
    enforce_twofa: admin.msp_enforce_twofa === 1 && (role === Role.Msp || role === Role.Customer),
    recovery_codes_left: admin.twofa_enabled === 1 ? await recoveryCodesLeft(deps.handle.db, admin.id) : 0,
  };
}

/** `GET /auth/profile`: the caller's profile. */
export async function getProfile(deps: CoreDeps, caller: Caller): Promise<Profile> {
  return toProfile(deps, await own(deps, caller));
}

/** `PUT /auth/profile`: the caller's name, language and time zone. Audit `admin.profile`. */
export async function updateProfile(deps: CoreDeps, caller: Caller, body: ProfileUpdate): Promise<Profile> {
  const admin = await own(deps, caller);
  await mutate(deps, caller, { topics: [], audit: { action: 'admin.profile', entity: 'admin' } }, async (trx, note) => {
    await trx
      .updateTable('admins')
      .set({
        ...(body.full_name === undefined ? {} : { full_name: body.full_name }),
        ...(body.lang === undefined ? {} : { lang: body.lang }),
        ...(body.timezone === undefined ? {} : { timezone: body.timezone }),
        updated_at: nowIso(deps.now()),
      })
      .where('id', '=', admin.id)
      .execute();
    const after = await findAdminById(trx, admin.id);
    Object.assign(note, {
      entityId: admin.id,
      mspId: admin.msp_id,
      customerId: admin.customer_id,
      before: { ...adminAuditView(admin), lang: admin.lang, timezone: admin.timezone },
      after: after ? { ...adminAuditView(after), lang: after.lang, timezone: after.timezone } : null,
    });
  });
  return getProfile(deps, caller);
}

/**
 * The second step of enrolment's first call (docs/api.md "Auth"): a new TOTP secret kept as
 * pending (nothing enabled yet), its `otpauth://` URL and QR code. Calling again replaces it.
 * @throws ApiError ERR_CONFLICT when 2FA is already on
 */
export async function beginTwoFactor(
  deps: CoreDeps,
  admin: AdminForToken,
): Promise<{ created: false; secret: string; otpauth_url: string; qr_code: string }> {
  if (admin.twofa_enabled === 1) throw new ApiError('ERR_CONFLICT', 'Two-factor authentication is already on.');
  const { secret, url, qr } = await newTotpSecret(admin.email);
  await deps.handle.db
    .updateTable('admins')
    .set({ twofa_pending_secret: sealStored(deps, secret) })
    .where('id', '=', admin.id)
    .execute();
  return { created: false, secret, otpauth_url: url, qr_code: qr };
}

/**
 * Enrolment's second call: the first code of the authenticator app confirms the pending secret;
 * 2FA is then on, with ten recovery codes (stored hashed, shown once). Audit `admin.2fa_enable`; a
 * refused code is recorded as `auth.2fa_code_refused`.
 * @throws ApiError ERR_2FA_CODE_REQUIRED for an empty code; ERR_VALIDATION when no enrolment was
 *   started; ERR_2FA_INVALID_CODE for a wrong code; ERR_CONFLICT when 2FA is already on
 */
export async function confirmTwoFactor(
  deps: CoreDeps,
  admin: AdminForToken,
  code: string,
  ip: string | null,
): Promise<{ created: true; backupCodes: string[] }> {
  if (admin.twofa_enabled === 1) throw new ApiError('ERR_CONFLICT', 'Two-factor authentication is already on.');
  if (code.trim() === '') throw new ApiError('ERR_2FA_CODE_REQUIRED');
  const pending = admin.twofa_pending_secret;
  if (pending === null) {
    const message = 'Start the enrolment first: scan the QR code, then enter its code.';
    throw new ApiError('ERR_VALIDATION', message, { code: message });
  }
  try {
    if (!isTotpCode(code)) throw new ApiError('ERR_2FA_INVALID_CODE');
    await useTotpCode(deps.handle.db, admin.id, openStored(deps, pending), code, deps.now());
  } catch (err) {
    if (err instanceof ApiError && err.code === 'ERR_2FA_INVALID_CODE') {
      await recordRefusal(deps, admin, ip, 'auth.2fa_code_refused', 'enrolment: invalid code');
    }
    throw err;
  }
  return mutate(
    deps,
    selfCaller(admin, ip),
    { topics: [], audit: { action: 'admin.2fa_enable', entity: 'admin' } },
    async (trx, note) => {
      await trx
        .updateTable('admins')
        .set({ twofa_enabled: 1, twofa_secret: pending, twofa_pending_secret: null, updated_at: nowIso(deps.now()) })
        .where('id', '=', admin.id)
        .execute();
      const backupCodes = await replaceRecoveryCodes(trx, admin.id);
      Object.assign(note, {
        entityId: admin.id,
        mspId: admin.msp_id,
        customerId: admin.customer_id,
        before: { '2fa_enabled': false },
        after: { '2fa_enabled': true, recovery_codes: backupCodes.length },
      });
      return { created: true as const, backupCodes };
    },
  );
}

/** Turns 2FA off for `adminId` and clears its secret and recovery codes (inside a transaction). */
async function clearTwoFactor(trx: Kysely<Database>, adminId: number, at: string) {
  await trx
    .updateTable('admins')
    .set({ twofa_enabled: 0, twofa_secret: null, twofa_pending_secret: null, updated_at: at })
    .where('id', '=', adminId)
    .execute();
  await clearRecoveryCodes(trx, adminId);
}

/**
 * `DELETE /auth/two-factor-auth` (spec-notes §7): with the caller's current password, turns its 2FA off and
 * clears its recovery codes. Audit `admin.2fa_disable`; a wrong password is recorded as
 * `admin.2fa_disable_failed`.
 * @throws WrongPasswordError (400 ERR_VALIDATION on `password`) for a wrong password; ApiError ERR_CONFLICT when 2FA is off; ERR_FORBIDDEN
 *   when the caller's MSP enforces 2FA
 */
export async function disableTwoFactor(deps: CoreDeps, caller: Caller, password: string): Promise<{ disabled: true }> {
  const admin = await own(deps, caller);
  if (!(await verifyPassword(admin.password_hash, password))) {
    await recordRefusal(deps, admin, caller.ip, 'admin.2fa_disable_failed', 'wrong password');
    throw new WrongPasswordError('password', 'The password is not correct.');
  }
  if (admin.twofa_enabled !== 1) throw new ApiError('ERR_CONFLICT', 'Two-factor authentication is off.');
  if ((await toProfile(deps, admin)).enforce_twofa) {
    throw new ApiError('ERR_CONFLICT', 'Your MSP requires two-factor authentication: it cannot be turned off.');
  }
  await mutate(
    deps,
    caller,
    { topics: [], audit: { action: 'admin.2fa_disable', entity: 'admin' } },
    async (trx, note) => {
      await clearTwoFactor(trx, admin.id, nowIso(deps.now()));
      Object.assign(note, {
        entityId: admin.id,
        mspId: admin.msp_id,
        customerId: admin.customer_id,
        before: { '2fa_enabled': true },
        after: { '2fa_enabled': false },
      });
    },
  );
  return { disabled: true };
}

/**
 * `POST /auth/two-factor-auth/recovery-codes`: ten new recovery codes (shown once); the old ones stop
 * working. Audit `admin.2fa_recovery_codes`.
 * @throws ApiError ERR_CONFLICT when 2FA is off
 */
export async function regenerateRecoveryCodes(deps: CoreDeps, caller: Caller): Promise<{ backupCodes: string[] }> {
  const admin = await own(deps, caller);
  if (admin.twofa_enabled !== 1) throw new ApiError('ERR_CONFLICT', 'Two-factor authentication is off.');
  return mutate(
    deps,
    caller,
    { topics: [], audit: { action: 'admin.2fa_recovery_codes', entity: 'admin' } },
    async (trx, note) => {
      const backupCodes = await replaceRecoveryCodes(trx, admin.id);
      Object.assign(note, {
        entityId: admin.id,
        mspId: admin.msp_id,
        customerId: admin.customer_id,
        after: { recovery_codes: backupCodes.length },
      });
      return { backupCodes };
    },
  );
}

/**
 * `DELETE /auth/{id}/two-factor-auth/reset` (spec-notes §7): an admin who manages admin `id` (never itself:
 * that is the profile's switch) turns its 2FA off and clears its codes, e.g. after a lost phone; the
 * admin's tokens are refused from now on. Audit `admin.2fa_reset`.
 * @throws ApiError ERR_NOT_FOUND (not managed); ERR_CONFLICT (oneself)
 */
export async function resetTwoFactor(deps: CoreDeps, caller: Caller, id: number): Promise<{ reset: true }> {
  await mutate(
    deps,
    caller,
    { topics: [], audit: { action: 'admin.2fa_reset', entity: 'admin' } },
    async (trx, note) => {
      const target = await managedAdminById(trx, caller, id);
      if (target.id === caller.adminId) {
        throw new ApiError(
          'ERR_CONFLICT',
          'Use your profile security page to change your own two-factor authentication.',
        );
      }
      await clearTwoFactor(trx, id, nowIso(deps.now()));
      await trx
        .updateTable('admins')
        .set({ token_generation: Number(target.token_generation) + 1, twofa_last_step: 0 })
        .where('id', '=', id)
        .execute();
      Object.assign(note, {
        entityId: id,
        mspId: target.msp_id,
        customerId: target.customer_id,
        before: { '2fa_enabled': target.twofa_enabled === 1 },
        after: { '2fa_enabled': false },
      });
    },
  );
  return { reset: true };
}

/** `GET /auth/msp/{id}/two-factor-auth/enforce` (the guard has checked the MSP is visible). */
export async function getEnforcement(deps: CoreDeps, mspId: number): Promise<{ enforce_twofa: boolean }> {
  const row = await deps.handle.db
    .selectFrom('msps')
    .select('enforce_twofa')
    .where('id', '=', mspId)
    .executeTakeFirst();
  if (!row) throw new ApiError('ERR_NOT_FOUND');
  return { enforce_twofa: row.enforce_twofa === 1 };
}

/**
 * `PUT /auth/msp/{id}/two-factor-auth/enforce` (spec-notes §7: `enforce`): from now on the MSP's admins and
 * its customers' admins without 2FA are sent to enrol at login. Audit `msp.2fa_enforce`.
 */
export async function setEnforcement(
  deps: CoreDeps,
  caller: Caller,
  mspId: number,
  enforce: boolean,
): Promise<{ enforce_twofa: boolean }> {
  await mutate(deps, caller, { topics: [], audit: { action: 'msp.2fa_enforce', entity: 'msp' } }, async (trx, note) => {
    const before = await trx.selectFrom('msps').select('enforce_twofa').where('id', '=', mspId).executeTakeFirst();
    if (!before) throw new ApiError('ERR_NOT_FOUND');
    await trx
      .updateTable('msps')
      .set({ enforce_twofa: enforce ? 1 : 0 })
      .where('id', '=', mspId)
      .execute();
    Object.assign(note, {
      entityId: mspId,
      mspId,
      customerId: null,
      before: { enforce_twofa: before.enforce_twofa === 1 },
      after: { enforce_twofa: enforce },
    });
  });
  return { enforce_twofa: enforce };
}

/** What the login must do after the credentials were right (docs/api.md "Auth"). */
export type SecondFactorOutcome = 'ok' | 'enrol';

/**
 * The login's second step (docs/api.md "Auth"; every text answered 422): 2FA on and no `code` →
 * "2FA is enabled"; an empty code → "Code required"; six digits → the TOTP code ("Invalid code" when
 * wrong or used before); anything else → the next unused recovery code only ("Incorrect code
 * entered"). 2FA off, and the admin's MSP enforces it (MSP and customer admins) → `enrol`.
 * @throws ApiError of the 2FA codes above
 */
export async function checkSecondFactor(
  deps: CoreDeps,
  admin: AdminForToken,
  code: string | undefined,
  ip: string | null,
): Promise<SecondFactorOutcome> {
  if (admin.twofa_enabled !== 1) {
    const enforced = admin.msp_enforce_twofa === 1 && (admin.role === Role.Msp || admin.role === Role.Customer);
    return enforced ? 'enrol' : 'ok';
  }
  if (code === undefined) throw new ApiError('ERR_2FA_ENABLED');
  if (code.trim() === '') throw new ApiError('ERR_2FA_CODE_REQUIRED');
  if (isTotpCode(code)) {
    // 2FA on without a secret (never written so; fail closed): no code can match.
    if (admin.twofa_secret === null) throw new ApiError('ERR_2FA_INVALID_CODE');
    await useTotpCode(deps.handle.db, admin.id, openStored(deps, admin.twofa_secret), code, deps.now());
    return 'ok';
  }
  const position = await useRecoveryCode(deps.handle.db, admin.id, code, nowIso(deps.now()));
  await recordEvent(deps, { ...eventOf(admin, ip), action: 'auth.recovery_code_used', after: { position } });
  return 'ok';
}

/** Records a login (`auth.login`, with how: password, TOTP or recovery code) or a failed one (`auth.login_failed`). */
export async function recordLoginEvent(
  deps: CoreDeps,
  admin: AdminForToken | undefined,
  email: string,
  ip: string | null,
  outcome: { ok: true } | { ok: false; reason: string },
): Promise<void> {
  if (admin) {
    await recordEvent(deps, {
      ...eventOf(admin, ip),
      action: outcome.ok ? 'auth.login' : 'auth.login_failed',
      ...(outcome.ok ? {} : { after: { reason: outcome.reason } }),
    });
    return;
  }
  await recordEvent(deps, {
    adminId: null,
    email: email.slice(0, 200),
    role: null,
    mspId: null,
    customerId: null,
    ip,
    action: 'auth.login_failed',
    entity: 'admin',
    entityId: null,
    after: outcome.ok ? null : { reason: outcome.reason },
  });
}
