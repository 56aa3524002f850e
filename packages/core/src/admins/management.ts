import type { Database } from '@cordon/db';
import { nowIso } from '@cordon/db';
import {
  type Admin,
  type AdminCreate,
  type AdminListQuery,
  type AdminUpdate,
  ApiError,
  isRole,
  Role,
} from '@cordon/shared';
import { type Kysely, sql } from 'kysely';
import { interfaceTitle } from '../branding/index.ts';
import type { Caller, CoreDeps } from '../context.ts';
import { consoleUrl, sendMail } from '../mail/index.ts';
import { mutate } from '../mutation/index.ts';
import { containsPattern, type ListSort, listPage } from '../paging/index.ts';
import { customerTenant, mspVisible, scopeOf } from '../tenancy/index.ts';
import { issueLinkToken } from './links.ts';
import { type AdminForToken, adminQuery, emailTaken, insertAdmin } from './repository.ts';
import { adminEmailConflict } from './service.ts';

/** The password hash of an invited admin that has not registered yet: no password verifies against it. */
export const PENDING_PASSWORD = '!invited';

const SORT: ListSort<string> = {
  columns: {
    name: 'admins.full_name',
    full_name: 'admins.full_name',
    email: 'admins.email',
    role: 'admins.role',
    id: 'admins.id',
    created_at: 'admins.created_at',
    last_login_at: 'admins.last_login_at',
  },
  text: ['admins.full_name', 'admins.email'],
  tiebreak: 'admins.id',
};

/**
 * The admins `caller` may see and manage, in SQL (docs/security.md "Accounts"): a system admin all;
 * an MSP admin its MSP's admins and its customers' (role 3 or 4 with its `msp_id`); a customer
 * admin its customer's (role 4); anyone else none.
 */
export function managedAdmins(db: Kysely<Database>, caller: Pick<Caller, 'role' | 'mspId' | 'customerId'>) {
  const q = adminQuery(db);
  if (caller.role === Role.System) return q;
  if (caller.role === Role.Msp && caller.mspId !== null) {
    return q.where('admins.msp_id', '=', caller.mspId).where('admins.role', 'in', [Role.Msp, Role.Customer]);
  }
  if (caller.role === Role.Customer && caller.customerId !== null) {
    return q.where('admins.customer_id', '=', caller.customerId).where('admins.role', '=', Role.Customer);
  }
  return q.where(sql<boolean>`1 = 0`);
}

/** The wire form of an admin (spec-notes §3 "Admin"). */
export function toAdmin(a: AdminForToken): Admin {
  return {
    id: a.id,
    email: a.email,
    full_name: a.full_name,
    role: isRole(a.role) ? a.role : Role.Customer,
    msp_id: a.msp_id,
    user_id: a.customer_id,
    is_default: a.is_default === 1,
    '2fa_enabled': a.twofa_enabled === 1,
    pending: a.password_hash === PENDING_PASSWORD,
    last_login_at: a.last_login_at,
    created_at: a.created_at,
  };
}

/** What an admin's audit states show: never the password hash or a second-factor secret. */
export function adminAuditView(a: AdminForToken) {
  const { last_login_at: _l, ...shown } = toAdmin(a);
  return shown;
}

/** The admin `id` if `caller` manages it. @throws ApiError ERR_NOT_FOUND otherwise (a foreign admin as a missing one) */
async function managedAdmin(db: Kysely<Database>, caller: Caller, id: number): Promise<AdminForToken> {
  const admin = await managedAdmins(db, caller).where('admins.id', '=', id).executeTakeFirst();
  if (!admin) throw new ApiError('ERR_NOT_FOUND');
  return admin;
}

/**
 * `GET /admin?msp_id=&user_id=` (spec-notes §7 "Admins"): a customer's admins (`user_id`), an MSP's
 * (`msp_id`), or the caller's own level: the system and sales admins for a system admin, its MSP's
 * for an MSP admin, its customer's for a customer admin. Paging, sort and `filter` (name or e-mail).
 * @throws ApiError ERR_NOT_FOUND for a foreign customer or MSP
 */
