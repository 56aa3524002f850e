import { z } from 'zod';
import { Constants } from '../constants.ts';
import { ipOrCidrMessage, Messages } from '../messages.ts';
import { isDomainName, looksLikeUrl, normalizeCidr } from '../net.ts';
import { isValidTimeZone } from '../stats.ts';

/** A decimal id in a path or query string: digits only (no sign, space, exponent, fraction or `0x`). */
const DECIMAL_ID = /^\d{1,16}$/;

/**
 * A positive integer id (a safe integer ≥ 1) in a path, a query string or a body. Text (path and query
 * values arrive as text) is accepted only as decimal digits, so `0x1`, ` 1`, `1.0`, `1e0` and `+1` are
 * refused instead of aliasing id 1; a JSON number must be an integer. Every failure carries the spec-notes §5
 * message {@link Messages.positiveInteger}. The API answers a path id of digits that names nothing
 * (`0`) with 404 and any other bad id with 400 (docs/api.md).
 */
export const idSchema = z
  .union(
    [
      z.number({ error: Messages.positiveInteger }),
      z
        .string({ error: Messages.positiveInteger })
        .regex(DECIMAL_ID, { error: Messages.positiveInteger })
        .transform(Number),
    ],
    { error: Messages.positiveInteger },
  )
  .pipe(
    z
      .number()
      .int({ error: Messages.positiveInteger })
      .positive({ error: Messages.positiveInteger })
      .max(Number.MAX_SAFE_INTEGER, { error: Messages.positiveInteger }),
  );

/** Path params `{ id }`. */
export const idParamsSchema = z.object({ id: idSchema });

/** Field message for a name holding a control character. */
export const controlCharactersMessage = 'Control characters are not allowed.';

/** Any control character: C0 (U+0000–U+001F), DEL (U+007F) and C1 (U+0080–U+009F), i.e. Unicode category Cc. */
const CONTROL_CHARACTER = /\p{Cc}/u;

/**
 * A required free-text field of 1–200 characters, trimmed, without control characters (names of MSPs,
 * customers, policies, locations and admins: a tab, newline, escape or C1 code would corrupt logs, CSV
 * exports and the console's tables).
 */
export const requiredText = z
  .string({ error: Messages.required })
  .trim()
  .refine((v) => !CONTROL_CHARACTER.test(v), { error: controlCharactersMessage })
  .min(1, { error: Messages.required })
  .max(Constants.textMax, { error: Messages.max200 });

/** An optional description of at most 200 characters ('' allowed). */
export const optionalText = z.string().trim().max(Constants.textMax, { error: Messages.max200 });

/**
 * A name under the spec's special-character check (spec-notes §5): letters, digits, whitespace,
 * underscore, hyphen and dot only; no control characters (see {@link requiredText}).
 */
export const safeName = requiredText.regex(/^[\p{L}\p{N}\s_.-]+$/u, {
  error: 'Only letters, digits, spaces, underscores, hyphens and dots are allowed.',
});

/** An e-mail address (spec-notes §5 message). */
export const emailSchema = z
  .string({ error: Messages.required })
  .trim()
  .min(1, { error: Messages.required })
  .email({ error: Messages.invalidEmail })
  .transform((s) => s.toLowerCase());

/**
 * A password under spec-notes §5 (a letter and a digit or one of `# ? ! @ $ % ^ & * -`) and
 * docs/api.md "Auth" (at least 8 characters for a new password).
 */
export const newPasswordSchema = z
  .string({ error: Messages.required })
  .min(Constants.passwordMinLength, {
    error: `Password must be at least ${Constants.passwordMinLength} characters long.`,
  })
  .max(Constants.textMax, { error: Messages.max200 })
  .regex(/^(?=.*[A-Za-z])(?=.*[\d#?!@$%^&*-]).+$/, { error: Messages.passwordRule });

/** An IANA time zone name, or '' for "Use System Default" (spec-notes §9). */
export const timeZoneSchema = z
  .string()
  .trim()
  .refine((tz) => tz === '' || isValidTimeZone(tz), { error: 'Unknown time zone.' });

/** A domain or partial domain, never a URL (spec-notes §5); normalised to lower case. */
export const domainSchema = z
  .string({ error: Messages.required })
  .trim()
  .min(1, { error: Messages.required })
  .refine((v) => !looksLikeUrl(v), { error: Messages.domainOnly })
  .refine((v) => isDomainName(v, { allowSingleLabel: true }), { error: Messages.domainOnly })
  .transform((v) => v.toLowerCase().replace(/^\.+|\.+$/g, ''));

/** An IP address or CIDR range, normalised to `network/prefix` (spec-notes §5). */
export const cidrSchema = (field = 'IP') =>
  z
    .string({ error: Messages.required })
    .trim()
    .min(1, { error: Messages.required })
    .refine((v) => normalizeCidr(v) !== null, { error: ipOrCidrMessage(field) })
    .transform((v) => normalizeCidr(v) as string);

/** List query of docs/api.md: limit (default 10), offset, sortkey (default name), sortdir, filter. */
export const listQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(10_000).default(Constants.defaultPageSize),
  offset: z.coerce.number().int().min(0).default(0),
  sortkey: z.string().trim().min(1).max(64).default(Constants.defaultSortKey),
  sortdir: z.enum(['asc', 'desc']).default('asc'),
  filter: z.string().trim().max(Constants.textMax).optional(),
});
export type ListQuery = z.infer<typeof listQuerySchema>;

/** A list response `{ data, total }` (docs/api.md). */
export const listOf = <T extends z.ZodType>(item: T) => z.object({ data: z.array(item), total: z.number().int() });

/** The API error envelope (docs/api.md). */
export const errorBodySchema = z.object({
  error: z.string(),
  code: z.string(),
  fields: z.record(z.string(), z.string()).optional(),
  /** ERR_IN_USE only: what depends on the item, by kind (docs/api.md "Deletes of things in use"). */
  dependants: z.record(z.string(), z.object({ count: z.number().int(), names: z.array(z.string()) })).optional(),
});

/** Answer of a DELETE: `{ deleted: true }` (JSON, so clients that always parse a body work). */
export const deletedResponseSchema = z.object({ deleted: z.literal(true) });
export type DeletedResponse = z.infer<typeof deletedResponseSchema>;
