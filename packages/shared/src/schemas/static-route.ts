import { z } from 'zod';
import { Messages } from '../messages.ts';
import { normalizeDomain } from '../net.ts';
import {
  formatResolverAddress,
  parseResolverAddress,
  type ResolverAddress,
  resolverAddressMessage,
} from '../resolver-address.ts';
import { domainSchema, idSchema, listQuerySchema, optionalText } from './common.ts';

/** A resolver address in a body: parsed, canonical text ({@link formatResolverAddress}). */
export const resolverAddressSchema = z
  .string({ error: Messages.required })
  .trim()
  .min(1, { error: Messages.required })
  .refine((v) => parseResolverAddress(v) !== null, { error: resolverAddressMessage })
  .transform((v) => formatResolverAddress(parseResolverAddress(v) as ResolverAddress));

/**
 * A static route (spec-notes §3 "Static route", §7 `/staticroutes`): names at or below `domain` asked by
 * the customer `user_id`'s clients are forwarded to `resolver` (`ip:port`, `[ipv6]:port`).
 */
export const staticRouteSchema = z.object({
  id: z.number().int(),
  user_id: z.number().int(),
  domain: z.string(),
  resolver: z.string(),
  description: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type StaticRoute = z.infer<typeof staticRouteSchema>;

/** Body of `POST /staticroutes`: the domain suffix (normalised), the resolver, a description. */
export const staticRouteCreateSchema = z.object({
  domain: domainSchema.transform(normalizeDomain),
  resolver: resolverAddressSchema,
  description: optionalText.default(''),
});
export type StaticRouteCreate = z.infer<typeof staticRouteCreateSchema>;

/** Body of `POST /staticroutes/{id}` (an update, as the spec's updates are POSTs): any of the fields. */
export const staticRouteUpdateSchema = z.object({
  domain: domainSchema.transform(normalizeDomain).optional(),
  resolver: resolverAddressSchema.optional(),
  description: optionalText.optional(),
});
export type StaticRouteUpdate = z.infer<typeof staticRouteUpdateSchema>;

/**
 * Query of the static-route calls: `user_id`, the customer (required for system and MSP admins; a
 * customer admin's own by default), as `/policies` takes it (docs/decisions.md "Static routes").
 */
export const staticRouteQuerySchema = z.object({ user_id: idSchema.optional() });

/**
 * Query of `GET /staticroutes`: `user_id` and the list query of docs/api.md (sortkey `domain` by
 * default, also `resolver`, `description`, `id`, `created_at`; `filter` searches domain and description).
 */
export const staticRouteListQuerySchema = listQuerySchema.extend({
  user_id: idSchema.optional(),
  sortkey: z.string().trim().min(1).max(64).default('domain'),
});
export type StaticRouteListQuery = z.infer<typeof staticRouteListQuerySchema>;
