import type { ChangeFeed, DatabaseHandle } from '@cordon/db';
import type { ClaimLimits, Role } from '@cordon/shared';
import type { LoginThrottleLimits } from './lib/limiter.ts';
import type { JwtKeyRing } from './modules/auth/keys.ts';

/**
 * Who is calling, set once by the auth hook of the authenticated context (DESIGN.md §4; STYLE.md §9).
 * `mspId` is set for role 3, `customerId` for role 4; both null for roles 1 and 2.
 */
export interface Tenant {
  readonly adminId: number;
  /** The admin's e-mail (for the audit trail). */
  readonly email: string;
  readonly role: Role;
  readonly mspId: number | null;
  readonly customerId: number | null;
  /** The token's `jti` and `exp` (epoch s), for logout. */
  readonly jti: string;
  readonly exp: number;
}

/**
 * What a route touches, declared in its `config.scope` and enforced by the one tenancy guard:
 * - `any`: only the caller's own data (ids taken from the token; e.g. logout)
 * - `system`: deployment-wide data (MSP list, MSP creation)
 * - `msp`: the MSP of path param `id`; it must be visible to the caller, else 404
 * - `customer`: the customer of path param `id`; it must be visible to the caller, else 404
 * - `owned`: tenant-owned rows addressed by their own ids (policies); repositories filter by scope in SQL
 */
export type RouteScope = 'any' | 'system' | 'msp' | 'customer' | 'owned';

/** Dependencies every module gets from `buildApp` (no globals: STYLE.md anti-pattern 1). */
export interface AppDeps {
  readonly handle: DatabaseHandle;
  readonly changes: ChangeFeed;
  /** Access-token keys: the first signs, all verify (DESIGN.md §14). */
  readonly jwtKeys: JwtKeyRing;
  /** Login throttling limits; default `LOGIN_THROTTLE` (lib/limiter.ts). */
  readonly loginThrottle?: LoginThrottleLimits | undefined;
  /** Clock in epoch ms. */
  readonly now: () => number;
  /** What MSP and customer admins may claim as location addresses (DESIGN.md §14; `--claim-*` settings). */
  readonly claims: ClaimLimits;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route's tenancy scope; required on every authenticated route. */
    scope?: RouteScope;
    /** Roles allowed on the route; any other role gets 403. */
    roles?: readonly Role[];
  }
  interface FastifyRequest {
    /** The authenticated caller; set on every route of the authenticated context. */
    tenant: Tenant;
  }
}
