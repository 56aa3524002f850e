import type { Database } from '@cordon/db';
import { nowIso } from '@cordon/db';
import { ApiError, type BlockPage, type BlockPageQuery, type BlockPageUpdate, Role } from '@cordon/shared';
import type { Kysely } from 'kysely';
import type { Caller, CoreDeps } from '../context.ts';
import { mutate } from '../mutation/index.ts';
import { customerTenant, mspVisible, scopeOf } from '../tenancy/index.ts';
import type { BlockPageOwner, BlockPageRow } from './repository.ts';
import * as repo from './repository.ts';

const TOPICS = ['blockpages'] as const;

/**
 * Whose block page a `/ui/blockpage` call means (spec §7 "UI and tools"), checked in SQL against the
 * caller's scope:
 * - `user_id`: that customer (a customer admin: only its own);
 * - `msp_id`: that MSP (a system admin: any; an MSP admin: its own; a customer admin: none);
 * - neither: the system's for a system admin, the caller's own MSP or customer otherwise.
 * @throws ApiError ERR_NOT_FOUND for a missing or foreign customer or MSP (the same answer for both)
 */
async function ownerOf(db: Kysely<Database>, caller: Caller, query: BlockPageQuery): Promise<BlockPageOwner> {
  const scope = scopeOf(caller);
  const customerId =
    query.user_id ?? (query.msp_id === undefined && caller.role === Role.Customer ? caller.customerId : undefined);
  if (customerId !== undefined && customerId !== null) {
    const tenant = await customerTenant(db, scope, customerId);
    if (!tenant) throw new ApiError('ERR_NOT_FOUND');
    return { kind: 'customer', customerId: tenant.id, mspId: tenant.mspId };
  }
  const mspId = query.msp_id ?? (caller.role === Role.Msp ? caller.mspId : undefined);
  if (mspId !== undefined && mspId !== null) {
    if (caller.role === Role.Customer || !(await mspVisible(db, scope, caller.role, mspId))) {
      throw new ApiError('ERR_NOT_FOUND');
    }
    return { kind: 'msp', mspId };
  }
  if (caller.role !== Role.System) throw new ApiError('ERR_NOT_FOUND');
  return { kind: 'system' };
}

/** The owner's branding on the wire; no row: `is_set` false with empty texts. */
function toWire(owner: BlockPageOwner, row: BlockPageRow | undefined): BlockPage {
  return {
    scope: owner.kind,
    user_id: owner.kind === 'customer' ? owner.customerId : null,
    msp_id: owner.kind === 'system' ? null : owner.mspId,
    is_set: row !== undefined,
    title: row?.title ?? '',
    message: row?.message ?? '',
    footer: row?.footer ?? '',
    support_contact: row?.support_contact ?? '',
    updated_at: row?.updated_at ?? null,
  };
}

/** The audit tenant of `owner`'s changes. */
function noteTenant(owner: BlockPageOwner): { mspId: number | null; customerId: number | null } {
  if (owner.kind === 'customer') return { mspId: owner.mspId, customerId: owner.customerId };
  return { mspId: owner.kind === 'msp' ? owner.mspId : null, customerId: null };
}

/**
 * `GET /ui/blockpage?user_id=|msp_id=`: the owner's own branding (not the inherited one).
 * @throws ApiError as {@link ownerOf}
 */
export async function getBlockPage(deps: CoreDeps, caller: Caller, query: BlockPageQuery): Promise<BlockPage> {
  const owner = await ownerOf(deps.handle.db, caller, query);
  return toWire(owner, await repo.getRow(deps.handle.db, owner));
}

/**
 * `POST /ui/blockpage?user_id=|msp_id=`: sets the owner's title, message, footer and support contact
 * (creates the row or replaces its texts). Audit `blockpage.update` (before/after); publishes
 * `blockpages`, so the block page shows it within a second.
 * @throws ApiError as {@link ownerOf}
 */
export async function setBlockPage(
  deps: CoreDeps,
  caller: Caller,
  query: BlockPageQuery,
  body: BlockPageUpdate,
): Promise<BlockPage> {
  return mutate(
    deps,
    caller,
    { topics: TOPICS, audit: { action: 'blockpage.update', entity: 'blockpage' } },
    async (trx, note) => {
      const owner = await ownerOf(trx, caller, query);
      const before = await repo.getRow(trx, owner);
      await repo.upsertRow(trx, owner, body, nowIso());
      const after = await repo.getRow(trx, owner);
      Object.assign(note, noteTenant(owner), { entityId: after?.id ?? null, before: before ?? null, after });
      return toWire(owner, after);
    },
  );
}

/**
 * `DELETE /ui/blockpage?user_id=|msp_id=`: removes the owner's branding, so the next level's applies
 * again. Audit `blockpage.delete`; publishes `blockpages`.
 * @throws ApiError as {@link ownerOf}; ERR_NOT_FOUND when the owner has no branding
 */
export async function deleteBlockPage(
  deps: CoreDeps,
  caller: Caller,
  query: BlockPageQuery,
): Promise<{ deleted: true }> {
  await mutate(
    deps,
    caller,
    { topics: TOPICS, audit: { action: 'blockpage.delete', entity: 'blockpage' } },
    async (trx, note) => {
      const owner = await ownerOf(trx, caller, query);
      const before = await repo.getRow(trx, owner);
      if (!before || !(await repo.deleteRow(trx, owner))) throw new ApiError('ERR_NOT_FOUND');
      Object.assign(note, noteTenant(owner), { entityId: before.id, before });
    },
  );
  return { deleted: true };
}
