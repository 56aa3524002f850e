import { z } from 'zod';
import { Messages } from '../messages.ts';
import { isDomainName, isIpAddress, looksLikeUrl } from '../net.ts';
import { cidrSchema, idSchema, listQuerySchema, safeName } from './common.ts';

/** Location types (spec-notes §3 "Location"). */
export const LOCATION_TYPES = ['staticip', 'dynamicip', 'dynamicdns', 'roaming', 'virtual'] as const;
export type LocationType = (typeof LOCATION_TYPES)[number];

export const locationAddressSchema = z.object({ id: z.number().int(), ip: z.string() });

/** The location types other than `staticip`, created and edited through `/users/{id}/locations/{type}[/{locId}]`. */
export const OTHER_LOCATION_TYPES = ['dynamicip', 'dynamicdns', 'roaming', 'virtual'] as const;
export type OtherLocationType = (typeof OTHER_LOCATION_TYPES)[number];

/**
 * A location (spec-notes §3): `policy_id` null means "inherit the customer default policy";
 * `policy_name` is the effective policy's name. `key` is the secret of a `dynamicip` location's
 * update URL or of a `roaming`/`virtual` location's `/dns-query/{key}` (null for the others);
 * `hostname` the name a `dynamicdns` location follows; `addresses_updated_at` when a dynamic
 * location's addresses last changed (ISO-8601 UTC) and `resolve_error` the last re-resolution's
 * failure ('' when none).
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
  hostname: z.string().nullable(),
  addresses_updated_at: z.string().nullable(),
  resolve_error: z.string(),
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

/** Query of `GET /users/{id}/locations/{type|all}`: the list query and an optional `policy_id` (the policy's locations tab). */
export const locationListQuerySchema = listQuerySchema.extend({ policy_id: idSchema.optional() });
export type LocationListQuery = z.infer<typeof locationListQuerySchema>;

/** Path params `{ id, type, locId }` of `/users/{id}/locations/{type}/{locId}` for the non-static types. */
export const otherLocationParamsSchema = z.object({
  id: idSchema,
  type: z.enum(OTHER_LOCATION_TYPES),
  locId: idSchema,
});

/** Path params `{ id, type }` of `POST /users/{id}/locations/{type}` for the non-static types. */
export const otherLocationTypeParamsSchema = z.object({ id: idSchema, type: z.enum(OTHER_LOCATION_TYPES) });

/** A host name a `dynamicdns` location follows: a fully qualified domain name, never a URL (spec-notes §5). */
export const hostnameSchema = z
  .string({ error: Messages.required })
  .trim()
  .min(1, { error: Messages.required })
  .refine((v) => !looksLikeUrl(v) && isDomainName(v), { error: Messages.domainOnly })
  .transform((v) => v.toLowerCase().replace(/\.+$/, ''));

/** One IP address (not a range), as a dynamic-IP location's current address (spec-notes §5 "Must be valid IP address."). */
export const singleIpSchema = z
  .string({ error: Messages.required })
  .trim()
  .refine((v) => isIpAddress(v), { error: Messages.invalidIp });

/**
 * Body of `POST /users/{id}/locations/{type}` for `dynamicip`, `dynamicdns`, `roaming` and
 * `virtual`: name and policy; `hostname` (required for `dynamicdns`); `ip`, an optional first
 * address of a `dynamicip` location (later ones come through its update URL).
 */
export const otherLocationCreateSchema = z.object({
  name: safeName,
  policy_id: idSchema.nullable().default(null),
  hostname: hostnameSchema.optional(),
  ip: singleIpSchema.optional(),
});
export type OtherLocationCreate = z.infer<typeof otherLocationCreateSchema>;

/**
 * Body of `POST /users/{id}/locations/{type}/{locId}` (an update): name, policy, `hostname`
 * (`dynamicdns`), `ip` (`dynamicip`: sets the current address, the spec's POST) and
 * `regenerate_key` (a new key; the old one stops working at once).
 */
export const otherLocationUpdateSchema = z.object({
  name: safeName.optional(),
  policy_id: idSchema.nullable().optional(),
  hostname: hostnameSchema.optional(),
  ip: singleIpSchema.optional(),
  regenerate_key: z.boolean().optional(),
});
export type OtherLocationUpdate = z.infer<typeof otherLocationUpdateSchema>;

/**
 * Query of the DynDNS-compatible update URL `GET /locations/dynamicip/update` (docs/decisions.md
 * "Environment"): the location's key and `myip`, the new address (default: the caller's).
 */
export const dynDnsUpdateQuerySchema = z.object({
  key: z
    .string()
    .trim()
    .min(16)
    .max(128)
    .regex(/^[A-Za-z0-9_-]+$/),
  myip: singleIpSchema.optional(),
});

/** Answer of the update URL: `good` (changed) or `nochg` (already so), as DynDNS clients expect, and the address. */
export const dynDnsUpdateResponseSchema = z.object({ status: z.enum(['good', 'nochg']), ip: z.string() });

/**
 * Answer of `GET /users/{id}/locations/rate-limits` (docs/api.md "Locations, devices, groups and
 * users"): the limits that apply to the customer's locations, as the operator set them; null: off.
 * `location_qps` applies to each location claimed by address (static, dynamic IP, dynamic DNS), over
 * UDP; `unclaimed_rrl_qps` to sources no location claims (roaming devices by key) per /24, and to
 * amplifying answers.
 */
export const locationRateLimitsSchema = z.object({
  location_qps: z.number().int().nullable(),
  unclaimed_rrl_qps: z.number().int().nullable(),
});
export type LocationRateLimits = z.infer<typeof locationRateLimitsSchema>;
