import type { z } from 'zod';
import type { Role } from '../roles.ts';

/** HTTP methods the API uses (spec-notes §7). */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * What a route touches, enforced by the API's one tenancy guard (docs/architecture.md "Tenancy"):
 * - `any`: only the caller's own data (ids taken from the token; e.g. logout)
 * - `system`: deployment-wide data (MSP list, MSP creation)
 * - `msp`: the MSP of path param `id`; it must be visible to the caller, else 404
 * - `customer`: the customer of path param `id`; it must be visible to the caller, else 404
 * - `owned`: tenant-owned rows addressed by their own ids; repositories filter by scope in SQL
 */
export type RouteScope = 'any' | 'system' | 'msp' | 'customer' | 'owned';

/** Who may call an endpoint: no token at all, or a token of one of `roles` within `scope`. */
export type EndpointAccess =
  | { readonly public: true }
  | { readonly public?: false; readonly scope: RouteScope; readonly roles: readonly Role[] };

/**
 * One `/restapi` endpoint, the single source of its wire contract (docs/architecture.md "Layers" "endpoint
 * descriptors"): the API registers its route from it, the console calls it through the typed
 * client, the isolation test is keyed by it and `docs/openapi.json` is generated from it.
 * `path` is relative to `/restapi`, with `:name` for path params (Fastify's syntax).
 */
export interface EndpointDescriptor {
  readonly method: HttpMethod;
  readonly path: string;
  /** Path params; ids arrive as text and are coerced by the schema. */
  readonly params?: z.ZodType;
  /** Query string. */
  readonly query?: z.ZodType;
  /** JSON body. */
  readonly body?: z.ZodType;
  /** The success answer's body. */
  readonly response: z.ZodType;
  /** The success status: 201 for creations, else 200. */
  readonly status: 200 | 201;
  readonly access: EndpointAccess;
  /** OpenAPI tag: the resource's name. */
  readonly tag: string;
  /** One line for the OpenAPI document, naming the spec's section. */
  readonly summary: string;
}

/** Returns `e` with its literal types kept, checked against {@link EndpointDescriptor}. */
export function defineEndpoint<const E extends EndpointDescriptor>(e: E): E {
  return e;
}

type SchemaOutput<E, K extends 'params' | 'query' | 'body'> = E extends { readonly [P in K]: infer S extends z.ZodType }
  ? z.output<S>
  : undefined;
type SchemaInput<E, K extends 'params' | 'query' | 'body'> = E extends { readonly [P in K]: infer S extends z.ZodType }
  ? z.input<S>
  : undefined;

/** The parsed path params a handler receives (ids as numbers). */
export type EndpointParams<E extends EndpointDescriptor> = SchemaOutput<E, 'params'>;
/** The parsed query a handler receives (defaults applied). */
export type EndpointQuery<E extends EndpointDescriptor> = SchemaOutput<E, 'query'>;
/** The parsed body a handler receives (defaults applied, normalised). */
export type EndpointBody<E extends EndpointDescriptor> = SchemaOutput<E, 'body'>;
/** What a handler returns: the response schema's input (it is serialised through the schema). */
export type EndpointResult<E extends EndpointDescriptor> = z.input<E['response']>;
/** What a client reads back: the response schema's output. */
export type EndpointResponse<E extends EndpointDescriptor> = z.output<E['response']>;
/** The query a client sends: the schema's input (fields with defaults may be left out). */
export type EndpointQueryInput<E extends EndpointDescriptor> = SchemaInput<E, 'query'>;
/** The body a client sends: the schema's input. */
export type EndpointBodyInput<E extends EndpointDescriptor> = SchemaInput<E, 'body'>;

/**
 * Fills an endpoint's path with params, each encoded as a URI component:
 * `fillPath('/users/:id/locations/:type', { id: 3, type: 'all' })` → `/users/3/locations/all`.
 * @throws Error when a `:name` of the path has no value in `params`
 */
export function fillPath(path: string, params: Readonly<Record<string, unknown>> | undefined): string {
  return path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, (_, name: string) => {
    const value = params?.[name];
    if (value === undefined || value === null) throw new Error(`Missing path param ${name} for ${path}`);
    return encodeURIComponent(String(value));
  });
}
