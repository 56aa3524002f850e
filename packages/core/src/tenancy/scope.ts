import type { Database } from '@cordon/db';
import { Role } from '@cordon/shared';
import { type Expression, expressionBuilder, type SelectQueryBuilder, type SqlBool, sql } from 'kysely';
import type { Caller } from '../context.ts';

/**
 * The rows a caller may see, for repositories (docs/architecture.md "Tenancy"):
 * `all` (system admin, the operator), `msp` (an MSP admin's MSP), `customer` (a customer admin's
 * customer), `none` (sales and anything unknown: sees no tenant-owned rows).
 */
export type TenantScope =
  | { readonly kind: 'all' }
  | { readonly kind: 'msp'; readonly mspId: number }
  | { readonly kind: 'customer'; readonly customerId: number }
  | { readonly kind: 'none' };

/** The whole deployment: what the operator's commands and a system admin see. */
export const EVERYTHING: TenantScope = { kind: 'all' };

/** The data scope of a caller (its role and tenant ids). */
export function scopeOf(caller: Pick<Caller, 'role' | 'mspId' | 'customerId'>): TenantScope {
  if (caller.role === Role.System) return EVERYTHING;
  if (caller.role === Role.Msp && caller.mspId !== null) return { kind: 'msp', mspId: caller.mspId };
  if (caller.role === Role.Customer && caller.customerId !== null) {
    return { kind: 'customer', customerId: caller.customerId };
  }
  return { kind: 'none' };
}

/** The tables whose rows belong to one customer (they carry a non-null `customer_id`). */
export type CustomerOwnedTable = {
  [T in keyof Database]: Database[T] extends { customer_id: number } ? T : never;
}[keyof Database];

/** A `<table>.customer_id` column of a customer-owned table. */
export type CustomerIdColumn = `${CustomerOwnedTable}.customer_id`;

// Free-standing builders (not tied to one query), so the predicates below are plain expressions that
// any select, update or delete can take in `.where(...)` without casts.
const customers = expressionBuilder<Database, 'customers'>();
const msps = expressionBuilder<Database, 'msps'>();
const owned = expressionBuilder<Database, CustomerOwnedTable>();

/**
 * A WHERE condition on the `customers` table limiting it to `scope`: use it in queries that select
 * from or join `customers`, so a foreign id behaves as a missing one (docs/architecture.md "Tenancy").
 */
export function customerInScope(scope: TenantScope): Expression<SqlBool> {
  switch (scope.kind) {
    case 'all':
      return sql<SqlBool>`1 = 1`;
    case 'msp':
      return customers('customers.msp_id', '=', scope.mspId);
    case 'customer':
      return customers('customers.id', '=', scope.customerId);
    default:
      return sql<SqlBool>`1 = 0`;
  }
}

/** `select customers.id from customers where <customerInScope>`: the ids of the customers `scope` may see. */
export function customerIdsInScope(scope: TenantScope): SelectQueryBuilder<Database, 'customers', { id: number }> {
  return customers.selectFrom('customers').select('customers.id').where(customerInScope(scope));
}

/**
 * A WHERE condition limiting a customer-owned table to the rows of customers in `scope`:
 * `<column> in (select customers.id from customers where …)`. The one tenant predicate of updates
 * and deletes, which cannot join `customers` (tenant scoping stays in SQL).
 * @param column the table's `customer_id`, e.g. `'policies.customer_id'`
 */
export function ownedInScope(column: CustomerIdColumn, scope: TenantScope): Expression<SqlBool> {
  return owned(column, 'in', customerIdsInScope(scope));
}

/** A WHERE condition on `msps` limiting it to what `scope` may read (sales reads all MSPs: route roles decide). */
export function mspInScope(scope: TenantScope, role: Role): Expression<SqlBool> {
  if (scope.kind === 'all' || role === Role.Sales) return sql<SqlBool>`1 = 1`;
  if (scope.kind === 'msp') return msps('msps.id', '=', scope.mspId);
  return sql<SqlBool>`1 = 0`;
}

/**
 * The default policy of the customer whose id is `customerId` (a column of the outer query, e.g.
 * `eb.ref('customers.id')`), as a correlated subquery over `policies as dp` (a location without a
 * policy inherits it). Select one column of it: `.select('dp.id')`.
 */
export function defaultPolicyOf(customerId: Expression<number>) {
  return expressionBuilder<Database>()
    .selectFrom('policies as dp')
    .where('dp.customer_id', '=', customerId)
    .where('dp.is_default', '=', 1)
    .limit(1);
}
