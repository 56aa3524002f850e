import { z } from 'zod';
import { cidrSchema, idSchema, safeName } from './common.ts';

/** Location types (spec §3 "Location"). */
export const LOCATION_TYPES = ['staticip', 'dynamicip', 'dynamicdns', 'roaming', 'virtual'] as const;
export type LocationType = (typeof LOCATION_TYPES)[number];

export const locationAddressSchema = z.object({ id: z.number().int(), ip: z.string() });

/**
 * A location (spec §3): `policy_id` null means "inherit the customer default policy";
 * `policy_name` is the effective policy's name.
 */
export const locationSchema = z.object({
  id: z.number().int(),
  type: z.enum(LOCATION_TYPES),
  name: z.string(),
  policy_id: z.number().int().nullable(),
  policy_name: z.string(),
  key: z.string().nullable(),
  addresses: z.array(locationAddressSchema),
  ip: z.string().nullable(),
});
export type Location = z.infer<typeof locationSchema>;

/** Path params of `/users/{id}/locations/{type}`; `all` lists every type. */
export const locationTypeParamsSchema = z.object({ id: idSchema, type: z.enum([...LOCATION_TYPES, 'all']) });

/**
 * Body of `POST /users/{id}/locations/staticip[/{locId}]`: a name, the policy (null inherits the
 * default) and at least one address as IP or CIDR. On update, `addresses` replaces the set.
 */
export const staticIpLocationCreateSchema = z.object({
  name: safeName,
  policy_id: idSchema.nullable().default(null),
  addresses: z.array(cidrSchema('IP')).min(1, { error: 'At least one IP address is required.' }).max(256),
});
export type StaticIpLocationCreate = z.infer<typeof staticIpLocationCreateSchema>;

export const staticIpLocationUpdateSchema = staticIpLocationCreateSchema.partial();
export type StaticIpLocationUpdate = z.infer<typeof staticIpLocationUpdateSchema>;

/** Body of `POST /users/{id}/locations/staticip/{locId}/addresses`. */
export const locationAddressCreateSchema = z.object({ ip: cidrSchema('IP') });

/** Path params `{ id, locId }` of `/users/{id}/locations/staticip/{locId}`. */
export const locationParamsSchema = z.object({ id: idSchema, locId: idSchema });

/** Path params `{ id, locId, addrId }` of `/users/{id}/locations/staticip/{locId}/addresses/{addrId}`. */
export const locationAddressParamsSchema = z.object({ id: idSchema, locId: idSchema, addrId: idSchema });
