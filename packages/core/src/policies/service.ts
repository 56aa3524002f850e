import { nowIso } from '@cordon/db';
import {
  ApiError,
  categoriesBlockedAt,
  type DependantsResponse,
  type ListQuery,
  levelOfBlockedSet,
  Messages,
  type Policy,
  type PolicyCategory,
  type PolicyCategoryWire,
  type PolicyCreate,
  type PolicyDeleteQuery,
  type PolicyUpdate,
  Role,
  Texts,
} from '@cordon/shared';
import { categoryRows } from '../categories/index.ts';
import type { Caller, CoreDeps } from '../context.ts';
import { inUse, inUseError } from '../dependants/index.ts';
import { mutate } from '../mutation/index.ts';
import { customerVisible, scopeOf } from '../tenancy/index.ts';
import * as repo from './repository.ts';

const nameTaken = () =>
  new ApiError('ERR_CONFLICT', 'A policy with this name already exists.', {
    name: 'A policy with this name already exists.',
  });

/** The name of every customer's default policy. */
export const DEFAULT_POLICY_NAME = 'Default';

/**
 * The customer a policy call is about: a customer admin's own (a different `user_id` is "not found"),
 * else the `user_id` given, which must be visible.
 * @throws ApiError ERR_VALIDATION when a system or MSP admin gives no user_id; ERR_NOT_FOUND when not visible
 */
export async function customerFor(deps: CoreDeps, caller: Caller, userId: number | undefined): Promise<number> {
  if (caller.role === Role.Customer) {
    if (userId !== undefined && userId !== caller.customerId) throw new ApiError('ERR_NOT_FOUND');
    if (caller.customerId === null) throw new ApiError('ERR_NOT_FOUND');
    return caller.customerId;
  }
  if (userId === undefined) throw new ApiError('ERR_VALIDATION', Messages.required, { user_id: Messages.required });
  if (!(await customerVisible(deps.handle.db, scopeOf(caller), userId))) throw new ApiError('ERR_NOT_FOUND');
  return userId;
}

/** `GET /policies?user_id=`: the customer's policies; `show_default=false` hides the default policy. */
export async function listPolicies(
  deps: CoreDeps,
  caller: Caller,
  query: ListQuery & { user_id?: number | undefined; show_default: boolean },
): Promise<{ data: Policy[]; total: number }> {
  const customerId = await customerFor(deps, caller, query.user_id);
  return repo.listPolicies(deps.handle.db, scopeOf(caller), customerId, query);
}

/**
 * `GET /policies/{id}`.
 * @throws ApiError ERR_NOT_FOUND when missing or in another tenant
 */
export async function getPolicy(deps: CoreDeps, caller: Caller, id: number): Promise<Policy> {
  const policy = await repo.getPolicy(deps.handle.db, scopeOf(caller), id);
  if (!policy) throw new ApiError('ERR_NOT_FOUND');
  return policy;
}

/** The id of the default policy of `/policies/default?user_id=`. @throws ApiError as {@link customerFor}, ERR_NOT_FOUND */
export async function defaultPolicyIdFor(deps: CoreDeps, caller: Caller, userId: number | undefined): Promise<number> {
  const customerId = await customerFor(deps, caller, userId);
  const id = await repo.defaultPolicyId(deps.handle.db, scopeOf(caller), customerId);
  if (id === undefined) throw new ApiError('ERR_NOT_FOUND');
  return id;
}

/**
 * `POST /policies`: a policy of customer `user_id` whose blocked categories are the level's set
 * under the *current* category levels (spec-notes §4: level edits apply to new policies). Audit
 * `policy.create`; publishes `policies`.
 * @throws ApiError ERR_NOT_FOUND (customer not visible), ERR_CONFLICT (name taken)
 */
export async function createPolicy(deps: CoreDeps, caller: Caller, body: PolicyCreate): Promise<Policy> {
  const customerId = await customerFor(deps, caller, body.user_id);
  const id = await mutate(
    deps,
    caller,
    { topics: ['policies'], audit: { action: 'policy.create', entity: 'policy' }, conflict: nameTaken },
    async (trx, note) => {
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
          safe_search: body.safe_search,
        },
        nowIso(deps.now()),
      );
      const blocked = categoriesBlockedAt(body.filtering_level, await categoryRows(trx));
      await repo.setBlockedCategories(trx, policyId, customerId, blocked);
      note.entityId = policyId;
      note.customerId = customerId;
      note.after = { ...(await repo.getPolicy(trx, scopeOf(caller), policyId)), blocked };
      return policyId;
    },
  );
  return getPolicy(deps, caller, id);
}

