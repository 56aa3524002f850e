import { ApiError, Role, type TestCategoryBody } from '@cordon/shared';
import type { Caller, CoreDeps } from '../context.ts';
import { customerTenant, scopeOf } from '../tenancy/index.ts';

/** Whose policy a test-categorisation question is decided under (spec-notes §7 `POST /tools/test/category`). */
export interface ToolTarget {
  readonly customerId: number;
  readonly mspId: number;
  readonly policy: { readonly id: number; readonly name: string } | null;
}

/**
 * Resolves the target of a test-categorisation question, every id checked against the caller's
 * scope in SQL: `policy_id` (its customer must be visible), else `user_id`'s default policy, else a
 * customer admin's own default policy; a system or MSP admin naming neither gets null (categories
 * only).
 * @throws ApiError ERR_NOT_FOUND for a policy or customer that is missing or not visible (the same
 *   answer for both), or a `user_id` that is not the policy's customer
 */
export async function toolTarget(deps: CoreDeps, caller: Caller, body: TestCategoryBody): Promise<ToolTarget | null> {
  const db = deps.handle.db;
  const scope = scopeOf(caller);
  if (body.policy_id !== undefined) {
    const policy = await db
      .selectFrom('policies')
      .select(['id', 'name', 'customer_id'])
      .where('id', '=', body.policy_id)
      .executeTakeFirst();
    const tenant = policy ? await customerTenant(db, scope, policy.customer_id) : undefined;
    if (!policy || !tenant) throw new ApiError('ERR_NOT_FOUND');
    if (body.user_id !== undefined && body.user_id !== tenant.id) throw new ApiError('ERR_NOT_FOUND');
    return { customerId: tenant.id, mspId: tenant.mspId, policy: { id: policy.id, name: policy.name } };
  }
  const customerId = body.user_id ?? (caller.role === Role.Customer ? caller.customerId : null);
  if (customerId === null || customerId === undefined) return null;
  const tenant = await customerTenant(db, scope, customerId);
  if (!tenant) throw new ApiError('ERR_NOT_FOUND');
  const policy = await db
    .selectFrom('policies')
    .select(['id', 'name'])
    .where('customer_id', '=', tenant.id)
    .where('is_default', '=', 1)
    .executeTakeFirst();
  return { customerId: tenant.id, mspId: tenant.mspId, policy: policy ?? null };
}
