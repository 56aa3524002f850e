import type { Database } from '@cordon/db';
import { nowIso } from '@cordon/db';
import { ApiError, type MailQuery, type MailSettings, type MailSettingsUpdate, Role } from '@cordon/shared';
import type { Kysely } from 'kysely';
import { type Caller, type CoreDeps, openStored, sealStored } from '../context.ts';
import { mutate } from '../mutation/index.ts';
import { mspVisible, scopeOf } from '../tenancy/index.ts';
import { deliver, type MailMessage } from './mailer.ts';
import * as repo from './repository.ts';

/**
 * Whose mail settings a `/mail` call means (spec-notes §7 "UI and tools"), checked in SQL against the
 * caller's scope: `msp_id` → that MSP (a system admin: any; an MSP admin: its own); none → the
 * system's for a system admin, the caller's own MSP for an MSP admin.
 * @throws ApiError ERR_NOT_FOUND for a missing or foreign MSP (the same answer for both)
 */
async function ownerOf(db: Kysely<Database>, caller: Caller, query: MailQuery): Promise<repo.MailOwner> {
  const mspId = query.msp_id ?? (caller.role === Role.Msp ? caller.mspId : undefined);
  if (mspId !== undefined && mspId !== null) {
    if (!(await mspVisible(db, scopeOf(caller), caller.role, mspId))) throw new ApiError('ERR_NOT_FOUND');
    return { kind: 'msp', mspId };
  }
  if (caller.role !== Role.System) throw new ApiError('ERR_NOT_FOUND');
  return { kind: 'system' };
}

/** The row mail for `owner` goes out through: its own, else (an MSP) the system's. */
async function effectiveRow(db: Kysely<Database>, owner: repo.MailOwner) {
  const own = await repo.getRow(db, owner);
  if (own || owner.kind === 'system') return { row: own, inherited: false };
  const system = await repo.getRow(db, { kind: 'system' });
  return { row: system, inherited: system !== undefined };
}

function toWire(owner: repo.MailOwner, own: boolean, row: repo.MailSettingsRow | undefined, inherited: boolean) {
  const settings: MailSettings = {
    scope: owner.kind,
    msp_id: owner.kind === 'msp' ? owner.mspId : null,
    is_set: own,
    inherited,
    server: row?.server ?? '',
    port: row?.port ?? 25,
    security: row?.security ?? 'none',
    username: row?.username ?? '',
    has_password: (row?.password ?? '') !== '',
    sender: row?.sender ?? '',
    from_email: row?.from_email ?? '',
    notification_period: row?.notification_period ?? '',
    console_url: owner.kind === 'system' ? (row?.console_url ?? '') : '',
    updated_at: row?.updated_at ?? null,
  };
  return settings;
}

/** An audit view of a row: never the SMTP password, only whether one is set. */
function auditView(row: repo.MailSettingsRow | undefined) {
  if (!row) return null;
  const { password, ...rest } = row;
  return { ...rest, has_password: password !== '' };
}

/**
 * `GET /mail?msp_id=`: the owner's settings; an MSP without its own shows the system's with
 * `inherited` true (`is_set` false).
 * @throws ApiError as {@link ownerOf}
 */
export async function getMailSettings(deps: CoreDeps, caller: Caller, query: MailQuery): Promise<MailSettings> {
  const db = deps.handle.db;
  const owner = await ownerOf(db, caller, query);
  const own = await repo.getRow(db, owner);
  if (own) return toWire(owner, true, own, false);
  const { row, inherited } = await effectiveRow(db, owner);
  return toWire(owner, false, row, inherited);
}

/**
 * `POST /mail?msp_id=`: sets the owner's mail server, port, security, credentials, sender, from
 * address and notification period (spec-notes §3 "Email settings"). A password left out keeps the stored
 * one. `console_url` only at system level. Audit `mail.update` (the password never in it).
 * @throws ApiError as {@link ownerOf}; ERR_VALIDATION for `console_url` at MSP level
 */
export async function setMailSettings(
  deps: CoreDeps,
  caller: Caller,
  query: MailQuery,
  body: MailSettingsUpdate,
): Promise<MailSettings> {
  return mutate(deps, caller, { topics: [], audit: { action: 'mail.update', entity: 'mail' } }, async (trx, note) => {
    const owner = await ownerOf(trx, caller, query);
    if (owner.kind === 'msp' && body.console_url !== undefined && body.console_url !== '') {
      const message = 'Only the system mail settings have a console address.';
      throw new ApiError('ERR_VALIDATION', message, { console_url: message });
    }
    const before = await repo.getRow(trx, owner);
    const stored = body.password === undefined ? body : { ...body, password: sealStored(deps, body.password) };
    await repo.upsertRow(trx, owner, stored, nowIso(deps.now()));
    const after = await repo.getRow(trx, owner);
    Object.assign(note, {
      entityId: after?.id ?? null,
      mspId: owner.kind === 'msp' ? owner.mspId : null,
      customerId: null,
      before: auditView(before),
      after: auditView(after),
    });
    return toWire(owner, true, after, false);
  });
}

