import { z } from 'zod';
import { Constants } from '../constants.ts';
import { ipOrCidrMessage, Messages } from '../messages.ts';
import { isDomainName, looksLikeUrl, normalizeCidr } from '../net.ts';
import { isValidTimeZone } from '../stats.ts';

/** A positive integer id in a path or body; strings of digits are coerced (path params arrive as text). */
export const idSchema = z.coerce
  .number({ error: Messages.positiveInteger })
  .int({ error: Messages.positiveInteger })
  .positive({ error: Messages.positiveInteger });

/** Path params `{ id }`. */
export const idParamsSchema = z.object({ id: idSchema });

/** A required free-text field of 1–200 characters, trimmed. */
export const requiredText = z
  .string({ error: Messages.required })
  .trim()
  .min(1, { error: Messages.required })
  .max(Constants.textMax, { error: Messages.max200 });

/** An optional description of at most 200 characters ('' allowed). */
export const optionalText = z.string().trim().max(Constants.textMax, { error: Messages.max200 });

/**
 * A name under the spec's special-character check (spec §5): letters, digits, whitespace,
 * underscore, hyphen and dot only.
 */
export const safeName = requiredText.regex(/^[\p{L}\p{N}\s_.-]+$/u, {
  error: 'Only letters, digits, spaces, underscores, hyphens and dots are allowed.',
});

/** An e-mail address (spec §5 message). */
export const emailSchema = z
  .string({ error: Messages.required })
  .trim()
  .min(1, { error: Messages.required })
  .email({ error: Messages.invalidEmail })
  .transform((s) => s.toLowerCase());

/**
 * A password under spec §5 (a letter and a digit or one of `# ? ! @ $ % ^ & * -`) and
 * DESIGN.md §6 (at least 8 characters for a new password).
 */
export const newPasswordSchema = z
  .string({ error: Messages.required })
  .min(Constants.passwordMinLength, {
    error: `Password must be at least ${Constants.passwordMinLength} characters long.`,
  })
  .max(Constants.textMax, { error: Messages.max200 })
  .regex(/^(?=.*[A-Za-z])(?=.*[\d#?!@$%^&*-]).+$/, { error: Messages.passwordRule });

/** An IANA time zone name, or '' for "Use System Default" (spec §9). */
export const timeZoneSchema = z
  .string()
  .trim()
  .refine((tz) => tz === '' || isValidTimeZone(tz), { error: 'Unknown time zone.' });

/** A domain or partial domain, never a URL (spec §5); normalised to lower case. */
export const domainSchema = z
  .string({ error: Messages.required })
  .trim()
  .min(1, { error: Messages.required })
  .refine((v) => !looksLikeUrl(v), { error: Messages.domainOnly })
  .refine((v) => isDomainName(v, { allowSingleLabel: true }), { error: Messages.domainOnly })
  .transform((v) => v.toLowerCase().replace(/^\.+|\.+$/g, ''));

/** An IP address or CIDR range, normalised to `network/prefix` (spec §5). */
export const cidrSchema = (field = 'IP') =>
  z
    .string({ error: Messages.required })
    .trim()
    .min(1, { error: Messages.required })
    .refine((v) => normalizeCidr(v) !== null, { error: ipOrCidrMessage(field) })
    .transform((v) => normalizeCidr(v) as string);

/** List query of DESIGN.md §5: limit (default 10), offset, sortkey (default name), sortdir, filter. */
export const listQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(10_000).default(Constants.defaultPageSize),
  offset: z.coerce.number().int().min(0).default(0),
  sortkey: z.string().trim().min(1).max(64).default(Constants.defaultSortKey),
  sortdir: z.enum(['asc', 'desc']).default('asc'),
  filter: z.string().trim().max(Constants.textMax).optional(),
});
export type ListQuery = z.infer<typeof listQuerySchema>;

/** A list response `{ data, total }` (DESIGN.md §5). */
export const listOf = <T extends z.ZodType>(item: T) => z.object({ data: z.array(item), total: z.number().int() });

/** The API error envelope (DESIGN.md §5). */
export const errorBodySchema = z.object({
  error: z.string(),
  code: z.string(),
  fields: z.record(z.string(), z.string()).optional(),
});

/** Answer of a DELETE: `{ deleted: true }` (JSON, so clients that always parse a body work). */
export const deletedResponseSchema = z.object({ deleted: z.literal(true) });
export type DeletedResponse = z.infer<typeof deletedResponseSchema>;
