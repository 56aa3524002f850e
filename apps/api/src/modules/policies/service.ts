import { nowIso } from '@cordon/db';
import {
  ApiError,
  categoriesBlockedAt,
  type ListQuery,
  levelOfBlockedSet,
  Messages,
  type Policy,
  type PolicyCategory,
  type PolicyCategoryWire,
  type PolicyCreate,
  type PolicyUpdate,
  Role,
} from '@cordon/shared';
import { isUniqueViolation } from '../../lib/db-errors.ts';
import { scopeOf } from '../../lib/scope.ts';
import type { AppDeps, Tenant } from '../../types.ts';
import { customerVisible } from '../customers/repository.ts';
import * as repo from './repository.ts';

const nameTaken = () =>
  new ApiError('ERR_CONFLICT', 'A policy with this name already exists.', {
    name: 'A policy with this name already exists.',
  });

/**
 * The customer a policy call is about: a customer admin's own (a different `user_id` is "not found"),
 * else the `user_id` given, which must be visible.
 * @throws ApiError ERR_VALIDATION when a system or MSP admin gives no user_id; ERR_NOT_FOUND when not visible
 */
export async function customerFor(deps: AppDeps, tenant: Tenant, userId: number | undefined): Promise<number> {
  if (tenant.role === Role.Customer) {
    if (userId !== undefined && userId !== tenant.customerId) throw new ApiError('ERR_NOT_FOUND');
    if (tenant.customerId === null) throw new ApiError('ERR_NOT_FOUND');
    return tenant.customerId;
  }
  if (userId === undefined) throw new ApiError('ERR_VALIDATION', Messages.required, { user_id: Messages.required });
  if (!(await customerVisible(deps.handle.db, scopeOf(tenant), userId))) throw new ApiError('ERR_NOT_FOUND');
  return userId;
}

/** `GET /policies?user_id=`: the customer's policies; `show_default=false` hides the default policy. */
export async function listPolicies(
  deps: AppDeps,
  tenant: Tenant,
  query: ListQuery & { user_id?: number | undefined; show_default: boolean },
): Promise<{ data: Policy[]; total: number }> {
  const customerId = await customerFor(deps, tenant, query.user_id);
  return repo.listPolicies(deps.handle.db, scopeOf(tenant), customerId, query);
}

/**
 * `GET /policies/{id}`.
 * @throws ApiError ERR_NOT_FOUND when missing or in another tenant
 */
export async function getPolicy(deps: AppDeps, tenant: Tenant, id: number): Promise<Policy> {
  const policy = await repo.getPolicy(deps.handle.db, scopeOf(tenant), id);
  if (!policy) throw new ApiError('ERR_NOT_FOUND');
  return policy;
}

/** The id of the default policy of `/policies/default?user_id=`. @throws ApiError as {@link customerFor}, ERR_NOT_FOUND */
export async function defaultPolicyIdFor(deps: AppDeps, tenant: Tenant, userId: number | undefined): Promise<number> {
  const customerId = await customerFor(deps, tenant, userId);
  const id = await repo.defaultPolicyId(deps.handle.db, scopeOf(tenant), customerId);
  if (id === undefined) throw new ApiError('ERR_NOT_FOUND');
  return id;
}

/**
 * `POST /policies`: a policy of customer `user_id` whose blocked categories are the level's set
 * under the *current* category levels (spec §4: level edits apply to new policies); publishes `policies`.
 * @throws ApiError ERR_NOT_FOUND (customer not visible), ERR_CONFLICT (name taken)
 */
export async function createPolicy(deps: AppDeps, tenant: Tenant, body: PolicyCreate): Promise<Policy> {
  const customerId = await customerFor(deps, tenant, body.user_id);
  const id = await deps.handle.db
    .transaction()
    .execute(async (trx) => {
      if (await repo.policyNameTaken(trx, customerId, body.name)) throw nameTaken();
      const policyId = await repo.insertPolicy(
        trx,
        customerId,
        {
          name: body.name,
          description: body.description,
          level: body.filtering_level,
          is_default: false,
          allow_unclassified: body.allow_unclassified,
        },
        nowIso(deps.now()),
      );
      const blocked = categoriesBlockedAt(body.filtering_level, await repo.categoryRows(trx));
      await repo.setBlockedCategories(trx, policyId, customerId, blocked);
      return policyId;
    })
    .catch((e: unknown) => {
      throw isUniqueViolation(e) ? nameTaken() : e;
    });
  await deps.changes.publish('policies');
  return getPolicy(deps, tenant, id);
}

/**
 * `PUT /policies/{id}`. A change of `filtering_level` to low/moderate/high resets the blocked set to
 * that level's current set; a change to custom keeps the set. Publishes `policies`.
 * @throws ApiError ERR_NOT_FOUND, ERR_CONFLICT (name taken)
 */
