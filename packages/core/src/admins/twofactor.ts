import { createHash, randomInt, timingSafeEqual } from 'node:crypto';
import type { Database } from '@cordon/db';
import { ApiError } from '@cordon/shared';
import type { Kysely } from 'kysely';
import { Secret, TOTP } from 'otpauth';
import QRCode from 'qrcode';

/** TOTP parameters (RFC 6238 §4, the authenticator apps' defaults): SHA-1, 6 digits, 30 s steps. */
const PERIOD_S = 30;
const DIGITS = 6;
/** Steps accepted either side of now (RFC 6238 §5.2: one step of clock drift). */
const WINDOW = 1;
/** The issuer shown in authenticator apps. */
export const TOTP_ISSUER = 'Cordon';
/** How many recovery codes an admin gets (docs/api.md "Auth"). */
export const RECOVERY_CODE_COUNT = 10;

function totp(secretBase32: string, label: string): TOTP {
  return new TOTP({
    issuer: TOTP_ISSUER,
    label,
    algorithm: 'SHA1',
    digits: DIGITS,
    period: PERIOD_S,
    secret: Secret.fromBase32(secretBase32),
  });
}

/** A new TOTP secret (160 bits, RFC 4226 §4 R6) as base32, its `otpauth://` URL and the URL's QR code as a PNG data URL. */
export async function newTotpSecret(label: string): Promise<{ secret: string; url: string; qr: string }> {
  const secret = new Secret({ size: 20 }).base32;
  const url = totp(secret, label).toString();
  return { secret, url, qr: await QRCode.toDataURL(url) };
}

/**
 * The time step (RFC 6238 §4.2) a 6-digit `code` is valid for at `now` (epoch ms), within one step
 * of drift, or null when it matches none.
 */
export function totpStep(secretBase32: string, code: string, now: number): number | null {
  const delta = totp(secretBase32, '').validate({ token: code, timestamp: now, window: WINDOW });
  return delta === null ? null : Math.floor(now / 1000 / PERIOD_S) + delta;
}

/** The current code of a secret (tests and the e2e story generate codes as an authenticator app would). */
export function totpCode(secretBase32: string, now: number): string {
  return totp(secretBase32, '').generate({ timestamp: now });
}

/** True when `code` looks like a TOTP code (six digits) rather than a recovery code. */
export function isTotpCode(code: string): boolean {
  return /^\d{6}$/.test(code.trim());
}

const ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';

/** A recovery code: ten characters of a 31-letter alphabet without look-alikes (≈ 50 bits), shown as `xxxxx-xxxxx`. */
function newRecoveryCode(): string {
  let out = '';
  for (let i = 0; i < 10; i += 1) out += ALPHABET[randomInt(ALPHABET.length)];
  return `${out.slice(0, 5)}-${out.slice(5)}`;
}

/** A recovery code as typed, normalised: lower case, spaces and dashes removed. */
function normaliseRecoveryCode(code: string): string {
  return code.toLowerCase().replace(/[\s-]/g, '');
}

function hashRecoveryCode(code: string): string {
  return createHash('sha256').update(normaliseRecoveryCode(code)).digest('hex');
}

/**
 * Replaces an admin's recovery codes with {@link RECOVERY_CODE_COUNT} new ones, stored hashed with
 * their positions 1–10 (inside the caller's transaction).
 * @returns the codes, to be shown once
 */
export async function replaceRecoveryCodes(db: Kysely<Database>, adminId: number): Promise<string[]> {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
  await db.deleteFrom('admin_recovery_codes').where('admin_id', '=', adminId).execute();
  await db
    .insertInto('admin_recovery_codes')
    .values(
      codes.map((c, i) => ({ admin_id: adminId, position: i + 1, code_hash: hashRecoveryCode(c), used_at: null })),
    )
    .execute();
  return codes;
}

/** Deletes every recovery code of an admin. */
export async function clearRecoveryCodes(db: Kysely<Database>, adminId: number): Promise<void> {
  await db.deleteFrom('admin_recovery_codes').where('admin_id', '=', adminId).execute();
}

/** How many of an admin's recovery codes are still unused. */
export async function recoveryCodesLeft(db: Kysely<Database>, adminId: number): Promise<number> {
  const row = await db
    .selectFrom('admin_recovery_codes')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('admin_id', '=', adminId)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/**
 * Uses a recovery code (docs/api.md "Auth"): only the next unused code (the lowest unused position)
 * is accepted; it is marked used by a conditional UPDATE, so it works once even under concurrent logins.
 * @returns the position used
 * @throws ApiError ERR_2FA_INCORRECT_RECOVERY ("Incorrect code entered") for any other code, a used
 *   one and an out-of-order one alike
 */
export async function useRecoveryCode(
  db: Kysely<Database>,
  adminId: number,
  code: string,
  at: string,
): Promise<number> {
  const next = await db
    .selectFrom('admin_recovery_codes')
    .select(['id', 'position', 'code_hash'])
    .where('admin_id', '=', adminId)
    .where('used_at', 'is', null)
    .orderBy('position')
    .executeTakeFirst();
  const given = Buffer.from(hashRecoveryCode(code));
  if (!next || given.length !== next.code_hash.length || !timingSafeEqual(given, Buffer.from(next.code_hash))) {
    throw new ApiError('ERR_2FA_INCORRECT_RECOVERY');
  }
  const done = await db
    .updateTable('admin_recovery_codes')
    .set({ used_at: at })
    .where('id', '=', next.id)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  if (Number(done.numUpdatedRows) !== 1) throw new ApiError('ERR_2FA_INCORRECT_RECOVERY');
  return next.position;
}

/**
 * Accepts a TOTP code for an admin whose secret is `secret`: valid within one step of drift and of a
 * later step than the last accepted one (a code is never accepted twice, RFC 6238 §5.2); the step is
 * recorded by a conditional UPDATE.
 * @throws ApiError ERR_2FA_INVALID_CODE ("Invalid code")
 */
export async function useTotpCode(
  db: Kysely<Database>,
  adminId: number,
  secret: string,
  code: string,
  now: number,
): Promise<void> {
  const step = totpStep(secret, code.trim(), now);
  if (step === null) throw new ApiError('ERR_2FA_INVALID_CODE');
  const done = await db
    .updateTable('admins')
    .set({ twofa_last_step: step })
    .where('id', '=', adminId)
    .where('twofa_last_step', '<', step)
    .executeTakeFirst();
  if (Number(done.numUpdatedRows) !== 1) throw new ApiError('ERR_2FA_INVALID_CODE');
}
