import { z } from 'zod';
import { FILTERING_LEVELS } from '../categories.ts';
import { idSchema, listQuerySchema, optionalText, safeName } from './common.ts';
import { LOCATION_TYPES } from './location.ts';

/**
 * A policy (spec-notes §3 "Policy"). `policyname` mirrors `name` for the spec's older field;
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
  /** Safe search enforced by the resolver (docs/architecture.md "Decision order"; docs/architecture.md "Safe search"). */
  safe_search: z.boolean(),
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

/** Query of `GET /policies` (spec-notes §7): user_id, show_default, and the list query. */
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
  safe_search: z.boolean().default(false),
});
export type PolicyCreate = z.infer<typeof policyCreateSchema>;

/** Body of `PUT /policies/{id}`. Changing `filtering_level` to a named level resets its categories. */
export const policyUpdateSchema = z.object({
  name: safeName.optional(),
  description: optionalText.optional(),
  filtering_level: z.enum(FILTERING_LEVELS).optional(),
  allow_unclassified: z.boolean().optional(),
  safe_search: z.boolean().optional(),
});
export type PolicyUpdate = z.infer<typeof policyUpdateSchema>;

/**
 * Body of `PATCH /users/{id}/policies/{policyId}` (spec-notes §7 Policies; docs/api.md "Policies"): the fields
 * of {@link policyUpdateSchema}, at least one of them; fields left out keep their value.
 */
export const policyPatchSchema = policyUpdateSchema.refine((b) => Object.values(b).some((v) => v !== undefined), {
  error: 'Send at least one field to change.',
});

/** Path params of `/users/{id}/policies/{policyId}`: the customer and one of its policies. */
export const customerPolicyParamsSchema = z.object({ id: idSchema, policyId: idSchema });

/**
 * One category setting on the wire (spec-notes §3 "Category"): `allowed: true` on the wire means the
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
 * Query of `/policies/default[/categories[/{id}]]` (spec-notes §7 "Default policy"; docs/api.md "Default
 * policies"): `user_id` names a customer's default policy, `msp_id` an MSP's global default policy
 * (the template its new customers copy), neither the system's (the template new MSPs copy; system
 * admins only). A customer admin's own customer is implied. Both at once are refused.
 */
export const defaultPolicyQuerySchema = z
  .object({ user_id: idSchema.optional(), msp_id: idSchema.optional() })
  .refine((q) => q.user_id === undefined || q.msp_id === undefined, {
    error: 'Send user_id or msp_id, not both.',
    path: ['msp_id'],
  });
export type DefaultPolicyQuery = z.infer<typeof defaultPolicyQuerySchema>;

/** Whose default policy: a customer's, an MSP's global default, or the system's. */
export const DEFAULT_POLICY_SCOPES = ['customer', 'msp', 'system'] as const;
export type DefaultPolicyScope = (typeof DEFAULT_POLICY_SCOPES)[number];

/**
 * Answer of `GET|PUT /policies/default`: a policy plus whose default it is. For an MSP's or the
 * system's global default policy `id` is the template's own id, `user_id` is null, `msp_id` the MSP
 * (null for the system's), `name` is 'Default' and `locations` is empty: no location uses a template.
 */
export const defaultPolicySchema = policySchema.extend({
  user_id: z.number().int().nullable(),
  msp_id: z.number().int().nullable(),
  scope: z.enum(DEFAULT_POLICY_SCOPES),
});
export type DefaultPolicy = z.infer<typeof defaultPolicySchema>;

/**
 * Body of `PUT /policies/default/categories/{id}` (system admins only): the category's protection
 * level, `L`/`M`/`H` or null (only a custom policy blocks it). Applies to policies created
 * afterwards only (spec-notes §4; docs/architecture.md "Categories").
 */
export const categoryLevelUpdateSchema = z.object({ level: z.enum(['L', 'M', 'H']).nullable() });
export type CategoryLevelUpdate = z.infer<typeof categoryLevelUpdateSchema>;

/** Path of `/policies/default/categories/{id}`: a taxonomy category id (0–54). */
export const categoryIdParamsSchema = z.object({ id: z.coerce.number().int().min(0).max(54) });