export async function updatePolicy(deps: AppDeps, tenant: Tenant, id: number, body: PolicyUpdate): Promise<Policy> {
  const scope = scopeOf(tenant);
  await deps.handle.db
    .transaction()
    .execute(async (trx) => {
      const current = await repo.getPolicy(trx, scope, id);
      if (!current) throw new ApiError('ERR_NOT_FOUND');
      if (body.name !== undefined && (await repo.policyNameTaken(trx, current.user_id, body.name, id)))
        throw nameTaken();
      const patch: Parameters<typeof repo.updatePolicy>[3] = {};
      if (body.name !== undefined) patch.name = body.name;
      if (body.description !== undefined) patch.description = body.description;
      if (body.allow_unclassified !== undefined) patch.allow_unclassified = body.allow_unclassified ? 1 : 0;
      if (body.filtering_level !== undefined) patch.level = body.filtering_level;
      await repo.updatePolicy(trx, scope, id, patch, nowIso(deps.now()));
      const level = body.filtering_level;
      if (level !== undefined && level !== 'custom' && level !== current.filtering_level) {
        await repo.setBlockedCategories(
          trx,
          id,
          current.user_id,
          categoriesBlockedAt(level, await repo.categoryRows(trx)),
        );
      }
    })
    .catch((e: unknown) => {
      throw isUniqueViolation(e) ? nameTaken() : e;
    });
  await deps.changes.publish('policies');
  return getPolicy(deps, tenant, id);
}

/**
 * `DELETE /policies/{id}`: locations naming it fall back to the default policy. Publishes
 * `policies` and `locations`.
 * @throws ApiError ERR_NOT_FOUND; ERR_CONFLICT for the default policy
 */
export async function deletePolicy(deps: AppDeps, tenant: Tenant, id: number): Promise<{ deleted: true }> {
  const policy = await getPolicy(deps, tenant, id);
  if (policy.is_default) throw new ApiError('ERR_CONFLICT', 'The default policy cannot be deleted.');
  const deleted = await deps.handle.db.transaction().execute((trx) => repo.deletePolicy(trx, scopeOf(tenant), id));
  if (!deleted) throw new ApiError('ERR_NOT_FOUND');
  await deps.changes.publish('policies');
  await deps.changes.publish('locations');
  return { deleted: true };
}

/**
 * `GET /policies/{id}/categories`: every taxonomy category with its current level and
 * `allowed: true` when the policy BLOCKS it (the spec's inverted wire flag; docs/api.md).
 * @throws ApiError ERR_NOT_FOUND
 */
export async function getPolicyCategories(deps: AppDeps, tenant: Tenant, id: number): Promise<PolicyCategory[]> {
  await getPolicy(deps, tenant, id);
  const [rows, blocked] = await Promise.all([
    repo.categoryRows(deps.handle.db),
    repo.blockedCategories(deps.handle.db, id),
  ]);
  const set = new Set(blocked);
  return rows.map((c) => ({ id: c.id, name: c.name, level: c.level, allowed: set.has(c.id) }));
}

/**
 * `PUT /policies/{id}/categories`: applies each entry (`allowed: true` = block, inverted wire flag);
 * categories not in the array keep their state. The policy's level becomes the named level whose
 * set equals the result, else `custom`. Publishes `policies`.
 * @throws ApiError ERR_NOT_FOUND; ERR_VALIDATION naming `[i].id` for an id outside the taxonomy
 */
export async function setPolicyCategories(
  deps: AppDeps,
  tenant: Tenant,
  id: number,
  body: readonly PolicyCategoryWire[],
): Promise<PolicyCategory[]> {
  const scope = scopeOf(tenant);
  await deps.handle.db.transaction().execute(async (trx) => {
    const policy = await repo.getPolicy(trx, scope, id);
    if (!policy) throw new ApiError('ERR_NOT_FOUND');
    const rows = await repo.categoryRows(trx);
    const known = new Set(rows.map((r) => r.id));
    const fields: Record<string, string> = {};
    body.forEach((entry, i) => {
      if (!known.has(entry.id)) fields[`${i}.id`] = 'Unknown category.';
    });
    if (Object.keys(fields).length > 0) throw new ApiError('ERR_VALIDATION', 'Unknown category.', fields);
    const blocked = new Set(await repo.blockedCategories(trx, id));
    for (const entry of body) {
      if (entry.allowed) blocked.add(entry.id);
      else blocked.delete(entry.id);
    }
    const ids = [...blocked].sort((a, b) => a - b);
    await repo.setBlockedCategories(trx, id, policy.user_id, ids);
    await repo.updatePolicy(trx, scope, id, { level: levelOfBlockedSet(ids, rows) }, nowIso(deps.now()));
  });
  await deps.changes.publish('policies');
  return getPolicyCategories(deps, tenant, id);
}
