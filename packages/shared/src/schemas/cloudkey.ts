import { z } from 'zod';
import { CLOUD_KEY_EXPIRES_AFTER, CLOUD_KEY_PATTERN } from '../cloud-key.ts';
import { Constants } from '../constants.ts';
import { Messages, Texts } from '../messages.ts';
import { idSchema, optionalText } from './common.ts';

/**
 * A cloud key's text (spec-notes §5 "Key can only contain letters, numbers, spaces, dots and dashes.";
 * spec-notes §9 text length 5–200), trimmed. Compared exactly (case-sensitive) on the block page.
 */
export const cloudKeyTextSchema = z
  .string({ error: Messages.required })
  .trim()
  .min(1, { error: Messages.required })
  .min(Constants.textMin, { error: Messages.min5 })
  .max(Constants.textMax, { error: Messages.max200 })
  .regex(CLOUD_KEY_PATTERN, { error: Messages.keyChars });

/** An ISO-8601 instant (with offset or `Z`), normalised to UTC `…Z`; null = open end. */
const instantSchema = z
  .string()
  .trim()
  .refine((v) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(v) && !Number.isNaN(Date.parse(v)), {
    error: 'Must be a date and time (ISO 8601).',
  })
  .transform((v) => new Date(v).toISOString());

/** Maximum uses: a positive integer, or null for unlimited. */
const maxUsesSchema = z.number({ error: Messages.positiveInteger }).int({ error: Messages.positiveInteger }).min(1, {
  error: Messages.positiveInteger,
});

const expiresAfterMessage = `Must be between ${CLOUD_KEY_EXPIRES_AFTER.min} and ${CLOUD_KEY_EXPIRES_AFTER.max} seconds.`;
const expiresAfterSchema = z
  .number({ error: Messages.positiveInteger })
  .int({ error: Messages.positiveInteger })
  .min(CLOUD_KEY_EXPIRES_AFTER.min, { error: expiresAfterMessage })
  .max(CLOUD_KEY_EXPIRES_AFTER.max, { error: expiresAfterMessage });

/**
 * A cloud key (spec-notes §3 "Cloud key"; docs/architecture.md "Block page"). `max_uses` null = unlimited; `valid_from` /
 * `valid_to` ISO-8601 UTC or null (open); `expires_after` is the bypass duration in seconds.
 */
export const cloudKeySchema = z.object({
  id: z.number().int(),
  key: z.string(),
  description: z.string(),
  max_uses: z.number().int().nullable(),
  times_used: z.number().int(),
  valid_from: z.string().nullable(),
  valid_to: z.string().nullable(),
  expires_after: z.number().int(),
  active: z.boolean(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type CloudKey = z.infer<typeof cloudKeySchema>;

const windowRule = (v: { valid_from?: string | null | undefined; valid_to?: string | null | undefined }) =>
  !v.valid_from || !v.valid_to || v.valid_from < v.valid_to;
const windowMessage = { error: Texts.validToAfterFrom, path: ['valid_to'] };

const cloudKeyFields = z.object({
  key: cloudKeyTextSchema,
  description: optionalText.default(''),
  max_uses: maxUsesSchema.nullable().default(null),
  valid_from: instantSchema.nullable().default(null),
  valid_to: instantSchema.nullable().default(null),
  expires_after: expiresAfterSchema.default(CLOUD_KEY_EXPIRES_AFTER.default),
  active: z.boolean().default(true),
});

/** Body of `POST /users/{id}/cloudkeys`. */
export const cloudKeyCreateSchema = cloudKeyFields.refine(windowRule, windowMessage);
export type CloudKeyCreate = z.infer<typeof cloudKeyCreateSchema>;

/**
 * Body of `POST /users/{id}/cloudkeys/{keyId}`: any field of the create body, and `reset_uses: true`
 * to set `times_used` back to 0. The window is checked against the stored ends too.
 */
export const cloudKeyUpdateSchema = z
  .object({
    key: cloudKeyTextSchema.optional(),
    description: optionalText.optional(),
    max_uses: maxUsesSchema.nullable().optional(),
    valid_from: instantSchema.nullable().optional(),
    valid_to: instantSchema.nullable().optional(),
    expires_after: expiresAfterSchema.optional(),
    active: z.boolean().optional(),
    reset_uses: z.boolean().optional(),
  })
  .refine(windowRule, windowMessage);
export type CloudKeyUpdate = z.infer<typeof cloudKeyUpdateSchema>;

/** Path params `{ id, keyId }` of `/users/{id}/cloudkeys/{keyId}`. */
export const cloudKeyParamsSchema = z.object({ id: idSchema, keyId: idSchema });
