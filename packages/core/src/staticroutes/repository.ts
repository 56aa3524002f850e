import type { Database } from '@cordon/db';
import { formatResolverAddress, type StaticRoute, type StaticRouteListQuery } from '@cordon/shared';
import type { Kysely } from 'kysely';
import { containsAnyText, type ListSort, listPage } from '../paging/index.ts';
import { customerInScope, ownedInScope, type TenantScope } from '../tenancy/index.ts';

/** The list's order (docs/api.md "Conventions"): `domain` by default. */
const SORT: ListSort<string> = {
  columns: {
    domain: 'static_routes.domain',
    resolver: 'static_routes.resolver_ip',
    description: 'static_routes.description',
    id: 'static_routes.id',
    created_at: 'static_routes.created_at',
  },
  text: ['static_routes.domain', 'static_routes.description'],
  tiebreak: 'static_routes.id',
};

/** Static routes within `scope` (joined to `customers` so the tenant predicate is in SQL). */
function routeQuery(db: Kysely<Database>, scope: TenantScope) {
  return db
    .selectFrom('static_routes')
    .innerJoin('customers', 'customers.id', 'static_routes.customer_id')
    .where(customerInScope(scope))
    .select([
      'static_routes.id',
      'static_routes.customer_id',
      'static_routes.domain',
      'static_routes.resolver_ip',
      'static_routes.resolver_port',
      'static_routes.description',
      'static_routes.created_at',
      'static_routes.updated_at',
    ]);
}

type RouteRow = {
  id: number;
  customer_id: number;
  domain: string;
  resolver_ip: string;
  resolver_port: number;
  description: string;
  created_at: string;
  updated_at: string;
};

/** A row on the wire (spec-notes §3 "Static route"). */
function toRoute(r: RouteRow): StaticRoute {
  return {
    id: r.id,
    user_id: r.customer_id,
    domain: r.domain,
    resolver: formatResolverAddress({ ip: r.resolver_ip, port: r.resolver_port }),
    description: r.description,
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}

/**
 * A page of customer `customerId`'s static routes within `scope`; `filter` matches domain or description.
 * @throws ApiError ERR_VALIDATION (400) for an unknown sortkey
 */
export async function listRoutes(
  db: Kysely<Database>,
  scope: TenantScope,
  customerId: number,
  query: StaticRouteListQuery,
): Promise<{ data: StaticRoute[]; total: number }> {
  let base = routeQuery(db, scope).where('static_routes.customer_id', '=', customerId);
  const filter = query.filter;
  if (filter) base = base.where(containsAnyText(['static_routes.domain', 'static_routes.description'], filter));
  const { rows, total } = await listPage(base, query, SORT);
  return { data: rows.map(toRoute), total };
}

/** Static route `id` within `scope`, or undefined (missing and foreign alike). */
export async function getRoute(db: Kysely<Database>, scope: TenantScope, id: number): Promise<StaticRoute | undefined> {
  const row = await routeQuery(db, scope).where('static_routes.id', '=', id).executeTakeFirst();
  return row ? toRoute(row) : undefined;
}

/** The columns of a route's resolver. */
export interface ResolverColumns {
  resolver_ip: string;
  resolver_port: number;
}

/** Inserts a route of customer `customerId` (already checked in scope); returns its id. */
export async function insertRoute(
  db: Kysely<Database>,
  customerId: number,
  values: { domain: string; description: string } & ResolverColumns,
  at: string,
): Promise<number> {
  const row = await db
    .insertInto('static_routes')
    .values({ customer_id: customerId, ...values, created_at: at, updated_at: at })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** Updates route `id` within `scope`; false when not visible. */
export async function updateRoute(
  db: Kysely<Database>,
  scope: TenantScope,
  id: number,
  patch: Partial<{ domain: string; description: string } & ResolverColumns>,
  at: string,
): Promise<boolean> {
  const res = await db
    .updateTable('static_routes')
    .set({ ...patch, updated_at: at })
    .where('id', '=', id)
    .where(ownedInScope('static_routes.customer_id', scope))
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

/** Deletes route `id` within `scope`; false when not visible. */
export async function deleteRoute(db: Kysely<Database>, scope: TenantScope, id: number): Promise<boolean> {
  const res = await db
    .deleteFrom('static_routes')
    .where('id', '=', id)
    .where(ownedInScope('static_routes.customer_id', scope))
    .executeTakeFirst();
  return Number(res.numDeletedRows) > 0;
}
