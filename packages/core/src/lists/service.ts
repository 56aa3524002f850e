import { randomBytes } from 'node:crypto';
import type { Database } from '@cordon/db';
import { nowIso } from '@cordon/db';
import {
  ApiError,
  type DomainAction,
  type DomainEntry,
  type DomainEntryCreate,
  type DomainEntryUpdate,
  type DomainImportResult,
  type DomainListKind,
  type ListQuery,
  listFullMessage,
  Role,
} from '@cordon/shared';
import type { Kysely } from 'kysely';
import type { Caller, CoreDeps } from '../context.ts';
import { mutate } from '../mutation/index.ts';
import { mspVisible, scopeOf } from '../tenancy/index.ts';
import { formatDomainCsv, parseDomainCsv } from './csv.ts';
import type { ListOwner, ListScope } from './repository.ts';
import * as repo from './repository.ts';

/** Who owns a list, as the routes name it: a policy (`/policies/{id}/domains`) or a global list (`/global/domains`). */
export type ListTarget =
  | { readonly policyId: number; readonly userId?: number | undefined; readonly mspId?: number | undefined }
  | { readonly global: true; readonly mspId?: number | undefined };

/**
 * The operator's limits on domain lists (`cordon serve --max-list-entries`; docs/operations.md
 * "List sizes"): they keep one tenant's lists from growing the resolver's snapshot and its reloads
 * without bound (docs/security.md "Noisy neighbours").
 */
export interface ListLimits {
  /** The most entries one list may hold: a policy's allow list, its block list, an MSP's or the system's global allow or block list. */
  readonly maxEntries: number;
}

/** The default list limits: 100,000 entries per list. */
export const DEFAULT_LIST_LIMITS: ListLimits = { maxEntries: 100_000 };

/** What the list services need: core's dependencies and, optionally, the operator's list limits (default {@link DEFAULT_LIST_LIMITS}). */
export interface ListDeps extends CoreDeps {
  readonly listLimits?: ListLimits | undefined;
}

/**
 * Refuses a change that leaves `owner`'s `action` list above the limit (checked inside the change's
 * transaction, after the insert for an import, so it counts what the unique index let in).
 * @throws ApiError ERR_LIST_FULL (422) naming the limit, its field `field`
 */
async function checkRoom(
  deps: ListDeps,
  db: Kysely<Database>,
  owner: ListOwner,
  action: DomainAction,
  adding: number,
  field: string,
): Promise<void> {
  const max = (deps.listLimits ?? DEFAULT_LIST_LIMITS).maxEntries;
  if ((await repo.countEntries(db, owner, action)) + adding > max) {
    const message = listFullMessage(max);
    throw new ApiError('ERR_LIST_FULL', message, { [field]: message });
  }
}

/** A fresh change stamp: the resolver compares them, never reads them. */
const stampValue = (deps: CoreDeps) => `${deps.now()}-${randomBytes(4).toString('hex')}`;

const taken = () =>
  new ApiError('ERR_CONFLICT', 'This domain is already in the list.', {
    domain: 'This domain is already in the list.',
  });

const scopeFor = (caller: Caller): ListScope => ({ scope: scopeOf(caller), role: caller.role });

/**
 * Resolves and checks the owner of a list call (docs/architecture.md "Tenancy"):
 * - a policy visible to the caller; `user_id`/`msp_id` (spec-notes §7 "carrying user_id or msp_id"),
 *   when given, must be its customer and that customer's MSP;
 * - a global list: `msp_id` an MSP the caller may see (an MSP admin's own when left out); none, the
 *   system's lists, for system admins only.
 * @throws ApiError ERR_NOT_FOUND for anything missing or foreign (a foreign id answers as a missing one); ERR_FORBIDDEN otherwise
 */