/**
 * `PUT /policies/{id}`. A change of `filtering_level` to low/moderate/high resets the blocked set to
 * that level's current set; a change to custom keeps the set. Audit `policy.update` with the policy
 * before and after; publishes `policies`. With `opts.customerId` the policy must also belong to that
 * customer (`PATCH /users/{id}/policies/{policyId}`), else it is not found.
 * @throws ApiError ERR_NOT_FOUND, ERR_CONFLICT (name taken)
 */
export async function updatePolicy(
  deps: CoreDeps,
  caller: Caller,
  id: number,
  body: PolicyUpdate,
  opts: { customerId?: number } = {},
): Promise<Policy> {
  const scope = scopeOf(caller);
  await mutate(
    deps,
    caller,
    { topics: ['policies'], audit: { action: 'policy.update', entity: 'policy' }, conflict: nameTaken },
    async (trx, note) => {
      const current = await repo.getPolicy(trx, scope, id);
      if (!current || (opts.customerId !== undefined && current.user_id !== opts.customerId)) {
        throw new ApiError('ERR_NOT_FOUND');
      }
      if (body.name !== undefined && (await repo.policyNameTaken(trx, current.user_id, body.name, id))) {
        throw nameTaken();
      }
      const patch: Parameters<typeof repo.updatePolicy>[3] = {};
      if (body.name !== undefined) patch.name = body.name;
      if (body.description !== undefined) patch.description = body.description;
      if (body.allow_unclassified !== undefined) patch.allow_unclassified = body.allow_unclassified ? 1 : 0;
      if (body.safe_search !== undefined) patch.safe_search = body.safe_search ? 1 : 0;
      if (body.filtering_level !== undefined) patch.level = body.filtering_level;
      await repo.updatePolicy(trx, scope, id, patch, nowIso(deps.now()));
      const level = body.filtering_level;
      if (level !== undefined && level !== 'custom' && level !== current.filtering_level) {
        await repo.setBlockedCategories(trx, id, current.user_id, categoriesBlockedAt(level, await categoryRows(trx)));
      }
      note.entityId = id;
      note.customerId = current.user_id;
      note.before = current;
      note.after = await repo.getPolicy(trx, scope, id);
    },
  );
  return getPolicy(deps, caller, id);
}

/**
 * `PATCH /users/{id}/policies/{policyId}` (spec-notes §7 Policies; docs/api.md "Policies"): the partial
 * update of {@link updatePolicy} on policy `policyId` of customer `customerId`. The route's guard has
 * checked the customer is visible; a policy of another customer (or tenant) is not found. Audit
 * `policy.update`; publishes `policies`.
 * @throws ApiError ERR_NOT_FOUND, ERR_CONFLICT (name taken)
 */
export async function patchCustomerPolicy(
  deps: CoreDeps,
  caller: Caller,
  customerId: number,
  policyId: number,
  body: PolicyUpdate,
): Promise<Policy> {
  return updatePolicy(deps, caller, policyId, body, { customerId });
}

/**
 * `GET /policies/{id}/dependants` (docs/api.md "Deletes of things in use"): what names the policy
 * (locations, groups, users, devices, the device configuration), with `in_use` true when a plain
 * DELETE would be refused. The default policy is never deletable, so it reports none.
 * @throws ApiError ERR_NOT_FOUND when missing or in another tenant
 */
export async function policyDependants(deps: CoreDeps, caller: Caller, id: number): Promise<DependantsResponse> {
  const policy = await getPolicy(deps, caller, id);
  if (policy.is_default) return { in_use: false, dependants: {} };
  const dependants = await repo.policyDependants(deps.handle.db, scopeOf(caller), policy.user_id, id);
  return { in_use: inUse(dependants), dependants };
}

/** The field error of a `move_to_policy_id` that is not another policy of the customer. */
const badMoveTarget = () => {
  const message = 'Please select another policy of this customer.';
  return new ApiError('ERR_VALIDATION', message, { move_to_policy_id: message });
};

/**
 * `DELETE /policies/{id}[?move_to_policy_id=]` (docs/api.md "Deletes of things in use"; issue 29).
 * A policy named by locations, groups, users, devices or the device configuration is refused with
 * 409 ERR_IN_USE (their counts and first names in `dependants`) unless `move_to_policy_id` names
 * another policy of the same customer, which then takes them over in the same transaction as the
 * delete (so no location, group or device ever falls to the default policy unasked). Audit
 * `policy.delete` with the policy before and, after, the target and the rows moved; publishes
 * `policies`, `locations`, `groups` and `devices`.
 * @throws ApiError ERR_NOT_FOUND; ERR_CONFLICT for the default policy; ERR_VALIDATION (field
 *   `move_to_policy_id`) for a target that is this policy or not one of the customer's (another
 *   tenant's included); InUseError (409 ERR_IN_USE) when in use and no target is given
 */
