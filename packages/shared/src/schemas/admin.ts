import { z } from 'zod';
import { Messages, Texts } from '../messages.ts';
import { emailSchema, idSchema, listQuerySchema, newPasswordSchema, requiredText, timeZoneSchema } from './common.ts';

/** A role number on the wire: 1 system, 2 sales, 3 MSP, 4 customer (spec-notes §4; docs/architecture.md "Tenancy"). */
export const roleSchema = z.union([z.literal(1), z.literal(2), z.literal(3), z.literal(4)], {
  error: 'Role must be 1 (system), 2 (sales), 3 (MSP) or 4 (customer).',
});

/**
 * An administrator as the Administrators pages show it (spec-notes §3 "Admin": id, 2fa_enabled (On/Off),
 * full name, email, role), with its tenant (`msp_id`, `user_id` = the customer), whether it is the
 * MSP's or customer's primary admin (`is_default`, never deleted or demoted), and `pending` while
 * an invitation has not been completed.
 */
export const adminSchema = z.object({
  id: z.number().int(),
  email: z.string(),
  full_name: z.string(),
  role: roleSchema,
  msp_id: z.number().int().nullable(),
  user_id: z.number().int().nullable(),
  is_default: z.boolean(),
  '2fa_enabled': z.boolean(),
  pending: z.boolean(),
  last_login_at: z.string().nullable(),
  created_at: z.string(),
});
export type Admin = z.infer<typeof adminSchema>;

/**
 * Query of `GET /admin` (spec-notes §7 "Admins": `msp_id`, `user_id`): the admins of that MSP (role 3) or
 * customer (role 4); neither: the caller's own level (system and sales admins for a system admin).
 * Sort keys `name` (full name), `email`, `role`, `id`, `created_at`, `last_login_at`.
 */
export const adminListQuerySchema = listQuerySchema.extend({
  msp_id: idSchema.optional(),
  user_id: idSchema.optional(),
});
export type AdminListQuery = z.infer<typeof adminListQuerySchema>;

/**
 * Body of `POST /admin/` (spec-notes §7, "with optional user_id or msp_id"): the new admin gets an
 * invitation mail to set its password (`POST /auth/adminregister/`). `role` defaults from the
 * tenant: `user_id` → 4, `msp_id` → 3, neither → the caller's own level (1 for a system admin).
 */
export const adminCreateSchema = z.strictObject({
  email: emailSchema,
  full_name: requiredText,
  role: roleSchema.optional(),
  msp_id: idSchema.optional(),
  user_id: idSchema.optional(),
});
export type AdminCreate = z.infer<typeof adminCreateSchema>;

/**
 * Body of `PUT /admin/{id}`: name, e-mail and role. `msp_id`/`user_id` are accepted only to refuse
 * a move to another tenant (403); `is_default` only unchanged.
 */
export const adminUpdateSchema = z.strictObject({
  email: emailSchema.optional(),
  full_name: requiredText.optional(),
  role: roleSchema.optional(),
  msp_id: idSchema.nullable().optional(),
  user_id: idSchema.nullable().optional(),
  is_default: z.boolean().optional(),
});
export type AdminUpdate = z.infer<typeof adminUpdateSchema>;

/** Answer of `POST /admin/` and of a re-sent invitation: the admin, and whether the invitation mail went out. */
export const adminCreatedSchema = adminSchema.extend({ invitation_sent: z.boolean() });

/** Answer of `POST /admin/{id}/invite`. */
export const invitationResponseSchema = z.object({ invitation_sent: z.literal(true) });

/** A single-use token of an invitation or password-reset link: 43 base64url characters (32 bytes). */
export const linkTokenSchema = z.string({ error: Messages.required }).regex(/^[A-Za-z0-9_-]{43}$/, {
  error: Texts.linkInvalid,
});

/** A new password with its confirmation (spec-notes §5 "Passwords must match."). */
const passwordPair = {
  password: newPasswordSchema,
  password_confirmation: z.string({ error: Messages.required }),
};
const mustMatch = (v: { password: string; password_confirmation: string }) => v.password === v.password_confirmation;
const mismatch = { error: Messages.passwordsMustMatch, path: ['password_confirmation'] };

/** Body of `POST /auth/adminregister/`: the invitation's token, the password (twice) and optionally the name. */
export const adminRegisterSchema = z
  .object({ token: linkTokenSchema, full_name: requiredText.optional(), ...passwordPair })
  .refine(mustMatch, mismatch);
export type AdminRegister = z.infer<typeof adminRegisterSchema>;

/** Body of `POST /auth/password/forgot`. */
export const passwordForgotSchema = z.object({ email: emailSchema });

/** The answer of `POST /auth/password/forgot`, whatever the address (no hint whether it exists). */
export const passwordForgotResponseSchema = z.object({ requested: z.literal(true) });

