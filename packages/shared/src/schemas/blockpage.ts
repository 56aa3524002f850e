import { z } from 'zod';
import { Constants } from '../constants.ts';
import { Messages } from '../messages.ts';
import { controlCharactersMessage, idSchema } from './common.ts';

/** The longest block-page message, characters (a paragraph or two). */
export const BLOCKPAGE_MESSAGE_MAX = 1000;

const CONTROL = /\p{Cc}/u;

/** One line of block-page text ('' = not set): trimmed, at most 200 characters, no control characters. */
const lineText = z
  .string()
  .trim()
  .max(Constants.textMax, { error: Messages.max200 })
  .refine((v) => !CONTROL.test(v), { error: controlCharactersMessage });

/** The message: trimmed, at most {@link BLOCKPAGE_MESSAGE_MAX} characters; line breaks allowed, other control characters not. */
const messageText = z
  .string()
  .trim()
  .max(BLOCKPAGE_MESSAGE_MAX, { error: `Must be at most ${BLOCKPAGE_MESSAGE_MAX} characters.` })
  .refine((v) => !CONTROL.test(v.replace(/\r?\n/g, '')), { error: controlCharactersMessage })
  .transform((v) => v.replace(/\r\n/g, '\n'));

const EMAIL = z.email();

/** True when `text` is an http(s) URL with a host. */
function isWebUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/** Field message for a support contact that is neither an e-mail address nor an http(s) URL. */
export const supportContactMessage = 'Must be an email address or a URL starting with http:// or https://.';

/** The support contact: an e-mail address or an http(s) URL ('' = none); the page links it (`mailto:` or the URL). */
const supportContact = lineText.refine((v) => v === '' || EMAIL.safeParse(v).success || isWebUrl(v), {
  error: supportContactMessage,
});

/**
 * Whose block page a `/ui/blockpage` call means (spec-notes §7 "UI and tools"): a customer's (`user_id`),
 * an MSP's (`msp_id`), or neither — the system's for a system admin, the caller's own MSP or customer otherwise.
 */
export const blockPageQuerySchema = z
  .object({ user_id: idSchema.optional(), msp_id: idSchema.optional() })
  .refine((q) => q.user_id === undefined || q.msp_id === undefined, {
    error: 'Send user_id or msp_id, not both.',
    path: ['msp_id'],
  });
export type BlockPageQuery = z.infer<typeof blockPageQuerySchema>;

/**
 * Body of `POST /ui/blockpage`: the texts to show; a field left out or '' falls back to the next level's.
 * The logo is the multipart variant, `POST /ui/blockpage/logo` (docs/decisions.md "Logos").
 */
export const blockPageUpdateSchema = z.object({
  title: lineText.default(''),
  message: messageText.default(''),
  footer: lineText.default(''),
  support_contact: supportContact.default(''),
});
export type BlockPageUpdate = z.infer<typeof blockPageUpdateSchema>;

/** Whose branding a row is. */
export const BLOCKPAGE_SCOPES = ['customer', 'msp', 'system'] as const;

/**
 * Answer of `GET|POST /ui/blockpage`: the owner's own branding. `is_set` false: the owner has none
 * (texts empty, times null) and the page uses the next level's (customer → MSP → system → built-in).
 */
export const blockPageSchema = z.object({
  scope: z.enum(BLOCKPAGE_SCOPES),
  user_id: z.number().int().nullable(),
  msp_id: z.number().int().nullable(),
  is_set: z.boolean(),
  title: z.string(),
  message: z.string(),
  footer: z.string(),
  support_contact: z.string(),
  /** The owner's own logo as a `data:` URL (PNG, JPEG, GIF or WebP); null: none at this level. */
  logo: z.string().nullable(),
  updated_at: z.string().nullable(),
});
export type BlockPage = z.infer<typeof blockPageSchema>;
