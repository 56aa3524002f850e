import type { Database } from '@cordon/db';
import type { Role } from '@cordon/shared';
import type { Kysely } from 'kysely';
import { customerInScope, mspInScope, type TenantScope } from './scope.ts';

/**
 * True when the caller's scope may see MSP `id` (role 3: only its own; roles 1, 2: any existing).
 * The API's tenancy guard asks it for routes of scope `msp` (docs/architecture.md "Tenancy").
 */
export async function mspVisible(db: Kysely<Database>, scope: TenantScope, role: Role, id: number): Promise<boolean> {
  const row = await db
    .selectFrom('msps')
    .select('id')
    .where('id', '=', id)
    .where(mspInScope(scope, role))
    .executeTakeFirst();
  return row !== undefined;
}

/** True when customer `id` exists within `scope` (the guard's check for `/users/{id}` routes). */
export async function customerVisible(db: Kysely<Database>, scope: TenantScope, id: number): Promise<boolean> {
  const row = await db
    .selectFrom('customers')
    .select('customers.id')
    .where('customers.id', '=', id)
    .where(customerInScope(scope))
    .executeTakeFirst();
  return row !== undefined;
}

/** The MSP of customer `id` within `scope`, or undefined when it is missing or not visible. */
export async function customerTenant(
  db: Kysely<Database>,
  scope: TenantScope,
  id: number,
): Promise<{ id: number; mspId: number } | undefined> {
  const row = await db
    .selectFrom('customers')
    .select(['customers.id', 'customers.msp_id'])
    .where('customers.id', '=', id)
    .where(customerInScope(scope))
    .executeTakeFirst();
  return row ? { id: row.id, mspId: row.msp_id } : undefined;
}