/** Body of `POST /auth/password`: the reset link's token and the new password (twice). */
export const passwordResetSchema = z.object({ token: linkTokenSchema, ...passwordPair }).refine(mustMatch, mismatch);
export type PasswordReset = z.infer<typeof passwordResetSchema>;

/** Answer of `POST /auth/password` and `POST /auth/adminregister/`: done; log in with the new password. */
export const passwordSetResponseSchema = z.object({ email: z.string(), password_set: z.literal(true) });

/** Body of `POST /auth/two-factor-auth` (docs/api.md "Auth"): no `code` → a new secret; the app's `code` → enable. */
export const twoFactorEnableSchema = z.object({ code: z.string().trim().max(64).optional() });

/**
 * Answer of `POST /auth/two-factor-auth`: the first call's secret (`secret`, `otpauth_url`, the QR
 * code as a PNG data URL; nothing enabled yet), or the second call's `created` with the ten
 * `backupCodes` (shown once). With an enrolment-only token, the second call also answers a full
 * `access_token`.
 */
export const twoFactorEnableResponseSchema = z.union([
  z.object({ created: z.literal(false), secret: z.string(), otpauth_url: z.string(), qr_code: z.string() }),
  z.object({ created: z.literal(true), backupCodes: z.array(z.string()), access_token: z.string().optional() }),
]);

/** Answer of `DELETE /auth/two-factor-auth` (spec-notes §4: the disabled flag; the codes are cleared). */
export const twoFactorDisableResponseSchema = z.object({ disabled: z.literal(true) });

/** Body of `DELETE /auth/two-factor-auth`: the caller's current password, so a stolen token cannot switch it off. */
export const twoFactorDisableSchema = z.object({
  password: z.string({ error: Messages.required }).min(1, { error: Messages.required }),
});

/** Answer of `POST /auth/two-factor-auth/recovery-codes`: ten fresh codes, the old ones void. */
export const recoveryCodesResponseSchema = z.object({ backupCodes: z.array(z.string()) });

/** Answer of `DELETE /auth/{id}/two-factor-auth/reset`. */
export const twoFactorResetResponseSchema = z.object({ reset: z.literal(true) });

/** `GET /auth/msp/{id}/two-factor-auth/enforce` (spec-notes §7: `enforce_twofa` on read). */
export const enforceReadSchema = z.object({ enforce_twofa: z.boolean() });
/** `PUT /auth/msp/{id}/two-factor-auth/enforce` (spec-notes §7: `enforce` on write). */
export const enforceWriteSchema = z.object({ enforce: z.boolean({ error: 'enforce must be true or false.' }) });

/** The answer of `POST /auth/logout/all`: every token of the caller issued so far is refused. */
export const logoutAllResponseSchema = z.object({ logged_out: z.literal(true), everywhere: z.literal(true) });

/** The languages of the console (the profile's `lang`; '' = the browser's). */
export const LANGUAGES = ['', 'en', 'fr'] as const;

/**
 * The caller's profile (`GET /auth/profile`): spec-notes §3 "Auth user" (id, accountname, email,
 * mspAccountName, twoFactorAuthEnabled) plus the name, role and the stored `lang` and `timezone`
 * preferences (spec-notes §3 "Browser-stored user preferences"), and whether its MSP enforces 2FA.
 */
export const profileSchema = z.object({
  id: z.number().int(),
  accountname: z.string(),
  email: z.string(),
  mspAccountName: z.string(),
  twoFactorAuthEnabled: z.boolean(),
  full_name: z.string(),
  role: roleSchema,
  lang: z.string(),
  timezone: z.string(),
  enforce_twofa: z.boolean(),
  recovery_codes_left: z.number().int(),
});
export type Profile = z.infer<typeof profileSchema>;

/** Body of `PUT /auth/profile`: name, language, time zone ('' = "Use System Default", spec-notes §9). */
export const profileUpdateSchema = z.object({
  full_name: requiredText.optional(),
  lang: z.enum(LANGUAGES, { error: 'Unknown language.' }).optional(),
  timezone: timeZoneSchema.optional(),
});
export type ProfileUpdate = z.infer<typeof profileUpdateSchema>;

/** Body of `PUT /auth/password` (profile): the current password and the new one twice (spec-notes §5). */
export const passwordChangeSchema = z
  .object({
    current_password: z.string({ error: Messages.required }).min(1, { error: Messages.required }),
    ...passwordPair,
  })
  .refine(mustMatch, mismatch);
export type PasswordChange = z.infer<typeof passwordChangeSchema>;

/** Answer of `PUT /auth/password`: a new token (every older one, this one included, is refused from now on). */
export const passwordChangedResponseSchema = z.object({ access_token: z.string() });

/** `{ id }` path params of `/auth/{id}/…` and `/auth/msp/{id}/…`. */
export const authIdParamsSchema = z.object({ id: idSchema });
