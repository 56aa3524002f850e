import { z } from 'zod';
import { FILTERING_LEVELS } from '../categories.ts';
import { idSchema, listQuerySchema, optionalText, safeName } from './common.ts';
import { LOCATION_TYPES } from './location.ts';

/**
 * A policy (spec §3 "Policy"). `policyname` mirrors `name` for the spec's older field;
 * `filtering_level` is the protection level; `first_location` is the first location using it.
 */
export const policySchema = z.object({
  id: z.number().int(),
  user_id: z.number().int(),
  name: z.string(),
  policyname: z.string(),
  description: z.string(),
  filtering_level: z.enum(FILTERING_LEVELS),
  is_default: z.boolean(),
  allow_unclassified: z.boolean(),
  first_location: z.string().nullable(),
  locations: z.array(
    z.object({
      id: z.number().int(),
      name: z.string(),
      type: z.enum(LOCATION_TYPES),
      addresses: z.array(z.object({ ip: z.string() })),
    }),
  ),
  extra_info: z.record(z.string(), z.unknown()),
  created_at: z.string(),
  updated_at: z.string(),
});
export type Policy = z.infer<typeof policySchema>;

/** Query of `GET /policies` (spec §7): user_id, show_default, and the list query. */
export const policyListQuerySchema = listQuerySchema.extend({
  user_id: idSchema.optional(),
  show_default: z
    .enum(['true', 'false', '1', '0'])
    .transform((v) => v === 'true' || v === '1')
    .default(true),
});

/** Body of `POST /policies`. */
export const policyCreateSchema = z.object({
  user_id: idSchema,
  name: safeName,
  description: optionalText.default(''),
  filtering_level: z.enum(FILTERING_LEVELS).default('moderate'),
  allow_unclassified: z.boolean().default(true),
});
export type PolicyCreate = z.infer<typeof policyCreateSchema>;

/** Body of `PUT /policies/{id}`. Changing `filtering_level` to a named level resets its categories. */
export const policyUpdateSchema = z.object({
  name: safeName.optional(),
  description: optionalText.optional(),
  filtering_level: z.enum(FILTERING_LEVELS).optional(),
  allow_unclassified: z.boolean().optional(),
});
export type PolicyUpdate = z.infer<typeof policyUpdateSchema>;

/**
 * One category setting on the wire (spec §3 "Category"): `allowed: true` on the wire means the
 * category is BLOCKED (the spec's inverted flag, kept for compatibility: docs/api.md). The console
 * flips it in one mapper.
 */
export const policyCategoryWireSchema = z.object({
  id: z.number().int().min(0).max(54),
  name: z.string().optional(),
  level: z.enum(['L', 'M', 'H']).nullable().optional(),
  allowed: z.boolean(),
});
export type PolicyCategoryWire = z.infer<typeof policyCategoryWireSchema>;

/** Body of `PUT /policies/{id}/categories`: an array of category settings. */
export const policyCategoriesUpdateSchema = z.array(policyCategoryWireSchema).min(1);

/**
 * One category of `GET /policies/{id}/categories` (all taxonomy categories, ascending id):
 * `level` is the category's current level, `allowed: true` means BLOCKED (inverted wire flag).
 */
export const policyCategorySchema = z.object({
  id: z.number().int(),
  name: z.string(),
  level: z.enum(['L', 'M', 'H']).nullable(),
  allowed: z.boolean(),
});
export type PolicyCategory = z.infer<typeof policyCategorySchema>;

/** Answer of `GET|PUT /policies/{id}/categories`. */
export const policyCategoryListSchema = z.array(policyCategorySchema);

/**
 * Query of `/policies/default[/categories]`: the customer whose default policy is meant.
 * Required for system and MSP admins; a customer admin's own customer is implied.
 */
export const defaultPolicyQuerySchema = z.object({ user_id: idSchema.optional() });
