import { z } from 'zod';
import { categoryById } from '../categories.ts';
import { Messages, Texts } from '../messages.ts';
import { idSchema, listQuerySchema, requiredText } from './common.ts';

/** The single-file feed formats (docs/operations.md "Category feeds"): a plain domain list, a hosts file, AdBlock rules. */
export const FEED_FORMATS = ['domains', 'hosts', 'adblock'] as const;
export type FeedFormat = (typeof FEED_FORMATS)[number];

/** The longest interval between two fetches of a feed, hours (30 days). */
export const FEED_INTERVAL_MAX_HOURS = 720;

/** Field message for a feed URL that is not an `https:` URL. */
export const feedUrlMessage = Texts.httpsUrl;

/** True when `text` parses as an `https:` URL with a host. */
function isHttpsUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'https:' && url.hostname !== '';
  } catch {
    return false;
  }
}

/** An `https:` URL, or null/'' for a feed that is uploaded by hand ('' becomes null). */
const feedUrl = z
  .string()
  .trim()
  .max(2000, { error: 'Must contain at most 2000 characters.' })
  .refine((v) => v === '' || isHttpsUrl(v), { error: feedUrlMessage })
  .transform((v) => (v === '' ? null : v))
  .nullable();

const categoryIdSchema = z
  .number({ error: Messages.required })
  .int()
  .refine((id) => categoryById(id) !== undefined, { error: Texts.unknownCategory });

/** Body of `POST /feeds`: a new feed source (docs/api.md "Category feeds"). */
export const feedCreateSchema = z.object({
  name: requiredText,
  format: z.enum(FEED_FORMATS, { error: 'Choose domains, hosts or adblock.' }),
  category_id: categoryIdSchema,
  url: feedUrl.default(null),
  interval_hours: z
    .number()
    .int({ error: Messages.positiveInteger })
    .min(0, { error: Messages.positiveInteger })
    .max(FEED_INTERVAL_MAX_HOURS, { error: `Must be at most ${FEED_INTERVAL_MAX_HOURS} hours.` })
    .default(24),
  enabled: z.boolean().default(true),
});
export type FeedCreate = z.infer<typeof feedCreateSchema>;

/** Body of `PATCH /feeds/{id}`: any of the fields of {@link feedCreateSchema}. */
export const feedUpdateSchema = feedCreateSchema.partial().refine((b) => Object.keys(b).length > 0, {
  error: 'Nothing to change.',
});
export type FeedUpdate = z.infer<typeof feedUpdateSchema>;

/** The sort keys of the feeds list. */
export const FEED_SORT_KEYS = ['name', 'format', 'last_run_at', 'created_at'] as const;

/** `GET /feeds` query: the list query of docs/api.md with the feeds' sort keys. */
export const feedListQuerySchema = listQuerySchema.extend({
  sortkey: z.enum(FEED_SORT_KEYS).default('name'),
});
export type FeedListQuery = z.infer<typeof feedListQuerySchema>;

/** `/feeds/{feedId}` path parameters. */
export const feedParamsSchema = z.object({ feedId: idSchema });

/** A feed source with the outcome of its last run (`last_status` null: never run). */
export const feedSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  format: z.enum(FEED_FORMATS),
  category_id: z.number().int(),
  category_name: z.string(),
  url: z.string().nullable(),
  interval_hours: z.number().int(),
  enabled: z.boolean(),
  last_run_at: z.string().nullable(),
  last_status: z.enum(['ok', 'error']).nullable(),
  last_error: z.string().nullable(),
  last_rows: z.number().int().nullable(),
  last_skipped: z.number().int().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type Feed = z.infer<typeof feedSchema>;

/** Answer of a run or an upload: the feed after it, and what the import read. */
export const feedRunSchema = z.object({
  feed: feedSchema,
  rows: z.number().int(),
  ip_entries: z.number().int(),
  invalid_entries: z.number().int(),
  unsupported_entries: z.number().int(),
  examples: z.array(z.string()),
});
export type FeedRun = z.infer<typeof feedRunSchema>;
