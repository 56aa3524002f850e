import type { Database } from '@cordon/db';
import { nowIso } from '@cordon/db';
import { ApiError, type BlockPage, type BlockPageQuery, type BlockPageUpdate, Role } from '@cordon/shared';
import type { Kysely } from 'kysely';
import type { Caller, CoreDeps } from '../context.ts';
import { logoDataUrl, validateLogo } from '../images/index.ts';
import { mutate } from '../mutation/index.ts';
import { customerTenant, mspVisible, scopeOf } from '../tenancy/index.ts';
import type { BlockPageOwner, BlockPageRow } from './repository.ts';
import * as repo from './repository.ts';

const TOPICS = ['blockpages'] as const;

/**
 * Whose block page a `/ui/blockpage` call means (spec-notes §7 "UI and tools"), checked in SQL against the
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
    logo: row?.logo && row.logo_type ? logoDataUrl(row.logo_type, row.logo) : null,
    updated_at: row?.updated_at ?? null,
  };
}

/** A row as the audit log keeps it: the logo by its hash, never its bytes. */
function auditRow(row: BlockPageRow | undefined): Omit<BlockPageRow, 'logo'> | null {
  if (!row) return null;
  const { logo: _bytes, ...rest } = row;
  return rest;
}

/** The audit tenant of `owner`'s changes. */
function noteTenant(owner: BlockPageOwner): { mspId: number | null; customerId: number | null } {
  if (owner.kind === 'customer') return { mspId: owner.mspId, customerId: owner.customerId };
  return { mspId: owner.kind === 'msp' ? owner.mspId : null, customerId: null };
}

/**
 * One write to the owner's row through the mutation path: resolves the owner in the transaction,
 * runs `write` (which may refuse with an ApiError), and audits `action` with the row before and after
 * (logo by hash only); publishes `blockpages`.
 * @returns the owner's branding after the write
 */
function writeBlockPage(
  deps: CoreDeps,
  caller: Caller,
  query: BlockPageQuery,
  action: string,
  write: (trx: Kysely<Database>, owner: BlockPageOwner, before: BlockPageRow | undefined) => Promise<void>,
): Promise<BlockPage> {
  return mutate(deps, caller, { topics: TOPICS, audit: { action, entity: 'blockpage' } }, async (trx, note) => {
    const owner = await ownerOf(trx, caller, query);
    const before = await repo.getRow(trx, owner);
    await write(trx, owner, before);
    const after = await repo.getRow(trx, owner);
    Object.assign(note, noteTenant(owner), {
      entityId: after?.id ?? before?.id ?? null,
      before: auditRow(before),
      after: auditRow(after),
    });
    return toWire(owner, after);
  });
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
export function setBlockPage(
  deps: CoreDeps,
  caller: Caller,
  query: BlockPageQuery,
  body: BlockPageUpdate,
): Promise<BlockPage> {
  return writeBlockPage(deps, caller, query, 'blockpage.update', (trx, owner) =>
    repo.upsertRow(trx, owner, body, nowIso()),
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
      Object.assign(note, noteTenant(owner), { entityId: before.id, before: auditRow(before) });
    },
  );
  return { deleted: true };
}

/**
 * `POST /ui/blockpage/logo?user_id=|msp_id=` (spec-notes §7 "UI and tools", multipart variant): stores
 * `bytes` as the owner's logo after {@link validateLogo}; the block page shows it within a second.
 * Audit `blockpage.logo` (hashes before and after); publishes `blockpages`.
 * @throws ApiError as {@link ownerOf}; ERR_VALIDATION (field `logo`) with the spec's size,
 *   dimension or "Failed Uploaded file." message, changing nothing
 */
export function setBlockPageLogo(
  deps: CoreDeps,
  caller: Caller,
  query: BlockPageQuery,
  bytes: Buffer,
): Promise<BlockPage> {
  const logo = validateLogo(bytes);
  return writeBlockPage(deps, caller, query, 'blockpage.logo', (trx, owner) =>
    repo.setLogo(trx, owner, { bytes: logo.bytes, type: logo.type, sha256: logo.sha256 }, nowIso()),
  );
}

/**
 * `DELETE /ui/blockpage/logo?user_id=|msp_id=`: removes the owner's logo (its texts stay), so the next
 * level's logo shows. Audit `blockpage.logo_delete`; publishes `blockpages`.
 * @throws ApiError as {@link ownerOf}; ERR_NOT_FOUND when the owner has no logo
 */
export function deleteBlockPageLogo(deps: CoreDeps, caller: Caller, query: BlockPageQuery): Promise<BlockPage> {
  return writeBlockPage(deps, caller, query, 'blockpage.logo_delete', async (trx, owner, before) => {
    if (!before?.logo) throw new ApiError('ERR_NOT_FOUND');
    await repo.setLogo(trx, owner, null, nowIso());
  });
}
