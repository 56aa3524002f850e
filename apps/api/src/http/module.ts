import type { ChangeTopic } from '@cordon/db';
import type { EndpointKey, EndpointResource, GuardedEndpointKey, HttpMethod } from '@cordon/shared';
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../types.ts';

/**
 * The ids of one tenant as the isolation test seeds it (an MSP with one customer, its policy,
 * location and address). Cases address a FOREIGN tenant's ids with them.
 */
export interface TenantIds {
  readonly mspId: number;
  readonly customerId: number;
  readonly policyId: number;
  readonly locationId: number;
  readonly addressId: number;
  /** A static route of the customer (domain `corp<n>.example`). */
  readonly staticRouteId: number;
  /** A cloud key of the customer. */
  readonly cloudKeyId: number;
  /** The MSP's primary admin (role 3). */
  readonly mspAdminId: number;
  /** The customer's primary admin (role 4). */
  readonly customerAdminId: number;
  /** A virtual location of the customer. */
  readonly virtualLocationId: number;
  /** An enrolled device of the customer and the internal user its agent reported. */
  readonly deviceId: number;
  readonly internalUserId: number;
  /** A device exception of the customer, one of its rules, and a group. */
  readonly deviceExceptionId: number;
  readonly ruleId: number;
  readonly groupId: number;
}

/**
 * Expected statuses of one call as tenant A's MSP admin, customer admin and a sales admin; a role
 * left out is not tried (the call is allowed for it, or has no foreign id to try: say why in `note`).
 */
export interface IsolationExpectation {
  /** Role 3 of tenant A. */
  readonly msp?: number;
  /** Role 4 of tenant A. */
  readonly customer?: number;
  /** Role 2. */
  readonly sales?: number;
}

/**
 * One cross-tenant call of the isolation test (docs/security.md "Tenant isolation": every route as
 * every role against a foreign tenant's ids): the endpoint's path filled with `params(own, foreign)`, an optional
 * query and body, and the statuses each role must get. The call must also change nothing.
 */
export interface IsolationCase extends IsolationExpectation {
  readonly params?: (own: TenantIds, foreign: TenantIds) => Record<string, string | number>;
  readonly query?: (own: TenantIds, foreign: TenantIds) => Record<string, string | number>;
  readonly body?: (own: TenantIds, foreign: TenantIds) => unknown;
  /** Why this case exists when an endpoint has several (e.g. "own customer, foreign location"), or why no role is tried. */
  readonly note?: string;
}

/** The isolation cases of a module's endpoints: at least one per endpoint key it owns. */
export type IsolationCases<K extends string> = { readonly [P in K]: readonly [IsolationCase, ...IsolationCase[]] };

/**
 * An API module's manifest (docs/contributing.md "Add a route"): `app.ts` registers the modules of
 * one ordered array, and the isolation test iterates the same array. The module names the endpoint
 * resources it serves; its `isolationCases` must then have a case for every guarded endpoint of
 * those resources, or it does not compile.
 */
export interface ApiModule<R extends EndpointResource = EndpointResource> {
  readonly name: string;
  /** The endpoint resources (of `Endpoints` in the shared package) this module serves. */
  readonly resources: readonly R[];
  /** Routes that need no token (login); registered in the public context. */
  readonly registerPublic?: (app: FastifyInstance, deps: AppDeps) => void | Promise<void>;
  /** Authenticated routes; registered in the tenant-scoped context behind the tenancy guard. */
  readonly register: (app: FastifyInstance, deps: AppDeps) => void | Promise<void>;
  readonly isolationCases: IsolationCases<GuardedEndpointKey<R>>;
  /** The change topics the module's mutations publish (the resolver's snapshot parts follow them). */
  readonly topics: readonly ChangeTopic[];
}

/** Identity helper that checks a manifest with its resources inferred. */
export function defineModule<R extends EndpointResource>(module: ApiModule<R>): ApiModule<R> {
  return module;
}

/** The method and OpenAPI-style path of an endpoint key, for test names: `GET /restapi/msp/{id}`. */
export type RouteLabel = `${HttpMethod} /restapi${string}`;

/**
 * Any module's manifest, as the ordered `API_MODULES` array holds them: the resources widened, the
 * isolation cases by endpoint key.
 */
export type AnyApiModule = Omit<ApiModule, 'resources' | 'isolationCases'> & {
  readonly resources: readonly EndpointResource[];
  readonly isolationCases: Readonly<Partial<Record<EndpointKey, readonly IsolationCase[]>>>;
};