export async function listAdmins(
  deps: CoreDeps,
  caller: Caller,
  query: AdminListQuery,
): Promise<{ data: Admin[]; total: number }> {
  const db = deps.handle.db;
  const scope = scopeOf(caller);
  let q = managedAdmins(db, caller);
  if (query.user_id !== undefined) {
    if (!(await customerTenant(db, scope, query.user_id))) throw new ApiError('ERR_NOT_FOUND');
    q = q.where('admins.customer_id', '=', query.user_id).where('admins.role', '=', Role.Customer);
  } else if (query.msp_id !== undefined) {
    if (caller.role === Role.Customer || !(await mspVisible(db, scope, caller.role, query.msp_id))) {
      throw new ApiError('ERR_NOT_FOUND');
    }
    q = q.where('admins.msp_id', '=', query.msp_id).where('admins.role', '=', Role.Msp);
  } else if (caller.role === Role.System) {
    q = q.where('admins.role', 'in', [Role.System, Role.Sales]);
  } else if (caller.role === Role.Msp) {
    q = q.where('admins.role', '=', Role.Msp);
  }
  if (query.filter) {
    const pattern = containsPattern(query.filter);
    q = q.where((eb) =>
      eb.or([
        sql<boolean>`lower(admins.full_name) like ${pattern} escape '\\'`,
        sql<boolean>`lower(admins.email) like ${pattern} escape '\\'`,
      ]),
    );
  }
  const { rows, total } = await listPage(q, query, SORT);
  return { data: rows.map(toAdmin), total };
}

/** `GET /admin/{id}`. @throws ApiError ERR_NOT_FOUND for an admin the caller does not manage */
export async function getAdmin(deps: CoreDeps, caller: Caller, id: number): Promise<Admin> {
  return toAdmin(await managedAdmin(deps.handle.db, caller, id));
}

/** The level and tenant a new admin gets, after the role rules. */
interface Placement {
  role: Role;
  mspId: number | null;
  customerId: number | null;
}

/**
 * The 403 of a role rule. The answer is the catalogue's text (spec-notes §8: the console shows
 * 'Client error: Forbidden.' for every 403); `why` documents the rule at the call site.
 */
const forbidden = (_why: string) => new ApiError('ERR_FORBIDDEN');
const invalidRole = (message: string) => new ApiError('ERR_VALIDATION', message, { role: message });

/**
 * Where a new admin goes (docs/security.md "Accounts"): `user_id` → a customer admin of that
 * customer; `msp_id` → an MSP admin of that MSP; neither → the caller's own level. Nobody creates an
 * admin above its own role, nor in a tenant it cannot see.
 * @throws ApiError ERR_FORBIDDEN for a role above the caller's; ERR_NOT_FOUND for a foreign tenant;
 *   ERR_VALIDATION for a role that does not fit the tenant
 */
async function placement(db: Kysely<Database>, caller: Caller, body: AdminCreate): Promise<Placement> {
  const scope = scopeOf(caller);
  if (body.role !== undefined && body.role < caller.role) {
    throw forbidden('An administrator cannot create one with a higher role.');
  }
  if (body.user_id !== undefined) {
    const customer = await customerTenant(db, scope, body.user_id);
    if (!customer) throw new ApiError('ERR_NOT_FOUND');
    if (body.msp_id !== undefined && body.msp_id !== customer.mspId) throw new ApiError('ERR_NOT_FOUND');
    if (body.role !== undefined && body.role !== Role.Customer) {
      throw invalidRole("A customer's administrators have role 4.");
    }
    return { role: Role.Customer, mspId: customer.mspId, customerId: customer.id };
  }
  if (body.msp_id !== undefined) {
    if (caller.role === Role.Customer) throw forbidden('A customer administrator cannot create MSP administrators.');
    if (!(await mspVisible(db, scope, caller.role, body.msp_id))) throw new ApiError('ERR_NOT_FOUND');
    if (body.role !== undefined && body.role !== Role.Msp) throw invalidRole("An MSP's administrators have role 3.");
    return { role: Role.Msp, mspId: body.msp_id, customerId: null };
  }
  if (caller.role === Role.System) {
    const role = body.role ?? Role.System;
    if (role !== Role.System && role !== Role.Sales) {
      throw invalidRole('An MSP or customer administrator needs its msp_id or user_id.');
    }
    return { role, mspId: null, customerId: null };
  }
  if (caller.role === Role.Msp && caller.mspId !== null) {
    const role = body.role ?? Role.Msp;
    if (role !== Role.Msp) throw invalidRole('A customer administrator needs its user_id.');
    return { role, mspId: caller.mspId, customerId: null };
  }
  if (caller.role === Role.Customer && caller.customerId !== null && caller.mspId !== null) {
    return { role: Role.Customer, mspId: caller.mspId, customerId: caller.customerId };
  }
  throw new ApiError('ERR_FORBIDDEN');
}

