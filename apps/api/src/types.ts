import type { lists, locations } from '@cordon/core';
import type { Role, RouteScope } from '@cordon/shared';
import type { BatchRate } from './lib/batch-budget.ts';
import type { LoginThrottleLimits } from './lib/limiter.ts';

export type { RouteScope };

/** One HS256 signing key of access tokens and its key id (the JWS `kid` header, RFC 7515 §4.1.4). */
export interface JwtKey {
  /** Derived from the key (the first 16 characters of base64url(sha256(key))): stable, reveals nothing usable. */
  readonly kid: string;
  readonly secret: Uint8Array;
}

/**
 * The access-token keys of a deployment (docs/security.md "Tokens and secrets at rest": outside the
 * database, rotatable): `signing` signs new tokens; every key of `byKid` (the signing one included)
 * verifies. Rotation: put a new key on the first line, keep the old one below it for one token
 * lifetime (12 h), then remove it. Built by `modules/auth/keys.ts`.
 */
export interface JwtKeyRing {
  readonly signing: JwtKey;
  readonly byKid: ReadonlyMap<string, JwtKey>;
}

/**
 * The authenticated principal: the admin whose access or API token the auth hook of the
 * authenticated context checked, with that token's identity (docs/architecture.md "Tenancy"). Not a
 * tenant: the admin's tenant is `mspId` (set for role 3) or `customerId` (role 4); both null for
 * roles 1 and 2.
 */
export interface Principal {
  readonly adminId: number;
  /** The admin's e-mail (for the audit trail). */
  readonly email: string;
  readonly role: Role;
  readonly mspId: number | null;
  readonly customerId: number | null;
  /** The token's `jti` and `exp` (epoch s), for logout. */
  readonly jti: string;
  readonly exp: number;
  /** Set when the caller used an API token (docs/api.md "API tokens") rather than a login session. */
  readonly apiToken?:
    | { readonly id: number; readonly name: string; readonly access: 'read' | 'read-write' }
    | undefined;
}

/**
 * Dependencies every module gets from `buildApp` (no globals): core's (database, change feed, clock)
 * with the address-claim limits, plus the API's own (token keys, login throttle).
 */
export interface AppDeps extends locations.LocationDeps {
  /** Access-token keys: the first signs, all verify (docs/security.md "Tokens and secrets at rest"). */
  readonly jwtKeys: JwtKeyRing;
  /** Login throttling limits; default `LOGIN_THROTTLE` (lib/limiter.ts). */
  readonly loginThrottle?: LoginThrottleLimits | undefined;
  /** Each admin's `/batch` sub-request budget; default `BATCH_RATE` (modules/batch/budget.ts; docs/api.md "Batch"). */
  readonly batchRate?: BatchRate | undefined;
  /** Cordon's upstream resolvers (the DNS lookup tool asks them); undefined: the host's resolvers. */
  readonly upstreams?: readonly { readonly host: string; readonly port: number }[] | undefined;
  /** The operator's domain-list limits (`--max-list-entries`; docs/operations.md "List sizes"); undefined: core's defaults. */
  readonly listLimits?: lists.ListLimits | undefined;
  /** The operator's phone set-up settings (`--doh-public-url`, `--dot-hostname`; docs/agent.md "Phones"); undefined: neither set. */
  readonly phoneSetup?: PhoneSetupSettings | undefined;
  /** The data plane's UDP limits (`--location-rate-limit`, `--rrl-rate`; docs/operations.md "Response-rate limiting"); undefined: the defaults. */
  readonly dnsRateLimits?: DnsRateLimits | undefined;
}

/** The data plane's UDP limits as the operator set them, queries per second; 0: off. */
export interface DnsRateLimits {
  /** Per claimed location. */
  readonly locationQps: number;
  /** Per client /24 (IPv6 /56) of unclaimed sources, and for amplifying answers. */
  readonly rrlQps: number;
}

/** What phones are set up with: the public DoH base URL (no trailing slash) and the DoT host-name suffix; null: unset. */
export interface PhoneSetupSettings {
  readonly dohUrl: string | null;
  readonly dotHostname: string | null;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route's tenancy scope; required on every authenticated route (set from its descriptor). */
    scope?: RouteScope;
    /** Roles allowed on the route; any other role gets 403. */
    roles?: readonly Role[];
  }
  interface FastifyRequest {
    /** The authenticated caller; set on every route of the authenticated context. */
    principal: Principal;
  }
}