export async function ownerOf(deps: CoreDeps, caller: Caller, target: ListTarget): Promise<ListOwner> {
  const at = scopeFor(caller);
  if ('policyId' in target) {
    const owner = await repo.policyOwner(deps.handle.db, at, target.policyId);
    if (!owner) throw new ApiError('ERR_NOT_FOUND');
    if (target.userId !== undefined && target.userId !== owner.customerId) throw new ApiError('ERR_NOT_FOUND');
    if (target.mspId !== undefined && target.mspId !== owner.mspId) throw new ApiError('ERR_NOT_FOUND');
    return owner;
  }
  if (caller.role === Role.Msp) {
    if (caller.mspId === null) throw new ApiError('ERR_FORBIDDEN');
    if (target.mspId !== undefined && target.mspId !== caller.mspId) throw new ApiError('ERR_NOT_FOUND');
    return { kind: 'global', mspId: caller.mspId };
  }
  if (caller.role !== Role.System) throw new ApiError('ERR_FORBIDDEN');
  if (target.mspId === undefined) return { kind: 'global', mspId: null };
  if (!(await mspVisible(deps.handle.db, at.scope, caller.role, target.mspId))) throw new ApiError('ERR_NOT_FOUND');
  return { kind: 'global', mspId: target.mspId };
}

/** The tenant columns of an owner's audit rows. */
function auditTenant(owner: ListOwner): { mspId: number | null; customerId: number | null } {
  return owner.kind === 'policy'
    ? { mspId: owner.mspId, customerId: owner.customerId }
    : { mspId: owner.mspId, customerId: null };
}

/** `GET …/domains/{allow|block|all}`: a page of the list(s). @throws ApiError as {@link ownerOf}; 400 for an unknown sortkey */
export async function listEntries(
  deps: CoreDeps,
  caller: Caller,
  target: ListTarget,
  kind: DomainListKind,
  query: ListQuery,
): Promise<{ data: DomainEntry[]; total: number }> {
  const owner = await ownerOf(deps, caller, target);
  return repo.listEntries(deps.handle.db, scopeFor(caller), owner, kind, query);
}

/** `GET …/domains/{action}/{entryId}`. @throws ApiError ERR_NOT_FOUND (also for an entry of the other list) */
export async function getEntry(
  deps: CoreDeps,
  caller: Caller,
  target: ListTarget,
  kind: DomainListKind,
  id: number,
): Promise<DomainEntry> {
  const owner = await ownerOf(deps, caller, target);
  const entry = await repo.getEntry(deps.handle.db, scopeFor(caller), owner, kind, id);
  if (!entry) throw new ApiError('ERR_NOT_FOUND');
  return entry;
}

/**
 * `POST …/domains/{allow|block}`: adds an entry (domain normalised by the body's schema). The
 * owner's unique index (migration 0005) refuses a listed domain. Writes the owner's change stamp;
 * audit `domain.create`; publishes `lists`.
 * @throws ApiError as {@link ownerOf}; ERR_CONFLICT when the domain is already in that list;
 *   ERR_LIST_FULL when the list holds `deps.listLimits.maxEntries` entries already
 */
export async function createEntry(
  deps: ListDeps,
  caller: Caller,
  target: ListTarget,
  action: DomainAction,
  body: DomainEntryCreate,
): Promise<DomainEntry> {
  const owner = await ownerOf(deps, caller, target);
  const at = scopeFor(caller);
  return mutate(
    deps,
    caller,
    { topics: ['lists'], audit: { action: 'domain.create', entity: 'domain' }, conflict: taken },
    async (trx, note) => {
      await checkRoom(deps, trx, owner, action, 1, 'domain');
      const [id] = await repo.insertEntries(trx, owner, action, [body], nowIso(deps.now()));
      await repo.stampOwner(trx, owner, stampValue(deps));
      const entry = await repo.getEntry(trx, at, owner, action, id as number);
      if (!entry) throw new ApiError('ERR_NOT_FOUND');
      Object.assign(note, auditTenant(owner), { entityId: entry.id, after: entry });
      return entry;
    },
  );
}

/**
 * `PUT /policies/{id}/domains/{action}/{entryId}` (global lists: POST): changes the fields given
 * (a domain already listed is refused by the owner's unique index). Writes the owner's change
 * stamp; audit `domain.update` with before and after; publishes `lists`.
 * @throws ApiError ERR_NOT_FOUND; ERR_CONFLICT when the new domain is already in the list
 */
