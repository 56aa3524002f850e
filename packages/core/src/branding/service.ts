import type { Database } from '@cordon/db';
import { nowIso } from '@cordon/db';
import {
  ApiError,
  Role,
  type UiInterface,
  type UiInterfaceFields,
  type UiQuery,
  type UiSupport,
  type UiSupportUpdate,
} from '@cordon/shared';
import type { Kysely } from 'kysely';
import type { Caller, CoreDeps } from '../context.ts';
import { logoDataUrl, validateLogo } from '../images/index.ts';
import { mutate } from '../mutation/index.ts';
import { customerTenant, mspVisible, scopeOf } from '../tenancy/index.ts';
import type { BrandingLevel, InterfacePatch, InterfaceRow, SupportRow } from './repository.ts';
import * as repo from './repository.ts';

const SYSTEM: BrandingLevel = { mspId: null };

/**
 * Which level a `/ui/interface` or `/ui/support` call means (spec-notes §7 "UI and tools": "own or with
 * msp_id"), checked in SQL against the caller's scope:
 * - `msp_id`: that MSP (a system admin: any; an MSP admin: its own; a customer admin: never);
 * - none: the system's for a system admin, the caller's MSP for an MSP admin, the customer's MSP
 *   for a customer admin (read-only: the write endpoints do not admit role 4).
 * @throws ApiError ERR_NOT_FOUND for a missing or foreign MSP (the same answer for both)
 */
async function levelOf(db: Kysely<Database>, caller: Caller, query: UiQuery): Promise<BrandingLevel> {
  const scope = scopeOf(caller);
  if (query.msp_id !== undefined) {
    if (caller.role === Role.Customer || !(await mspVisible(db, scope, caller.role, query.msp_id))) {
      throw new ApiError('ERR_NOT_FOUND');
    }
    return { mspId: query.msp_id };
  }
  if (caller.role === Role.System) return SYSTEM;
  if (caller.role === Role.Msp && caller.mspId !== null) return { mspId: caller.mspId };
  if (caller.role === Role.Customer && caller.customerId !== null) {
    const tenant = await customerTenant(db, scope, caller.customerId);
    if (tenant) return { mspId: tenant.mspId };
  }
  throw new ApiError('ERR_NOT_FOUND');
}

function parseNameservers(json: string): string[] {
  try {
    const value: unknown = JSON.parse(json);
    return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
  } catch {
    return [];
  }
}

const logoOf = (row: InterfaceRow | undefined): string | null =>
  row?.logo && row.logo_type ? logoDataUrl(row.logo_type, row.logo) : null;

/** A level's interface on the wire: its own values and what the console shows (own, else the system's). */
function interfaceWire(
  level: BrandingLevel,
  own: InterfaceRow | undefined,
  system: InterfaceRow | undefined,
): UiInterface {
  const ownLogo = logoOf(own);
  return {
    msp_id: level.mspId,
    system: level.mspId === null,
    logo: ownLogo,
    title: own?.title ?? '',
    nameservers: own ? parseNameservers(own.nameservers) : [],
    effective_logo: ownLogo ?? (level.mspId === null ? null : logoOf(system)),
    effective_title: own?.title || (level.mspId === null ? '' : (system?.title ?? '')),
    updated_at: own?.updated_at ?? null,
  };
}

/** A row as the audit log keeps it: the logo by its hash, never its bytes. */
function auditInterface(row: InterfaceRow | undefined): Omit<InterfaceRow, 'logo'> | null {
  if (!row) return null;
  const { logo: _bytes, ...rest } = row;
  return rest;
}

async function readInterface(db: Kysely<Database>, level: BrandingLevel): Promise<UiInterface> {
  const own = await repo.getInterface(db, level);
  const system = level.mspId === null ? own : await repo.getInterface(db, SYSTEM);
  return interfaceWire(level, own, system);
}

/**
 * `GET /ui/interface[?msp_id=]`: a level's interface branding and what the console shows there.
 * @throws ApiError as {@link levelOf}
 */
export async function getInterface(deps: CoreDeps, caller: Caller, query: UiQuery): Promise<UiInterface> {
  const db = deps.handle.db;
  return readInterface(db, await levelOf(db, caller, query));
}

/**
 * Checks that the caller may change the level of `query` before an upload is read (a foreign MSP
 * is refused without reading the body).
 * @throws ApiError as {@link levelOf}
 */
export async function checkInterfaceLevel(deps: CoreDeps, caller: Caller, query: UiQuery): Promise<void> {
  await levelOf(deps.handle.db, caller, query);
}

