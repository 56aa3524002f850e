import { z } from 'zod';
import { Constants } from '../constants.ts';
import { Messages } from '../messages.ts';
import { isDomainName, isIpAddress } from '../net.ts';
import { idSchema } from './common.ts';

/**
 * Query of `/ui/interface` and `/ui/support` (spec-notes §7 "UI and tools": "own or with msp_id"): no
 * `msp_id` means the caller's own level (the system's for a system admin, its MSP's for an MSP
 * admin, its MSP's, read-only, for a customer admin).
 */
export const uiQuerySchema = z.object({ msp_id: idSchema.optional() });
export type UiQuery = z.infer<typeof uiQuerySchema>;

/** The most nameservers an interface may list (a resolver setup names two to four). */
export const MAX_NAMESERVERS = 8;

/** An interface title: at most 200 characters, trimmed; '' = none (the default product title). */
export const uiTitleSchema = z.string().trim().max(Constants.textMax, { error: Messages.max200 });

/**
 * One nameserver the MSP's customers are told to use (spec-notes §3 "Interface"): an IP address or a
 * host name.
 */
export const nameserverSchema = z
  .string()
  .trim()
  .min(1, { error: Messages.required })
  .refine((v) => isIpAddress(v) || isDomainName(v), { error: 'Must be valid IP address or host name.' });

/**
 * The interface branding of a level (spec-notes §3 "Interface": logo, title, nameservers, system). `logo`,
 * `title` and `nameservers` are the level's own values; `system` is true for the system level.
 * `effective_*` is what the console shows at this level: the MSP's own value, else the system's
 * (spec-notes §2: "When no title is configured, a default product title is used" — then '').
 */
export const uiInterfaceSchema = z.object({
  msp_id: z.number().int().nullable(),
  system: z.boolean(),
  /** The level's own logo as a `data:` URL (PNG, JPEG, GIF or WebP); null: none at this level. */
  logo: z.string().nullable(),
  title: z.string(),
  nameservers: z.array(z.string()),
  effective_logo: z.string().nullable(),
  effective_title: z.string(),
  updated_at: z.string().nullable(),
});
export type UiInterface = z.infer<typeof uiInterfaceSchema>;

/**
 * The text fields of a multipart `POST /ui/interface` (the file field is `logo`): `title` and
 * `nameservers` (comma- or newline-separated, or repeated); an absent field is left unchanged.
 */
export const uiInterfaceFieldsSchema = z.object({
  title: uiTitleSchema.optional(),
  nameservers: z
    .array(nameserverSchema)
    .max(MAX_NAMESERVERS, { error: `At most ${MAX_NAMESERVERS} nameservers.` })
    .optional(),
});
export type UiInterfaceFields = z.infer<typeof uiInterfaceFieldsSchema>;

/** An absolute http(s) URL of at most 200 characters, or '' (spec-notes §5 "Please enter a valid URL."). */
export const optionalUrlSchema = z
  .string()
  .trim()
  .max(Constants.textMax, { error: Messages.max200 })
  .refine(
    (v) => {
      if (v === '') return true;
      try {
        const url = new URL(v);
        return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
      } catch {
        return false;
      }
    },
    { error: Messages.invalidUrl },
  );

/** Support contacts (spec-notes §3 "Support": email, link, support desk URL) of a level; '' = not set. */
export const uiSupportSchema = z.object({
  msp_id: z.number().int().nullable(),
  system: z.boolean(),
  email: z.string(),
  link: z.string(),
  support_desk_url: z.string(),
  updated_at: z.string().nullable(),
});
export type UiSupport = z.infer<typeof uiSupportSchema>;

/** Body of `PUT /ui/support`: every field, '' to clear one (spec-notes §5 messages). */
export const uiSupportUpdateSchema = z.object({
  email: z
    .string()
    .trim()
    .max(Constants.textMax, { error: Messages.max200 })
    .refine((v) => v === '' || z.email().safeParse(v).success, { error: Messages.invalidEmail }),
  link: optionalUrlSchema,
  support_desk_url: optionalUrlSchema,
});
export type UiSupportUpdate = z.infer<typeof uiSupportUpdateSchema>;
