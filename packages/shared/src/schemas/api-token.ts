import { z } from 'zod';
import { Messages } from '../messages.ts';
import { requiredText } from './common.ts';

/** What an API token may do: `read` (GET and HEAD only) or `read-write` (docs/api.md "API tokens"). */
export const apiTokenAccessSchema = z.enum(['read', 'read-write'], {
  error: "Access must be 'read' or 'read-write'.",
});
export type ApiTokenAccess = z.infer<typeof apiTokenAccessSchema>;

/** The longest lifetime a token may be given, in days (ten years). */
export const API_TOKEN_MAX_DAYS = 3650;

/**
 * An API token as listed (docs/api.md "API tokens"): never its secret. `prefix` is the public part
 * of the secret (`cdn_<prefix>_…`) that tells tokens apart; times are ISO-8601 UTC; `expires_at`
 * null never expires; `revoked_at` set once revoked.
 */
export const apiTokenSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  prefix: z.string(),
  access: apiTokenAccessSchema,
  created_at: z.string(),
  expires_at: z.string().nullable(),
  last_used_at: z.string().nullable(),
  last_used_ip: z.string().nullable(),
  revoked_at: z.string().nullable(),
});
export type ApiToken = z.infer<typeof apiTokenSchema>;

/** Answer of `GET /auth/api-tokens`: the caller's own tokens, newest first. */
export const apiTokenListSchema = z.object({ data: z.array(apiTokenSchema), total: z.number().int() });

/**
 * Body of `POST /auth/api-tokens`: a name, the access, at most one of `expires_in_days` (1–3650) or
 * `expires_at` (ISO 8601, in the future; checked by the server's clock), the caller's current
 * password and, when its 2FA is on, `code` (a TOTP code or a recovery code; docs/api.md "API tokens").
 */
export const apiTokenCreateSchema = z
  .object({
    name: requiredText,
    access: apiTokenAccessSchema,
    expires_in_days: z
      .number({ error: `Must be a whole number of days from 1 to ${API_TOKEN_MAX_DAYS}.` })
      .int({ error: `Must be a whole number of days from 1 to ${API_TOKEN_MAX_DAYS}.` })
      .min(1, { error: `Must be a whole number of days from 1 to ${API_TOKEN_MAX_DAYS}.` })
      .max(API_TOKEN_MAX_DAYS, { error: `Must be a whole number of days from 1 to ${API_TOKEN_MAX_DAYS}.` })
      .optional(),
    expires_at: z
      .string()
      .refine((v) => /^\d{4}-\d{2}-\d{2}/.test(v) && !Number.isNaN(Date.parse(v)), {
        error: 'Must be a date (YYYY-MM-DD) or a date and time (ISO 8601).',
      })
      .transform((v) => new Date(v).toISOString())
      .optional(),
    current_password: z.string({ error: Messages.required }).min(1, { error: Messages.required }),
    code: z.string().max(64).optional(),
  })
  .refine((b) => b.expires_in_days === undefined || b.expires_at === undefined, {
    error: 'Give either expires_in_days or expires_at, not both.',
    path: ['expires_at'],
  });
export type ApiTokenCreate = z.infer<typeof apiTokenCreateSchema>;

/** Answer of `POST /auth/api-tokens`: the token and its secret, shown this once (only its hash is kept). */
export const apiTokenCreatedSchema = apiTokenSchema.extend({ secret: z.string() });
export type ApiTokenCreated = z.infer<typeof apiTokenCreatedSchema>;