/** One change to a level's interface (the audit action and the columns it sets). */
async function changeInterface(
  deps: CoreDeps,
  caller: Caller,
  query: UiQuery,
  action: string,
  patch: InterfacePatch,
): Promise<UiInterface> {
  return mutate(deps, caller, { topics: [], audit: { action, entity: 'ui_interface' } }, async (trx, note) => {
    const level = await levelOf(trx, caller, query);
    const before = await repo.getInterface(trx, level);
    await repo.upsertInterface(trx, level, patch, nowIso());
    const after = await repo.getInterface(trx, level);
    Object.assign(note, {
      mspId: level.mspId,
      customerId: null,
      entityId: after?.id ?? null,
      before: auditInterface(before),
      after: auditInterface(after),
    });
    return readInterface(trx, level);
  });
}

/**
 * `POST /ui/interface[?msp_id=]` (multipart, spec-notes §7): sets the fields given — `title`,
 * `nameservers`, and `logo` (checked by `validateLogo`: spec-notes §5 size and dimension messages) —
 * leaving absent ones unchanged. Audit `ui.interface.update`.
 * @throws ApiError as {@link levelOf}; ERR_VALIDATION (field `logo`) changing nothing
 */
export async function setInterface(
  deps: CoreDeps,
  caller: Caller,
  query: UiQuery,
  fields: UiInterfaceFields,
  logoBytes: Buffer | null,
): Promise<UiInterface> {
  const logo = logoBytes === null ? null : validateLogo(logoBytes);
  const patch: InterfacePatch = {
    ...(fields.title === undefined ? {} : { title: fields.title }),
    ...(fields.nameservers === undefined ? {} : { nameservers: JSON.stringify(fields.nameservers) }),
    ...(logo ? { logo: logo.bytes, logo_type: logo.type, logo_sha256: logo.sha256 } : {}),
  };
  return changeInterface(deps, caller, query, 'ui.interface.update', patch);
}

/**
 * `DELETE /ui/interface/logo[?msp_id=]`: removes the level's logo (the system's, or the product
 * mark, shows again). Audit `ui.interface.logo.delete`.
 * @throws ApiError as {@link levelOf}
 */
export async function deleteInterfaceLogo(deps: CoreDeps, caller: Caller, query: UiQuery): Promise<UiInterface> {
  return changeInterface(deps, caller, query, 'ui.interface.logo.delete', {
    logo: null,
    logo_type: null,
    logo_sha256: null,
  });
}

/**
 * `DELETE /ui/interface/title[?msp_id=]`: removes the level's title (spec-notes §2: then the system's or
 * the default product title). Audit `ui.interface.title.delete`.
 * @throws ApiError as {@link levelOf}
 */
export async function deleteInterfaceTitle(deps: CoreDeps, caller: Caller, query: UiQuery): Promise<UiInterface> {
  return changeInterface(deps, caller, query, 'ui.interface.title.delete', { title: '' });
}

const isSet = (row: SupportRow | undefined): row is SupportRow =>
  row !== undefined && (row.email !== '' || row.link !== '' || row.support_desk_url !== '');

function supportWire(level: BrandingLevel, row: SupportRow | undefined): UiSupport {
  return {
    msp_id: level.mspId,
    system: level.mspId === null,
    email: row?.email ?? '',
    link: row?.link ?? '',
    support_desk_url: row?.support_desk_url ?? '',
    updated_at: row?.updated_at ?? null,
  };
}

/**
 * `GET /ui/support[?msp_id=]`: a level's support contacts. A customer admin reads the contacts
 * it is offered: its MSP's when the MSP set any, else the system's (`system` true).
 * @throws ApiError as {@link levelOf}
 */
export async function getSupport(deps: CoreDeps, caller: Caller, query: UiQuery): Promise<UiSupport> {
  const db = deps.handle.db;
  const level = await levelOf(db, caller, query);
  const own = await repo.getSupport(db, level);
  if (caller.role === Role.Customer && !isSet(own)) return supportWire(SYSTEM, await repo.getSupport(db, SYSTEM));
  return supportWire(level, own);
}

/**
 * `PUT /ui/support[?msp_id=]`: sets the level's support contacts (spec-notes §5 "Please enter a valid
 * URL."). Audit `ui.support.update` with before and after.
 * @throws ApiError as {@link levelOf}
 */
export async function setSupport(
  deps: CoreDeps,
  caller: Caller,
  query: UiQuery,
  body: UiSupportUpdate,
): Promise<UiSupport> {
  return mutate(
    deps,
    caller,
    { topics: ['blockpages'], audit: { action: 'ui.support.update', entity: 'ui_support' } },
    async (trx, note) => {
      const level = await levelOf(trx, caller, query);
      const before = await repo.getSupport(trx, level);
      await repo.upsertSupport(trx, level, body, nowIso());
      const after = await repo.getSupport(trx, level);
      Object.assign(note, {
        mspId: level.mspId,
        customerId: null,
        entityId: after?.id ?? null,
        before: before ?? null,
        after: after ?? null,
      });
      return supportWire(level, after);
    },
  );
}
