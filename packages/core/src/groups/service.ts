import type { Database } from '@cordon/db';
import { nowIso } from '@cordon/db';
import {
  ApiError,
  type DependantsResponse,
  type Group,
  type GroupCreate,
  type GroupDeleteQuery,
  type GroupUpdate,
  type ListQuery,
  Texts,
} from '@cordon/shared';
import type { Kysely } from 'kysely';
import type { Caller, CoreDeps } from '../context.ts';
import { inUse, inUseError } from '../dependants/index.ts';
import { mutate } from '../mutation/index.ts';
import { policyOfCustomer } from '../policies/index.ts';
import { scopeOf, type TenantScope } from '../tenancy/index.ts';
import * as repo from './repository.ts';

const TOPICS = ['groups'] as const;

const nameTaken = () =>
  new ApiError('ERR_CONFLICT', 'A group with this name already exists.', {
    name: 'A group with this name already exists.',
  });

/** Fails with ERR_VALIDATION when `policyId` is set and not a policy of the customer. */
async function checkPolicy(db: Kysely<Database>, scope: TenantScope, customerId: number, policyId: number | null) {
  if (policyId === null) return;
  if (!(await policyOfCustomer(db, scope, customerId, policyId))) {
    const message = Texts.policyOfThisCustomer;
    throw new ApiError('ERR_VALIDATION', message, { policyid: message });
  }
}

/**
 * `GET /users/{id}/groups` (spec-notes §7 "Groups and internal users"): a page of the customer's groups
 * (the console asks for 10000, spec-notes §9); `sortkey=weight` is the ranking's order.
 * @throws ApiError ERR_VALIDATION for an unknown sortkey
 */
export function listGroups(
  deps: CoreDeps,
  caller: Caller,
  customerId: number,
  query: ListQuery,
): Promise<{ data: Group[]; total: number }> {
  return repo.listGroups(deps.handle.db, scopeOf(caller), customerId, query);
}

/**
 * `GET /users/{id}/groups/{groupId}`.
 * @throws ApiError ERR_NOT_FOUND when missing or another customer's
 */
export async function getGroup(deps: CoreDeps, caller: Caller, customerId: number, groupId: number): Promise<Group> {
  const group = await repo.getGroup(deps.handle.db, scopeOf(caller), customerId, groupId);
  if (!group) throw new ApiError('ERR_NOT_FOUND');
  return group;
}

/**
 * `POST /users/{id}/groups`: a new group ranked last (weight one past the lowest rank). Audit
 * `group.create`; publishes `groups`.
 * @throws ApiError ERR_VALIDATION (policy of another customer), ERR_CONFLICT (name taken)
 */
export async function createGroup(
  deps: CoreDeps,
  caller: Caller,
  customerId: number,
  body: GroupCreate,
): Promise<Group> {
  const scope = scopeOf(caller);
  const id = await mutate(
    deps,
    caller,
    { topics: TOPICS, audit: { action: 'group.create', entity: 'group' }, conflict: nameTaken },
    async (trx, note) => {
      await checkPolicy(trx, scope, customerId, body.policyid);
      if (await repo.groupNameTaken(trx, customerId, body.name)) throw nameTaken();
      const newId = await repo.insertGroup(
        trx,
        customerId,
        {
          name: body.name,
          description: body.description,
          policy_id: body.policyid,
          disabled: body.disable ? 1 : 0,
          weight: await repo.nextWeight(trx, customerId),
        },
        nowIso(deps.now()),
      );
      note.entityId = newId;
      note.customerId = customerId;
      note.after = await repo.getGroup(trx, scope, customerId, newId);
      return newId;
    },
  );
  return getGroup(deps, caller, customerId, id);
}

/**
 * `PUT /users/{id}/groups/{groupId}`: name, description, policy (`policyid`, null for none), the
 * `disable` switch and `weight` (the ranking page sends each group's list position, from 1, through
 * `/batch`, spec-notes §4). Audit `group.update`; publishes `groups`.
 * @throws ApiError ERR_NOT_FOUND, ERR_VALIDATION, ERR_CONFLICT (name taken)
 */
