import type { Database } from '@cordon/db';
import { Role } from '@cordon/shared';
import { type Expression, type ExpressionBuilder, type SqlBool, sql } from 'kysely';
import type { Tenant } from '../types.ts';

/**
 * The rows a caller may see, for repositories (DESIGN.md §4; STYLE.md §12):
 * `all` (system admin), `msp` (an MSP admin's MSP), `customer` (a customer admin's customer),
 * `none` (sales and anything unknown: sees no tenant-owned rows).
 */
export type TenantScope =
  | { readonly kind: 'all' }
  | { readonly kind: 'msp'; readonly mspId: number }
  | { readonly kind: 'customer'; readonly customerId: number }
  | { readonly kind: 'none' };

/** The data scope of an authenticated caller. */
export function scopeOf(tenant: Tenant): TenantScope {
  if (tenant.role === Role.System) return { kind: 'all' };
  if (tenant.role === Role.Msp && tenant.mspId !== null) return { kind: 'msp', mspId: tenant.mspId };
  if (tenant.role === Role.Customer && tenant.customerId !== null) {
    return { kind: 'customer', customerId: tenant.customerId };
  }
  return { kind: 'none' };
}

/**
 * A WHERE condition on the `customers` table limiting it to `scope`. Every query of tenant-owned
 * rows joins `customers` and applies this, so a foreign id behaves as a missing one.
 */
export function customerInScope(eb: ExpressionBuilder<Database, 'customers'>, scope: TenantScope): Expression<SqlBool> {
  switch (scope.kind) {
    case 'all':
      return sql<SqlBool>`1 = 1`;
    case 'msp':
      return eb('customers.msp_id', '=', scope.mspId);
    case 'customer':
      return eb('customers.id', '=', scope.customerId);
    default:
      return sql<SqlBool>`1 = 0`;
  }
}

/** A WHERE condition on `msps` limiting it to what `scope` may read (sales reads all MSPs: route roles decide). */
export function mspInScope(
  eb: ExpressionBuilder<Database, 'msps'>,
  scope: TenantScope,
  role: Role,
): Expression<SqlBool> {
  if (scope.kind === 'all' || role === Role.Sales) return sql<SqlBool>`1 = 1`;
  if (scope.kind === 'msp') return eb('msps.id', '=', scope.mspId);
  return sql<SqlBool>`1 = 0`;
}