/**
 * `DELETE /mail?msp_id=`: removes the owner's own settings (an MSP's then falls back to the system's).
 * Audit `mail.delete`.
 * @throws ApiError as {@link ownerOf}; ERR_NOT_FOUND when the owner has no settings of its own
 */
export async function deleteMailSettings(deps: CoreDeps, caller: Caller, query: MailQuery): Promise<{ deleted: true }> {
  await mutate(deps, caller, { topics: [], audit: { action: 'mail.delete', entity: 'mail' } }, async (trx, note) => {
    const owner = await ownerOf(trx, caller, query);
    const before = await repo.getRow(trx, owner);
    if (!before || !(await repo.deleteRow(trx, owner))) throw new ApiError('ERR_NOT_FOUND');
    Object.assign(note, {
      entityId: before.id,
      mspId: owner.kind === 'msp' ? owner.mspId : null,
      customerId: null,
      before: auditView(before),
    });
  });
  return { deleted: true };
}

/** Thrown by {@link sendMail} when neither the MSP nor the system has mail settings. */
export class MailNotConfiguredError extends Error {
  constructor() {
    super('No mail settings: set the mail server at system level (or for the MSP) first.');
    this.name = 'MailNotConfiguredError';
  }
}

/** Whose settings a mail goes out through: an MSP's (falling back to the system's), or the system's (`mspId` null). */
export interface MailSender {
  mspId: number | null;
}

/**
 * Sends one mail through the settings of `from.mspId` (its own, else the system's), or the system's
 * when `mspId` is null (spec-notes §3 "Email settings"). For services that mail (invitations, password
 * resets, reports); no audit row (sending changes nothing).
 * @returns the SMTP server's message id
 * @throws MailNotConfiguredError when no settings apply; the transport's Error when the server refuses
 */
export async function sendMail(deps: CoreDeps, from: MailSender, message: MailMessage): Promise<string> {
  const owner: repo.MailOwner = from.mspId === null ? { kind: 'system' } : { kind: 'msp', mspId: from.mspId };
  const { row } = await effectiveRow(deps.handle.db, owner);
  if (!row) throw new MailNotConfiguredError();
  return deliver({ ...row, password: openStored(deps, row.password) }, message);
}

/** True when mail can go out for `from` (its settings or the system's exist). */
export async function mailConfigured(deps: CoreDeps, from: MailSender): Promise<boolean> {
  const owner: repo.MailOwner = from.mspId === null ? { kind: 'system' } : { kind: 'msp', mspId: from.mspId };
  return (await effectiveRow(deps.handle.db, owner)).row !== undefined;
}

/** The console address mailed links point to (system settings' `console_url`), or '' when not set. */
export async function consoleUrl(deps: CoreDeps): Promise<string> {
  return (await repo.getRow(deps.handle.db, { kind: 'system' }))?.console_url ?? '';
}

/**
 * `POST /mail/test?msp_id=`: sends a short test e-mail to `to` through the owner's effective settings.
 * @throws ApiError as {@link ownerOf}; ERR_UNPROCESSABLE (422) when no settings apply or the server
 *   refuses or cannot be reached (one generic text whatever the cause, so a tenant cannot probe the
 *   network through it: docs/security.md "Outbound requests"; the cause goes to the operator's log)
 */
export async function sendTestMail(
  deps: CoreDeps,
  caller: Caller,
  query: MailQuery,
  to: string,
): Promise<{ sent: true; message_id: string }> {
  const owner = await ownerOf(deps.handle.db, caller, query);
  const { row } = await effectiveRow(deps.handle.db, owner);
  if (!row) throw new ApiError('ERR_UNPROCESSABLE', new MailNotConfiguredError().message);
  try {
    const id = await deliver(
      { ...row, password: openStored(deps, row.password) },
      {
        to,
        subject: 'Cordon test e-mail',
        text: 'This is a test e-mail from Cordon: the mail settings work.',
      },
    );
    return { sent: true, message_id: id };
  } catch (e) {
    const reason = e instanceof Error ? e.message.replace(/\s+/g, ' ').slice(0, 200) : 'unknown error';
    throw new ApiError('ERR_UNPROCESSABLE', `The test e-mail could not be sent: ${reason}`);
  }
}
