import { z } from 'zod';
import { Messages } from '../messages.ts';
import { idSchema } from './common.ts';

/**
 * How many names a dependants answer lists per kind (docs/api.md "Deletes of things in use"): the
 * first ones by name, enough for a confirmation dialog; `count` is the whole figure.
 */
export const DEPENDANT_NAMES_MAX = 5;

/** One kind of dependant: how many there are and the first {@link DEPENDANT_NAMES_MAX} names, by name. */
export const dependantKindSchema = z.object({ count: z.number().int(), names: z.array(z.string()) });
export type DependantKind = z.infer<typeof dependantKindSchema>;

/**
 * What depends on an entity, by kind (`locations`, `groups`, `users`, `devices`, `device_settings`,
 * `members`, `customers`, `admins`, `policies`…); only kinds with a count above zero are present.
 */
export const dependantsSchema = z.record(z.string(), dependantKindSchema);
export type Dependants = z.infer<typeof dependantsSchema>;

/**
 * Answer of the `…/dependants` reads (docs/api.md "Deletes of things in use"): `in_use` is true when
 * a plain DELETE would be refused with 409 ERR_IN_USE, `dependants` the same figures the 409 carries.
 */
export const dependantsResponseSchema = z.object({ in_use: z.boolean(), dependants: dependantsSchema });
export type DependantsResponse = z.infer<typeof dependantsResponseSchema>;

/** A yes/no query flag as text (`true`, `false`, `1`, `0`), as GET and DELETE parameters arrive. */
const queryFlag = z
  .enum(['true', 'false', '1', '0'], { error: 'Must be true or false.' })
  .transform((v) => v === 'true' || v === '1');

/**
 * Query of `DELETE /policies/{id}`: `move_to_policy_id`, another policy of the same customer that
 * takes over the locations, groups, users and devices naming this one (the default policy included).
 */
export const policyDeleteQuerySchema = z.object({ move_to_policy_id: idSchema.optional() });
export type PolicyDeleteQuery = z.infer<typeof policyDeleteQuerySchema>;

/**
 * Query of `DELETE /users/{id}/groups/{groupId}`: `move_to_group_id` (another group of the customer its
 * members join) or `detach=true` (its members simply leave it); not both.
 */
export const groupDeleteQuerySchema = z.object({ move_to_group_id: idSchema.optional(), detach: queryFlag.optional() });
export type GroupDeleteQuery = z.infer<typeof groupDeleteQuerySchema>;

/**
 * Query of `DELETE /device_exceptions/{id}`: `move_to_device_exception_id` (another exception of the
 * customer its devices and the device configuration take) or `detach=true` (they keep none); not both.
 */
export const deviceExceptionDeleteQuerySchema = z.object({
  move_to_device_exception_id: idSchema.optional(),
  detach: queryFlag.optional(),
});
export type DeviceExceptionDeleteQuery = z.infer<typeof deviceExceptionDeleteQuerySchema>;

/**
 * Path params `{ id, type, locId }` of `GET /users/{id}/locations/{type}/{locId}/dependants` (any
 * location type, `staticip` included).
 */
export const locationDependantsParamsSchema = z.object({
  id: idSchema,
  type: z.enum(['staticip', 'dynamicip', 'dynamicdns', 'roaming', 'virtual']),
  locId: idSchema,
});
export type LocationDependantsParams = z.infer<typeof locationDependantsParamsSchema>;

/** Query of a location's DELETE: `detach=true` when devices were last seen there (they keep no location). */
export const locationDeleteQuerySchema = z.object({ detach: queryFlag.optional() });
export type LocationDeleteQuery = z.infer<typeof locationDeleteQuerySchema>;

/**
 * Query of the cascading deletes `DELETE /users/{id}` and `DELETE /msp/{id}`: `confirm_name`, the
 * customer's or MSP's name exactly as stored, required when anything would go with it.
 */
export const confirmNameQuerySchema = z.object({
  confirm_name: z.string({ error: Messages.required }).max(200, { error: Messages.max200 }).optional(),
});
export type ConfirmNameQuery = z.infer<typeof confirmNameQuerySchema>;