/** Where mailed links point: the system mail settings' console address, else `origin` (the caller's console). */
async function linkBase(deps: CoreDeps, origin: string | null): Promise<string | null> {
  const configured = await consoleUrl(deps);
  return configured !== '' ? configured : origin;
}

/**
 * Mails an invitation link (`<console>/register?token=…`, 72 h, single use) through the admin's
 * MSP's mail settings (or the system's).
 * @returns false when no mail settings apply, no console address is known or the server refused
 */
async function mailInvitation(deps: CoreDeps, admin: AdminForToken, token: string, origin: string | null) {
  const base = await linkBase(deps, origin);
  if (base === null) return false;
  const link = `${base}/register?token=${token}`;
  try {
    const title = await interfaceTitle(deps.handle.db, admin.msp_id);
    await sendMail(
      deps,
      { mspId: admin.msp_id },
      {
        to: admin.email,
        subject: `You are invited to ${title}`,
        text: `Hello ${admin.full_name},\n\nyou have been added as an administrator of ${title}. Choose your password here (the link works once, for 72 hours):\n\n${link}\n`,
      },
    );
    return true;
  } catch {
    return false;
  }
}

/**
 * `POST /admin/` (spec-notes §7 "Admins"): adds an admin at the place {@link placement} decides, with no
 * password yet (`pending`), and mails it an invitation to `POST /auth/adminregister/`. Audit
 * `admin.create`. The mail goes out after commit; `invitation_sent` false means it did not (no mail
 * settings, or the server refused) and `POST /admin/{id}/invite` can send it again.
 * @param origin the caller's console address (`scheme://host`), used when no console address is configured
 * @throws ApiError as {@link placement}; ERR_CONFLICT when the e-mail is in use (its text depends on who asks)
 */
export async function createInvitedAdmin(
  deps: CoreDeps,
  caller: Caller,
  body: AdminCreate,
  origin: string | null,
): Promise<Admin & { invitation_sent: boolean }> {
  const conflict = () => adminEmailConflict(caller, 'email');
  const at = nowIso(deps.now());
  const { admin, token } = await mutate(
    deps,
    caller,
    { topics: [], audit: { action: 'admin.create', entity: 'admin' }, conflict },
    async (trx, note) => {
      const place = await placement(trx, caller, body);
      if (await emailTaken(trx, body.email)) throw conflict();
      const id = await insertAdmin(
        trx,
        {
          email: body.email,
          full_name: body.full_name,
          password_hash: PENDING_PASSWORD,
          role: place.role,
          msp_id: place.mspId,
          customer_id: place.customerId,
          is_default: false,
        },
        at,
      );
      const created = await managedAdmin(trx, caller, id);
      Object.assign(note, {
        entityId: id,
        mspId: place.mspId,
        customerId: place.customerId,
        after: adminAuditView(created),
      });
      return { admin: created, token: await issueLinkToken(trx, id, 'invite', deps.now(), at) };
    },
  );
  const sent = await mailInvitation(deps, admin, token, origin);
  return { ...toAdmin(admin), invitation_sent: sent };
}

/**
 * `POST /admin/{id}/invite`: a new invitation link for a pending admin (the older one stops working).
 * @throws ApiError ERR_NOT_FOUND for an admin the caller does not manage; ERR_CONFLICT when it has
 *   registered already; ERR_UNPROCESSABLE when the mail could not be sent
 */
export async function resendInvitation(
  deps: CoreDeps,
  caller: Caller,
  id: number,
  origin: string | null,
): Promise<{ invitation_sent: true }> {
  const db = deps.handle.db;
  const admin = await managedAdmin(db, caller, id);
  if (admin.password_hash !== PENDING_PASSWORD) {
    throw new ApiError('ERR_CONFLICT', 'This administrator has already completed the registration.');
  }
  const token = await issueLinkToken(db, id, 'invite', deps.now(), nowIso(deps.now()));
  if (!(await mailInvitation(deps, admin, token, origin))) {
    throw new ApiError(
      'ERR_UNPROCESSABLE',
      'The invitation could not be sent: check the mail settings and the console address.',
    );
  }
  return { invitation_sent: true };
}