export async function updateEntry(
  deps: CoreDeps,
  caller: Caller,
  target: ListTarget,
  kind: DomainListKind,
  id: number,
  body: DomainEntryUpdate,
): Promise<DomainEntry> {
  const owner = await ownerOf(deps, caller, target);
  const at = scopeFor(caller);
  return mutate(
    deps,
    caller,
    { topics: ['lists'], audit: { action: 'domain.update', entity: 'domain' }, conflict: taken },
    async (trx, note) => {
      const before = await repo.getEntry(trx, at, owner, kind, id);
      if (!before) throw new ApiError('ERR_NOT_FOUND');
      if (!(await repo.updateEntry(trx, at, owner, id, body, nowIso(deps.now())))) throw new ApiError('ERR_NOT_FOUND');
      await repo.stampOwner(trx, owner, stampValue(deps));
      const after = await repo.getEntry(trx, at, owner, kind, id);
      if (!after) throw new ApiError('ERR_NOT_FOUND');
      Object.assign(note, auditTenant(owner), { entityId: id, before, after });
      return after;
    },
  );
}

/**
 * `DELETE …/domains/{action}/{entryId}`. Writes the owner's change stamp; audit `domain.delete` with
 * the entry; publishes `lists`. @throws ApiError ERR_NOT_FOUND
 */
export async function deleteEntry(
  deps: CoreDeps,
  caller: Caller,
  target: ListTarget,
  kind: DomainListKind,
  id: number,
): Promise<{ deleted: true }> {
  const owner = await ownerOf(deps, caller, target);
  const at = scopeFor(caller);
  await mutate(
    deps,
    caller,
    { topics: ['lists'], audit: { action: 'domain.delete', entity: 'domain' } },
    async (trx, note) => {
      const before = await repo.getEntry(trx, at, owner, kind, id);
      if (!before) throw new ApiError('ERR_NOT_FOUND');
      if ((await repo.deleteEntries(trx, at, owner, { id })) === 0) throw new ApiError('ERR_NOT_FOUND');
      await repo.stampOwner(trx, owner, stampValue(deps));
      Object.assign(note, auditTenant(owner), { entityId: id, before });
    },
  );
  return { deleted: true };
}

/**
 * `POST …/domains/import/{action}[?overwrite=true]`: a CSV file (spec-notes §9: ≤ 1 MB, one domain per
 * line; columns in {@link parseDomainCsv}) added to the `action` list in one transaction — all or
 * nothing. Domains already listed (or repeated in the file) are skipped by the owner's unique index
 * and kept as they are; `overwrite` first empties the list. Writes the owner's change stamp; audit
 * `domain.import` with the counts; publishes `lists`.
 * @throws ApiError as {@link ownerOf}; ERR_VALIDATION naming the first bad line (`Line N: …`);
 *   ERR_LIST_FULL (field `csv`) when the list would hold more than `deps.listLimits.maxEntries`
 *   entries; nothing is written then
 */
export async function importEntries(
  deps: ListDeps,
  caller: Caller,
  target: ListTarget,
  action: DomainAction,
  csv: string,
  overwrite: boolean,
): Promise<DomainImportResult> {
  const owner = await ownerOf(deps, caller, target);
  const entries = parseDomainCsv(csv, action);
  const at = scopeFor(caller);
  return mutate(
    deps,
    caller,
    { topics: ['lists'], audit: { action: 'domain.import', entity: 'domain' } },
    async (trx, note) => {
      const removed = overwrite ? await repo.deleteEntries(trx, at, owner, { action }) : 0;
      const ids = await repo.insertEntries(trx, owner, action, entries, nowIso(deps.now()), true);
      await checkRoom(deps, trx, owner, action, 0, 'csv');
      await repo.stampOwner(trx, owner, stampValue(deps));
      const result = { imported: ids.length, skipped: entries.length - ids.length, removed };
      Object.assign(note, auditTenant(owner), {
        entityId: owner.kind === 'policy' ? owner.policyId : owner.mspId,
        after: { list: action, overwrite, ...result },
      });
      return result;
    },
  );
}

/** `GET …/domains/{action}/export`: the list(s) as CSV text ({@link formatDomainCsv}). @throws ApiError as {@link ownerOf} */
export async function exportEntries(
  deps: CoreDeps,
  caller: Caller,
  target: ListTarget,
  kind: DomainListKind,
): Promise<string> {
  const owner = await ownerOf(deps, caller, target);
  return formatDomainCsv(await repo.allEntries(deps.handle.db, scopeFor(caller), owner, kind));
}
