import { z } from 'zod';
import { categoryById } from '../categories.ts';
import { Texts } from '../messages.ts';

/**
 * Body of `POST /policies/{id}/preview` (docs/categories.md "Preview"): the editor's unsaved
 * choices. `blocked` the category ids the policy would block (each once, known to the taxonomy;
 * Unclassified is decided by `allow_unclassified`, default true: unclassified names allowed).
 */
export const policyPreviewBodySchema = z.object({
  blocked: z
    .array(
      z
        .number({ error: 'A category id is a whole number.' })
        .int({ error: 'A category id is a whole number.' })
        .refine((id) => id !== 0 && categoryById(id) !== undefined, { error: Texts.unknownCategory }),
    )
    .max(54, { error: 'At most 54 categories.' })
    .refine((ids) => new Set(ids).size === ids.length, { error: 'Each category once.' }),
  allow_unclassified: z.boolean().optional(),
});
export type PolicyPreviewBody = z.infer<typeof policyPreviewBodySchema>;

/** One name the previewed policy would have blocked: its queries in the period and its categories (ids) today. */
export const policyPreviewDomainSchema = z.object({
  domain: z.string(),
  count: z.number().int(),
  categories: z.array(z.number().int()),
});

/**
 * Answer of `POST /policies/{id}/preview`: over `[from, to)` (ISO-8601 UTC; the Stats routes'
 * `7days` of the customer), `total` queries of the policy's customer and `blocked` those to a name
 * the choices block; `top` the ten such names with the most queries, most first (ties by name).
 */
export const policyPreviewSchema = z.object({
  from: z.string(),
  to: z.string(),
  total: z.number().int(),
  blocked: z.number().int(),
  top: z.array(policyPreviewDomainSchema),
});
export type PolicyPreview = z.infer<typeof policyPreviewSchema>;
