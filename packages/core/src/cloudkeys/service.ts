import type { CloudKeysTable } from '@cordon/db';
import { nowIso } from '@cordon/db';
import {
  ApiError,
  type CloudKey,
  type CloudKeyCreate,
  type CloudKeyUpdate,
  type ListQuery,
  Texts,
} from '@cordon/shared';
import type { Updateable } from 'kysely';
import type { Caller, CoreDeps } from '../context.ts';
import { mutate } from '../mutation/index.ts';
import { scopeOf } from '../tenancy/index.ts';
import * as repo from './repository.ts';

const keyTaken = () =>
  new ApiError('ERR_CONFLICT', 'A cloud key with this key already exists.', {
    key: 'A cloud key with this key already exists.',
  });

const windowError = () =>
  new ApiError('ERR_VALIDATION', Texts.validToAfterFrom, {
    valid_to: Texts.validToAfterFrom,
  });

/** The audit state of a key: everything but the key text (it unlocks filtering; never in the trail). */
const audited = (k: CloudKey | undefined) => {
  if (!k) return null;
  const { key: _key, ...rest } = k;
  return rest;
};

/**
 * `GET /users/{id}/cloudkeys` (spec-notes §7 "Cloud keys"): a page of the customer's keys (the guard has
 * checked the customer; the query is scoped again in SQL).
 * @throws ApiError ERR_VALIDATION for an unknown sortkey
 */
export function listCloudKeys(
  deps: CoreDeps,
  caller: Caller,
  customerId: number,
  query: ListQuery,
): Promise<{ data: CloudKey[]; total: number }> {
  return repo.listKeys(deps.handle.db, scopeOf(caller), customerId, query);
}

/**
 * `GET /users/{id}/cloudkeys/{keyId}`.
 * @throws ApiError ERR_NOT_FOUND when missing, or another customer's or tenant's
 */
export async function getCloudKey(deps: CoreDeps, caller: Caller, customerId: number, id: number): Promise<CloudKey> {
  const key = await repo.getKey(deps.handle.db, scopeOf(caller), customerId, id);
  if (!key) throw new ApiError('ERR_NOT_FOUND');
  return key;
}

/**
 * `POST /users/{id}/cloudkeys`: a new key (docs/architecture.md "Block page"), times used 0. Audit `cloudkey.create`
 * (the key text left out); publishes `bypasses`.
 * @throws ApiError ERR_CONFLICT when the customer already has this key text
 */
export async function createCloudKey(
  deps: CoreDeps,
  caller: Caller,
  customerId: number,
  body: CloudKeyCreate,
): Promise<CloudKey> {
  const scope = scopeOf(caller);
  const id = await mutate(
    deps,
    caller,
    { topics: ['bypasses'], audit: { action: 'cloudkey.create', entity: 'cloudkey' }, conflict: keyTaken },
    async (trx, note) => {
      if (await repo.keyTaken(trx, customerId, body.key)) throw keyTaken();
      const keyId = await repo.insertKey(
        trx,
        customerId,
        {
          key: body.key,
          description: body.description,
          max_uses: body.max_uses,
          valid_from: body.valid_from,
          valid_to: body.valid_to,
          expires_after_s: body.expires_after,
          active: body.active ? 1 : 0,
        },
        nowIso(deps.now()),
      );
      note.entityId = keyId;
      note.customerId = customerId;
      note.after = audited(await repo.getKey(trx, scope, customerId, keyId));
      return keyId;
    },
  );
  return getCloudKey(deps, caller, customerId, id);
}

/**
 * `POST /users/{id}/cloudkeys/{keyId}`: changes the fields given; `reset_uses: true` sets times used
 * to 0. Deactivating a key ends the bypasses it started. Audit `cloudkey.update` (before and after,
 * the key text left out); publishes `bypasses`.
 * @throws ApiError ERR_NOT_FOUND; ERR_CONFLICT (key text taken); ERR_VALIDATION (valid_to not after valid_from)
 */
export async function updateCloudKey(
  deps: CoreDeps,
  caller: Caller,
  customerId: number,
  id: number,
  body: CloudKeyUpdate,
): Promise<CloudKey> {
  const scope = scopeOf(caller);
  await mutate(
    deps,
    caller,
    { topics: ['bypasses'], audit: { action: 'cloudkey.update', entity: 'cloudkey' }, conflict: keyTaken },
    async (trx, note) => {
      const before = await repo.getKey(trx, scope, customerId, id);
      if (!before) throw new ApiError('ERR_NOT_FOUND');
      if (body.key !== undefined && (await repo.keyTaken(trx, customerId, body.key, id))) throw keyTaken();
      const from = body.valid_from !== undefined ? body.valid_from : before.valid_from;
      const to = body.valid_to !== undefined ? body.valid_to : before.valid_to;
      if (from && to && from >= to) throw windowError();
      const patch: Updateable<CloudKeysTable> = {};
      if (body.key !== undefined) patch.key = body.key;
      if (body.description !== undefined) patch.description = body.description;
      if (body.max_uses !== undefined) patch.max_uses = body.max_uses;
      if (body.valid_from !== undefined) patch.valid_from = body.valid_from;
      if (body.valid_to !== undefined) patch.valid_to = body.valid_to;
      if (body.expires_after !== undefined) patch.expires_after_s = body.expires_after;
      if (body.active !== undefined) patch.active = body.active ? 1 : 0;
      if (body.reset_uses === true) patch.times_used = 0;
      if (!(await repo.updateKey(trx, scope, customerId, id, patch, nowIso(deps.now())))) {
        throw new ApiError('ERR_NOT_FOUND');
      }
      if (body.active === false) await repo.endBypasses(trx, scope, customerId, id);
      note.entityId = id;
      note.customerId = customerId;
      note.before = audited(before);
      note.after = audited(await repo.getKey(trx, scope, customerId, id));
    },
  );
  return getCloudKey(deps, caller, customerId, id);
}

/**
 * `DELETE /users/{id}/cloudkeys/{keyId}`: the key and the bypasses it started. Audit
 * `cloudkey.delete`; publishes `bypasses`.
 * @throws ApiError ERR_NOT_FOUND
 */
export async function deleteCloudKey(
  deps: CoreDeps,
  caller: Caller,
  customerId: number,
  id: number,
): Promise<{ deleted: true }> {
  const scope = scopeOf(caller);
  await mutate(
    deps,
    caller,
    { topics: ['bypasses'], audit: { action: 'cloudkey.delete', entity: 'cloudkey' } },
    async (trx, note) => {
      const before = await repo.getKey(trx, scope, customerId, id);
      if (!before) throw new ApiError('ERR_NOT_FOUND');
      if (!(await repo.deleteKey(trx, scope, customerId, id))) throw new ApiError('ERR_NOT_FOUND');
      note.entityId = id;
      note.customerId = customerId;
      note.before = audited(before);
    },
  );
  return { deleted: true };
}