export async function updateGroup(
  deps: CoreDeps,
  caller: Caller,
  customerId: number,
  groupId: number,
  body: GroupUpdate,
): Promise<Group> {
  const scope = scopeOf(caller);
  await mutate(
    deps,
    caller,
    { topics: TOPICS, audit: { action: 'group.update', entity: 'group' }, conflict: nameTaken },
    async (trx, note) => {
      const before = await repo.getGroup(trx, scope, customerId, groupId);
      if (!before) throw new ApiError('ERR_NOT_FOUND');
      if (body.policyid !== undefined) await checkPolicy(trx, scope, customerId, body.policyid);
      if (body.name !== undefined && (await repo.groupNameTaken(trx, customerId, body.name, groupId)))
        throw nameTaken();
      const patch: Parameters<typeof repo.updateGroup>[4] = {};
      if (body.name !== undefined) patch.name = body.name;
      if (body.description !== undefined) patch.description = body.description;
      if (body.policyid !== undefined) patch.policy_id = body.policyid;
      if (body.disable !== undefined) patch.disabled = body.disable ? 1 : 0;
      if (body.weight !== undefined) patch.weight = body.weight;
      await repo.updateGroup(trx, scope, customerId, groupId, patch, nowIso(deps.now()));
      note.entityId = groupId;
      note.customerId = customerId;
      note.before = before;
      note.after = await repo.getGroup(trx, scope, customerId, groupId);
    },
  );
  return getGroup(deps, caller, customerId, groupId);
}

/**
 * `GET /users/{id}/groups/{groupId}/dependants` (docs/api.md "Deletes of things in use"): the
 * group's members, with `in_use` true when a plain DELETE would be refused.
 * @throws ApiError ERR_NOT_FOUND
 */
export async function groupDependants(
  deps: CoreDeps,
  caller: Caller,
  customerId: number,
  groupId: number,
): Promise<DependantsResponse> {
  await getGroup(deps, caller, customerId, groupId);
  const dependants = await repo.groupDependants(deps.handle.db, scopeOf(caller), customerId, groupId);
  return { in_use: inUse(dependants), dependants };
}

/** The field error of a group delete's `move_to_group_id`/`detach` that cannot be followed. */
const badGroupTarget = (field: string, message: string) =>
  new ApiError('ERR_VALIDATION', message, { [field]: message });

/**
 * `DELETE /users/{id}/groups/{groupId}[?move_to_group_id=|detach=true]` (docs/api.md "Deletes of
 * things in use"; issue 29). A group with members is refused with 409 ERR_IN_USE (their count and
 * first names) unless `move_to_group_id` names another group of the customer (the members join it,
 * in the same transaction) or `detach=true` (they just leave it, and its policy no longer applies to
 * them). Audit `group.delete` (after: the target and how many joined it); publishes `groups`.
 * @throws ApiError ERR_NOT_FOUND; ERR_VALIDATION (both given, or a target that is this group or not
 *   the customer's); InUseError (409 ERR_IN_USE)
 */
export async function deleteGroup(
  deps: CoreDeps,
  caller: Caller,
  customerId: number,
  groupId: number,
  query: GroupDeleteQuery = {},
): Promise<{ deleted: true }> {
  const scope = scopeOf(caller);
  await mutate(
    deps,
    caller,
    { topics: TOPICS, audit: { action: 'group.delete', entity: 'group' } },
    async (trx, note) => {
      const before = await repo.getGroup(trx, scope, customerId, groupId);
      if (!before) throw new ApiError('ERR_NOT_FOUND');
      const target = query.move_to_group_id;
      if (target !== undefined && query.detach) {
        throw badGroupTarget('detach', 'Choose either a group to move the members to or detach, not both.');
      }
      if (target !== undefined) {
        const to = target === groupId ? undefined : await repo.getGroup(trx, scope, customerId, target);
        if (!to) throw badGroupTarget('move_to_group_id', 'Please select another group of this customer.');
        note.after = {
          moved_to_group_id: target,
          moved: await repo.moveGroupMembers(trx, scope, customerId, groupId, target),
        };
      } else if (!query.detach) {
        const dependants = await repo.groupDependants(trx, scope, customerId, groupId);
        if (inUse(dependants)) {
          throw inUseError(
            before.name,
            dependants,
            'Choose another group of this customer for its members (move_to_group_id), or detach them (detach=true).',
          );
        }
      }
      if (!(await repo.deleteGroup(trx, scope, customerId, groupId))) throw new ApiError('ERR_NOT_FOUND');
      note.entityId = groupId;
      note.customerId = customerId;
      note.before = before;
    },
  );
  return { deleted: true };
}
