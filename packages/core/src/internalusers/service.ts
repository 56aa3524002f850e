import { nowIso } from '@cordon/db';
import { ApiError, type InternalUser, type InternalUserUpdate, type ListQuery, Texts } from '@cordon/shared';
import type { Caller, CoreDeps } from '../context.ts';
import { groupIdsOfCustomer } from '../groups/index.ts';
import { mutate } from '../mutation/index.ts';
import { policyOfCustomer } from '../policies/index.ts';
import { scopeOf } from '../tenancy/index.ts';
import * as repo from './repository.ts';

const TOPICS = ['groups'] as const;

/**
 * `GET /users/{id}/users/?group_id=` (spec-notes §7 "Groups and internal users"): a page of the customer's
 * internal users, optionally a group's members.
 * @throws ApiError ERR_VALIDATION for an unknown sortkey
 */
export function listInternalUsers(
  deps: CoreDeps,
  caller: Caller,
  customerId: number,
  query: ListQuery & { group_id?: number | undefined },
): Promise<{ data: InternalUser[]; total: number }> {
  return repo.listUsers(deps.handle.db, scopeOf(caller), customerId, query);
}

/**
 * `GET /users/{id}/users/{userId}`.
 * @throws ApiError ERR_NOT_FOUND when missing or another customer's
 */
export async function getInternalUser(
  deps: CoreDeps,
  caller: Caller,
  customerId: number,
  userId: number,
): Promise<InternalUser> {
  const user = await repo.getUser(deps.handle.db, scopeOf(caller), customerId, userId);
  if (!user) throw new ApiError('ERR_NOT_FOUND');
  return user;
}

/**
 * `POST /users/{id}/users/{userId}` (an update): the user's own policy (`policyid`, null for none),
 * description and groups (`group_ids` replaces the set). Audit `internal_user.update`; publishes `groups`.
 * @throws ApiError ERR_NOT_FOUND; ERR_VALIDATION for a policy or group of another customer
 */
export async function updateInternalUser(
  deps: CoreDeps,
  caller: Caller,
  customerId: number,
  userId: number,
  body: InternalUserUpdate,
): Promise<InternalUser> {
  const scope = scopeOf(caller);
  await mutate(
    deps,
    caller,
    { topics: TOPICS, audit: { action: 'internal_user.update', entity: 'internal_user' } },
    async (trx, note) => {
      const before = await repo.getUser(trx, scope, customerId, userId);
      if (!before) throw new ApiError('ERR_NOT_FOUND');
      if (
        body.policyid !== undefined &&
        body.policyid !== null &&
        !(await policyOfCustomer(trx, scope, customerId, body.policyid))
      ) {
        const message = Texts.policyOfThisCustomer;
        throw new ApiError('ERR_VALIDATION', message, { policyid: message });
      }
      const patch: { policy_id?: number | null; description?: string } = {};
      if (body.policyid !== undefined) patch.policy_id = body.policyid;
      if (body.description !== undefined) patch.description = body.description;
      await repo.updateUser(trx, scope, customerId, userId, patch, nowIso(deps.now()));
      if (body.group_ids !== undefined) {
        const wanted = [...new Set(body.group_ids)];
        const found = await groupIdsOfCustomer(trx, scope, customerId, wanted);
        if (found.length !== wanted.length) {
          const message = 'Please select groups of this customer.';
          throw new ApiError('ERR_VALIDATION', message, { group_ids: message });
        }
        await repo.setGroups(trx, customerId, userId, wanted);
      }
      note.entityId = userId;
      note.customerId = customerId;
      note.before = before;
      note.after = await repo.getUser(trx, scope, customerId, userId);
    },
  );
  return getInternalUser(deps, caller, customerId, userId);
}

/**
 * `DELETE /users/{id}/users/{userId}`: the user and its memberships (an agent reporting it again
 * creates it anew). Audit `internal_user.delete`; publishes `groups`.
 * @throws ApiError ERR_NOT_FOUND
 */
export async function deleteInternalUser(
  deps: CoreDeps,
  caller: Caller,
  customerId: number,
  userId: number,
): Promise<{ deleted: true }> {
  const scope = scopeOf(caller);
  await mutate(
    deps,
    caller,
    { topics: TOPICS, audit: { action: 'internal_user.delete', entity: 'internal_user' } },
    async (trx, note) => {
      const before = await repo.getUser(trx, scope, customerId, userId);
      if (!before || !(await repo.deleteUser(trx, scope, customerId, userId))) throw new ApiError('ERR_NOT_FOUND');
      note.entityId = userId;
      note.customerId = customerId;
      note.before = before;
    },
  );
  return { deleted: true };
}

/**
 * An agent reported `name` logged in on device `deviceId` of the caller's customer (docs/decisions.md
 * "Environment"): a new name creates the internal user (audit `internal_user.create`, publishes
 * `groups`); a known one gets its last login time and address updated, outside the mutation path
 * like an admin's last login (docs/architecture.md "One mutation path").
 * @param caller the device's customer acting through its key (no admin)
 * @returns the user's id and own policy
 */
export async function recordAgentLogin(
  deps: CoreDeps,
  caller: Caller & { customerId: number },
  name: string,
  ip: string,
  deviceId: number,
): Promise<{ id: number; policy_id: number | null }> {
  const at = nowIso(deps.now());
  const values = { last_login_at: at, last_login_ip: ip, last_device_id: deviceId };
  const known = await repo.userByName(deps.handle.db, caller.customerId, name);
  if (known) {
    await repo.touchUser(deps.handle.db, known.id, values);
    return known;
  }
  return mutate(
    deps,
    caller,
    {
      topics: TOPICS,
      audit: { action: 'internal_user.create', entity: 'internal_user' },
      // Two heartbeats racing on a new name: the loser finds the winner's row.
      conflict: () => new ApiError('ERR_CONFLICT', 'This user was just created; try again.'),
    },
    async (trx, note) => {
      const id = await repo.insertUser(trx, caller.customerId, { name, ...values }, at);
      note.entityId = id;
      note.customerId = caller.customerId;
      note.after = { id, name, last_login: at, last_login_ip: ip, device_id: deviceId };
      return { id, policy_id: null };
    },
  );
}

/** The policy of user `userId`'s effective group (enabled, with a policy, highest ranked), or null. */
export function groupPolicyOf(deps: CoreDeps, userId: number): Promise<number | null> {
  return repo.groupPolicyOf(deps.handle.db, userId);
}