/**
 * `PUT /admin/{id}`: name, e-mail and role within the caller's rights (docs/security.md "Accounts"):
 * no admin moves to another tenant; nobody changes its own role; the primary (`is_default`) admin is
 * never demoted; only a system admin changes a role, and only between system (1) and sales (2). A
 * role change refuses the admin's existing tokens at once. Audit `admin.update`.
 * @throws ApiError ERR_NOT_FOUND (not managed), ERR_FORBIDDEN (the rules above), ERR_VALIDATION
 *   (a role of another level), ERR_CONFLICT (e-mail in use)
 */
export async function updateAdmin(deps: CoreDeps, caller: Caller, id: number, body: AdminUpdate): Promise<Admin> {
  const conflict = () => adminEmailConflict(caller, 'email');
  return mutate(
    deps,
    caller,
    { topics: [], audit: { action: 'admin.update', entity: 'admin' }, conflict },
    async (trx, note) => {
      const before = await managedAdmin(trx, caller, id);
      if (body.msp_id !== undefined && body.msp_id !== before.msp_id) {
        throw forbidden('An administrator cannot be moved to another MSP.');
      }
      if (body.user_id !== undefined && body.user_id !== before.customer_id) {
        throw forbidden('An administrator cannot be moved to another customer.');
      }
      if (body.is_default !== undefined && body.is_default !== (before.is_default === 1)) {
        throw forbidden('The primary administrator cannot be changed.');
      }
      const roleChange = body.role !== undefined && body.role !== before.role;
      if (roleChange) {
        if (before.id === caller.adminId) throw forbidden('An administrator cannot change its own role.');
        if (before.is_default === 1) throw forbidden('The primary administrator cannot be demoted.');
        if (caller.role !== Role.System) throw forbidden('Only a system administrator changes roles.');
        const levels: number[] = [Role.System, Role.Sales];
        if (!levels.includes(before.role) || !levels.includes(body.role as number)) {
          throw invalidRole('An administrator keeps its level: add a new one at the other level.');
        }
      }
      if (body.email !== undefined && body.email !== before.email && (await emailTaken(trx, body.email))) {
        throw conflict();
      }
      await trx
        .updateTable('admins')
        .set({
          ...(body.email === undefined ? {} : { email: body.email }),
          ...(body.full_name === undefined ? {} : { full_name: body.full_name }),
          ...(roleChange ? { role: body.role as number, token_generation: before.token_generation + 1 } : {}),
          updated_at: nowIso(deps.now()),
        })
        .where('id', '=', id)
        .execute();
      const after = await managedAdmin(trx, caller, id).catch(() => undefined);
      const shown = after ?? (await adminQuery(trx).where('admins.id', '=', id).executeTakeFirstOrThrow());
      Object.assign(note, {
        entityId: id,
        mspId: before.msp_id,
        customerId: before.customer_id,
        before: adminAuditView(before),
        after: adminAuditView(shown),
      });
      return toAdmin(shown);
    },
  );
}

/**
 * `DELETE /admin/{id}`: deletes an admin the caller manages; its tokens stop working at once (the
 * token check reads the row). Never the primary (`is_default`) admin, never oneself. Audit `admin.delete`.
 * @throws ApiError ERR_NOT_FOUND (not managed); ERR_CONFLICT (primary admin, or oneself)
 */
export async function deleteAdmin(deps: CoreDeps, caller: Caller, id: number): Promise<{ deleted: true }> {
  await mutate(deps, caller, { topics: [], audit: { action: 'admin.delete', entity: 'admin' } }, async (trx, note) => {
    const before = await managedAdmin(trx, caller, id);
    if (before.id === caller.adminId) throw new ApiError('ERR_CONFLICT', 'You cannot delete your own account.');
    if (before.is_default === 1) throw new ApiError('ERR_CONFLICT', 'The primary administrator cannot be deleted.');
    await trx.deleteFrom('admins').where('id', '=', id).execute();
    Object.assign(note, {
      entityId: id,
      mspId: before.msp_id,
      customerId: before.customer_id,
      before: adminAuditView(before),
    });
  });
  return { deleted: true };
}

/** The admin `id` if `caller` manages it (for the 2FA reset). @throws ApiError ERR_NOT_FOUND otherwise */
export function managedAdminById(db: Kysely<Database>, caller: Caller, id: number): Promise<AdminForToken> {
  return managedAdmin(db, caller, id);
}
