import { z } from 'zod';
import { idSchema } from './common.ts';

/** A policy named by id and name. */
export const policyRefSchema = z.object({ id: z.number().int(), name: z.string() });
export type PolicyRef = z.infer<typeof policyRefSchema>;

/**
 * Where one step of the choice comes from, in the resolver's order (docs/architecture.md
 * "Identification"): `device` its own policy choice, `device_configuration` the customer's device
 * configuration (when the device's own mode is `default`), `user` the reported user's own policy,
 * `group` that user's highest-ranked enabled group with a policy, `named_policy` the choice's named
 * policy (mode `policy`), `location` a location's policy, `customer_default` the default policy.
 */
export const EFFECTIVE_SOURCES = [
  'device',
  'device_configuration',
  'user',
  'group',
  'named_policy',
  'location',
  'customer_default',
] as const;
export type EffectiveSource = (typeof EFFECTIVE_SOURCES)[number];

/**
 * What a step did: `chosen` it gave the effective policy; `no_policy` it names no policy of the
 * customer, so the next step decides; `ignored` it names one the resolver skips (a group when the
 * device's choice is "inherit the default policy"); `choice` a device or configuration step that sets
 * the mode (`default`, `group`, `policy`) the later steps follow and chooses nothing itself.
 */
export const EFFECTIVE_OUTCOMES = ['chosen', 'no_policy', 'ignored', 'choice'] as const;
export type EffectiveOutcome = (typeof EFFECTIVE_OUTCOMES)[number];

/**
 * One step of the chain: its source, the device, user, group or location it is (`id`, `name`; null
 * for the configuration and the default), the policy mode (device steps only), the group's `rank`
 * (its weight, 1 highest; group steps only), the policy it names (null: none), and what it did;
 * `applied` is `outcome === 'chosen'`.
 */
export const effectiveStepSchema = z.object({
  source: z.enum(EFFECTIVE_SOURCES),
  id: z.number().int().nullable(),
  name: z.string().nullable(),
  mode: z.enum(['default', 'group', 'policy']).nullable(),
  rank: z.number().int().nullable(),
  policy: policyRefSchema.nullable(),
  outcome: z.enum(EFFECTIVE_OUTCOMES),
  applied: z.boolean(),
});
export type EffectiveStep = z.infer<typeof effectiveStepSchema>;

/**
 * The effective policy of one identity (a device with or without a reported user, or a location) and
 * the ordered steps that chose it, up to the chosen one. `policy` null: the customer has no policy
 * at all (the resolver then applies none). `user`/`device` name the identity's parts, when any.
 */
export const effectivePolicySchema = z.object({
  policy: policyRefSchema.nullable(),
  device: z.object({ id: z.number().int(), name: z.string() }).nullable(),
  user: z.object({ id: z.number().int(), name: z.string() }).nullable(),
  chain: z.array(effectiveStepSchema),
});
export type EffectivePolicy = z.infer<typeof effectivePolicySchema>;

/**
 * Answer of `GET /users/{id}/effective_policy/devices/{deviceId}` (docs/api.md "Effective policy"):
 * the device's policy when no bound user is reported (`without_user`), one answer per bound user
 * (`users`, oldest binding first: what the device gets when its agent reports that user), and the
 * device exception in force (its own, else the configuration's; it routes names, it chooses no policy).
 */
export const deviceEffectivePolicySchema = z.object({
  without_user: effectivePolicySchema,
  users: z.array(effectivePolicySchema),
  exception: z
    .object({ id: z.number().int(), name: z.string(), source: z.enum(['device', 'device_configuration']) })
    .nullable(),
});
export type DeviceEffectivePolicy = z.infer<typeof deviceEffectivePolicySchema>;

/**
 * Answer of `GET /users/{id}/effective_policy/users/{userId}`: the user's own steps (`chain`: its own
 * policy, then its group; `policy` what they give, null when the device's choice decides) and one
 * answer per device the user is bound to (`devices`: what that device gets when it reports the user).
 */
export const userEffectivePolicySchema = z.object({
  user: z.object({ id: z.number().int(), name: z.string() }),
  policy: policyRefSchema.nullable(),
  chain: z.array(effectiveStepSchema),
  devices: z.array(effectivePolicySchema),
});
export type UserEffectivePolicy = z.infer<typeof userEffectivePolicySchema>;

/** Path params of `/users/{id}/effective_policy/devices/{deviceId}`. */
export const effectiveDeviceParamsSchema = z.object({ id: idSchema, deviceId: idSchema });
/** Path params of `/users/{id}/effective_policy/users/{userId}`. */
export const effectiveUserParamsSchema = z.object({ id: idSchema, userId: idSchema });
/** Path params of `/users/{id}/effective_policy/locations/{locId}`. */
export const effectiveLocationParamsSchema = z.object({ id: idSchema, locId: idSchema });