export async function deletePolicy(
  deps: CoreDeps,
  caller: Caller,
  id: number,
  query: PolicyDeleteQuery = {},
): Promise<{ deleted: true }> {
  const scope = scopeOf(caller);
  await mutate(
    deps,
    caller,
    {
      topics: ['policies', 'locations', 'groups', 'devices'],
      audit: { action: 'policy.delete', entity: 'policy' },
    },
    async (trx, note) => {
      const policy = await repo.getPolicy(trx, scope, id);
      if (!policy) throw new ApiError('ERR_NOT_FOUND');
      if (policy.is_default) throw new ApiError('ERR_CONFLICT', 'The default policy cannot be deleted.');
      const target = query.move_to_policy_id;
      let moved: Record<string, number> | null = null;
      if (target !== undefined) {
        const to = target === id ? undefined : await repo.getPolicy(trx, scope, target);
        if (!to || to.user_id !== policy.user_id) throw badMoveTarget();
        moved = await repo.movePolicyDependants(trx, scope, policy.user_id, id, to.id, to.is_default);
      } else {
        const dependants = await repo.policyDependants(trx, scope, policy.user_id, id);
        if (inUse(dependants)) {
          throw inUseError(
            policy.name,
            dependants,
            'Choose another policy of this customer for them (move_to_policy_id).',
          );
        }
      }
      if (!(await repo.deletePolicy(trx, scope, id))) throw new ApiError('ERR_NOT_FOUND');
      note.entityId = id;
      note.customerId = policy.user_id;
      note.before = policy;
      if (moved) note.after = { moved_to_policy_id: target, moved };
    },
  );
  return { deleted: true };
}

/**
 * `GET /policies/{id}/categories`: every taxonomy category with its current level and
 * `allowed: true` when the policy BLOCKS it (the spec's inverted wire flag; docs/api.md).
 * @throws ApiError ERR_NOT_FOUND
 */
export async function getPolicyCategories(deps: CoreDeps, caller: Caller, id: number): Promise<PolicyCategory[]> {
  await getPolicy(deps, caller, id);
  const [rows, blocked] = await Promise.all([categoryRows(deps.handle.db), repo.blockedCategories(deps.handle.db, id)]);
  const set = new Set(blocked);
  return rows.map((c) => ({ id: c.id, name: c.name, level: c.level, allowed: set.has(c.id) }));
}

/**
 * `PUT /policies/{id}/categories`: applies each entry (`allowed: true` = block, inverted wire flag);
 * categories not in the array keep their state. The policy's level becomes the named level whose
 * set equals the result, else `custom`. Audit `policy.categories.update` with the name, level and
 * blocked ids before and after; publishes `policies`.
 * @throws ApiError ERR_NOT_FOUND; ERR_VALIDATION naming `[i].id` for an id outside the taxonomy
 */
export async function setPolicyCategories(
  deps: CoreDeps,
  caller: Caller,
  id: number,
  body: readonly PolicyCategoryWire[],
): Promise<PolicyCategory[]> {
  const scope = scopeOf(caller);
  await mutate(
    deps,
    caller,
    { topics: ['policies'], audit: { action: 'policy.categories.update', entity: 'policy' } },
    async (trx, note) => {
      const policy = await repo.getPolicy(trx, scope, id);
      if (!policy) throw new ApiError('ERR_NOT_FOUND');
      const rows = await categoryRows(trx);
      const known = new Set(rows.map((r) => r.id));
      const fields: Record<string, string> = {};
      body.forEach((entry, i) => {
        if (!known.has(entry.id)) fields[`${i}.id`] = Texts.unknownCategory;
      });
      if (Object.keys(fields).length > 0) throw new ApiError('ERR_VALIDATION', Texts.unknownCategory, fields);
      const before = await repo.blockedCategories(trx, id);
      const blocked = new Set(before);
      for (const entry of body) {
        if (entry.allowed) blocked.add(entry.id);
        else blocked.delete(entry.id);
      }
      const ids = [...blocked].sort((a, b) => a - b);
      const level = levelOfBlockedSet(ids, rows);
      await repo.setBlockedCategories(trx, id, policy.user_id, ids);
      await repo.updatePolicy(trx, scope, id, { level }, nowIso(deps.now()));
      note.entityId = id;
      note.customerId = policy.user_id;
      // The name too: the audit log says which policy in words (issue 29).
      note.before = { name: policy.name, filtering_level: policy.filtering_level, blocked: before };
      note.after = { name: policy.name, filtering_level: level, blocked: ids };
    },
  );
  return getPolicyCategories(deps, caller, id);
}
