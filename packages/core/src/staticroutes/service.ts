import { nowIso } from '@cordon/db';
import {
  ApiError,
  type ClaimLimits,
  parseResolverAddress,
  Role,
  resolverAddressRefusal,
  type StaticRoute,
  type StaticRouteCreate,
  type StaticRouteListQuery,
  type StaticRouteUpdate,
} from '@cordon/shared';
import type { Caller, CoreDeps } from '../context.ts';
import { mutate } from '../mutation/index.ts';
import { customerFor } from '../policies/index.ts';
import { customerTenant, scopeOf } from '../tenancy/index.ts';
import type { ResolverColumns } from './repository.ts';
import * as repo from './repository.ts';

/**
 * What static-route writes need besides the core deps: the operator's `--claim-allow-special`, which
 * also lets MSP and customer admins route to loopback, link-local and reserved addresses
 * (docs/decisions.md "Static routes").
 */
export interface StaticRouteDeps extends CoreDeps {
  readonly claims: Pick<ClaimLimits, 'allowSpecial'>;
}

const TOPICS = ['staticroutes'] as const;

/** 409 for a second route of one customer for the same domain. */
function domainTaken(domain: string): ApiError {
  const message = `A static route for ${domain} already exists.`;
  return new ApiError('ERR_CONFLICT', message, { domain: message });
}

/**
 * The resolver's columns from its canonical text, after the address rules (docs/decisions.md
 * "Static routes"): a system admin may route anywhere but unspecified, broadcast and multicast; other
 * admins not to loopback, link-local or reserved addresses either, unless the operator allows them.
 * @throws ApiError ERR_VALIDATION (400) with a `resolver` field error
 */
function resolverColumns(deps: StaticRouteDeps, caller: Caller, resolver: string): ResolverColumns {
  const address = parseResolverAddress(resolver);
  if (address === null) throw new Error(`unparsed resolver ${resolver}`); // the schema parsed it already
  const why = resolverAddressRefusal(address.ip, caller.role === Role.System || deps.claims.allowSpecial);
  if (why) throw new ApiError('ERR_VALIDATION', why, { resolver: why });
  return { resolver_ip: address.ip, resolver_port: address.port };
}

/**
 * `GET /staticroutes?user_id=`: a page of the customer's routes (a customer admin's own customer by default).
 * @throws ApiError ERR_VALIDATION (no `user_id` from a system or MSP admin; unknown sortkey), ERR_NOT_FOUND
 */
export async function listStaticRoutes(
  deps: CoreDeps,
  caller: Caller,
  query: StaticRouteListQuery,
): Promise<{ data: StaticRoute[]; total: number }> {
  const customerId = await customerFor(deps, caller, query.user_id);
  return repo.listRoutes(deps.handle.db, scopeOf(caller), customerId, query);
}

/**
 * `GET /staticroutes/{id}`.
 * @throws ApiError ERR_NOT_FOUND when missing or of a customer the caller may not see
 */
export async function getStaticRoute(deps: CoreDeps, caller: Caller, id: number): Promise<StaticRoute> {
  const route = await repo.getRoute(deps.handle.db, scopeOf(caller), id);
  if (!route) throw new ApiError('ERR_NOT_FOUND');
  return route;
}

/**
 * `POST /staticroutes?user_id=`: a route of customer `userId` (a customer admin's own by default).
 * Audit `staticroute.create`; publishes `staticroutes`, so resolvers forward within a second.
 * @throws ApiError ERR_VALIDATION (no `user_id`; a refused resolver address), ERR_NOT_FOUND (customer
 *   not visible), ERR_CONFLICT (the customer has a route for this domain)
 */
export async function createStaticRoute(
  deps: StaticRouteDeps,
  caller: Caller,
  userId: number | undefined,
  body: StaticRouteCreate,
): Promise<StaticRoute> {
  const resolver = resolverColumns(deps, caller, body.resolver);
  const customerId = await customerFor(deps, caller, userId);
  const scope = scopeOf(caller);
  const id = await mutate(
    deps,
    caller,
    {
      topics: TOPICS,
      audit: { action: 'staticroute.create', entity: 'static_route' },
      conflict: () => domainTaken(body.domain),
    },
    async (trx, note) => {
      const tenant = await customerTenant(trx, scope, customerId);
      if (!tenant) throw new ApiError('ERR_NOT_FOUND');
      const at = nowIso(deps.now());
      const routeId = await repo.insertRoute(
        trx,
        customerId,
        { domain: body.domain, description: body.description, ...resolver },
        at,
      );
      note.entityId = routeId;
      note.mspId = tenant.mspId;
      note.customerId = customerId;
      note.after = await repo.getRoute(trx, scope, routeId);
      return routeId;
    },
  );
  return getStaticRoute(deps, caller, id);
}

/**
 * `POST /staticroutes/{id}` (an update): any of domain, resolver, description. Audit
 * `staticroute.update` with the route before and after; publishes `staticroutes`.
 * @throws ApiError ERR_NOT_FOUND, ERR_VALIDATION (a refused resolver), ERR_CONFLICT (domain taken)
 */
export async function updateStaticRoute(
  deps: StaticRouteDeps,
  caller: Caller,
  id: number,
  body: StaticRouteUpdate,
): Promise<StaticRoute> {
  const scope = scopeOf(caller);
  const resolver = body.resolver === undefined ? undefined : resolverColumns(deps, caller, body.resolver);
  await mutate(
    deps,
    caller,
    {
      topics: TOPICS,
      audit: { action: 'staticroute.update', entity: 'static_route' },
      conflict: () => domainTaken(body.domain ?? ''),
    },
    async (trx, note) => {
      const before = await repo.getRoute(trx, scope, id);
      if (!before) throw new ApiError('ERR_NOT_FOUND');
      const patch: Partial<{ domain: string; description: string } & ResolverColumns> = { ...resolver };
      if (body.domain !== undefined) patch.domain = body.domain;
      if (body.description !== undefined) patch.description = body.description;
      if (!(await repo.updateRoute(trx, scope, id, patch, nowIso(deps.now())))) throw new ApiError('ERR_NOT_FOUND');
      const tenant = await customerTenant(trx, scope, before.user_id);
      note.entityId = id;
      note.mspId = tenant?.mspId ?? null;
      note.customerId = before.user_id;
      note.before = before;
      note.after = await repo.getRoute(trx, scope, id);
    },
  );
  return getStaticRoute(deps, caller, id);
}

/**
 * `DELETE /staticroutes/{id}`. Audit `staticroute.delete` with the route before; publishes `staticroutes`.
 * @throws ApiError ERR_NOT_FOUND
 */
export async function deleteStaticRoute(deps: CoreDeps, caller: Caller, id: number): Promise<{ deleted: true }> {
  const scope = scopeOf(caller);
  await mutate(
    deps,
    caller,
    { topics: TOPICS, audit: { action: 'staticroute.delete', entity: 'static_route' } },
    async (trx, note) => {
      const before = await repo.getRoute(trx, scope, id);
      if (!before) throw new ApiError('ERR_NOT_FOUND');
      const tenant = await customerTenant(trx, scope, before.user_id);
      if (!(await repo.deleteRoute(trx, scope, id))) throw new ApiError('ERR_NOT_FOUND');
      note.entityId = id;
      note.mspId = tenant?.mspId ?? null;
      note.customerId = before.user_id;
      note.before = before;
    },
  );
  return { deleted: true };
}
