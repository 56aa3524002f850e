import { nowIso } from '@cordon/db';
import {
  ApiError,
  type ConfirmNameQuery,
  type DependantsResponse,
  type ListQuery,
  type Msp,
  type MspCreate,
  type MspUpdate,
  Role,
  Texts,
} from '@cordon/shared';
import { createPrimaryAdmin, hashPassword } from '../admins/index.ts';
import type { Caller, CoreDeps } from '../context.ts';
import { inUse, inUseError } from '../dependants/index.ts';
import { mutate } from '../mutation/index.ts';
import { createMspDefaultPolicy } from '../policies/index.ts';
import { scopeOf } from '../tenancy/index.ts';
import * as repo from './repository.ts';

/**
 * The 409 for an MSP name in use. MSP names are unique across the deployment, so only a system admin
 * is told another MSP has it; an MSP admin renaming its own MSP gets a text naming no other tenant
 * (docs/security.md: no cross-tenant data in 409 answers).
 */
const nameTaken = (caller: Pick<Caller, 'role'>) => {
  const message = caller.role === Role.System ? 'An MSP with this name already exists.' : 'This name cannot be used.';
  return new ApiError('ERR_CONFLICT', message, { name: message });
};
const emailInUse = () => new ApiError('ERR_CONFLICT', Texts.emailInUse, { admin_email: Texts.emailInUse });

/** `GET /msp`: the MSPs the caller may list (roles 1, 2). */
export function listMsps(deps: CoreDeps, caller: Caller, query: ListQuery): Promise<{ data: Msp[]; total: number }> {
  return repo.listMsps(deps.handle.db, scopeOf(caller), caller.role, query);
}

/**
 * `GET /msp/{id}`.
 * @throws ApiError ERR_NOT_FOUND when missing or not visible
 */
export async function getMsp(deps: CoreDeps, caller: Caller, id: number): Promise<Msp> {
  const msp = await repo.getMsp(deps.handle.db, scopeOf(caller), caller.role, id);
  if (!msp) throw new ApiError('ERR_NOT_FOUND');
  return msp;
}

/**
 * `POST /msp` (role 1): creates the MSP and, with `admin_email`/`admin_password`, its primary
 * (`is_default`) role-3 admin and its global default policy (a copy of the system's), in one mutation
 * (audit `msp.create`); publishes `tenants` after commit.
 * @throws ApiError ERR_CONFLICT (409) for a taken MSP name or admin e-mail
 */
export async function createMsp(deps: CoreDeps, caller: Caller, body: MspCreate): Promise<Msp> {
  const at = nowIso(deps.now());
  const passwordHash = body.admin_password ? await hashPassword(body.admin_password) : undefined;
  const id = await mutate(
    deps,
    caller,
    // A concurrent insert of the same name or e-mail loses the race on the unique index.
    { topics: ['tenants'], audit: { action: 'msp.create', entity: 'msp' } },
    async (trx, note) => {
      if (await repo.mspNameTaken(trx, body.name)) throw nameTaken(caller);
      const fields = {
        name: body.name,
        company_name: body.company_name,
        license: body.license,
        timezone: body.timezone,
      };
      const mspId = await repo.insertMsp(trx, fields, at);
      const defaultPolicyId = await createMspDefaultPolicy(trx, mspId, at);
      let admin: unknown = null;
      if (body.admin_email && passwordHash) {
        admin = await createPrimaryAdmin(
          trx,
          {
            email: body.admin_email,
            full_name: body.admin_name ?? body.admin_email,
            password_hash: passwordHash,
            role: Role.Msp,
            msp_id: mspId,
            customer_id: null,
          },
          emailInUse,
          at,
        );
      }
      note.entityId = mspId;
      note.mspId = mspId;
      note.after = { id: mspId, ...fields, default_policy_id: defaultPolicyId, admin };
      return mspId;
    },
  );
  return getMsp(deps, caller, id);
}

/**
 * `PUT /msp/{id}` (role 1; role 3 its own MSP, without the license). Audit `msp.update` with the
 * MSP before and after; publishes `tenants`.
 * @throws ApiError ERR_NOT_FOUND, ERR_CONFLICT for a taken name, ERR_VALIDATION when an MSP admin edits the license
 */
export async function updateMsp(deps: CoreDeps, caller: Caller, id: number, body: MspUpdate): Promise<Msp> {
  if (caller.role !== Role.System && body.license !== undefined) {
    const current = await getMsp(deps, caller, id);
    if (current.license !== body.license) {
      const message = 'Only a system administrator can change the license.';
      throw new ApiError('ERR_VALIDATION', message, { license: message });
    }
  }
  const patch = Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined));
  const scope = scopeOf(caller);
  await mutate(
    deps,
    caller,
    { topics: ['tenants'], audit: { action: 'msp.update', entity: 'msp' }, conflict: () => nameTaken(caller) },
    async (trx, note) => {
      const before = await repo.getMsp(trx, scope, caller.role, id);
      if (!before) throw new ApiError('ERR_NOT_FOUND');
      if (body.name !== undefined && (await repo.mspNameTaken(trx, body.name, id))) throw nameTaken(caller);
      if (!(await repo.updateMsp(trx, scope, caller.role, id, patch, nowIso(deps.now())))) {
        throw new ApiError('ERR_NOT_FOUND');
      }
      note.entityId = id;
      note.mspId = id;
      note.before = before;
      note.after = await repo.getMsp(trx, scope, caller.role, id);
    },
  );
  return getMsp(deps, caller, id);
}

/**
 * `GET /msp/{id}/dependants` (docs/api.md "Deletes of things in use"): the customers and admins a
 * delete of the MSP takes with it, with `in_use` true when the DELETE needs `confirm_name`.
 * @throws ApiError ERR_NOT_FOUND
 */
export async function mspDependants(deps: CoreDeps, caller: Caller, id: number): Promise<DependantsResponse> {
  await getMsp(deps, caller, id);
  const dependants = await repo.mspDependants(deps.handle.db, scopeOf(caller), caller.role, id);
  return { in_use: inUse(dependants), dependants };
}

/**
 * `DELETE /msp/{id}[?confirm_name=]` (role 1): removes the MSP and everything under it (docs/api.md
 * "Deletes of things in use"; issue 29). An MSP with customers or admins is refused with 409
 * ERR_IN_USE (their counts and first names) unless `confirm_name` is its name exactly. Audit
 * `msp.delete` with the MSP before (after: what went with it); publishes all tenant topics.
 * @throws ApiError ERR_NOT_FOUND; ERR_VALIDATION (`confirm_name` not the name); InUseError
 */
export async function deleteMsp(
  deps: CoreDeps,
  caller: Caller,
  id: number,
  query: ConfirmNameQuery = {},
): Promise<{ deleted: true }> {
  const scope = scopeOf(caller);
  await mutate(
    deps,
    caller,
    { topics: ['tenants', 'policies', 'locations'], audit: { action: 'msp.delete', entity: 'msp' } },
    async (trx, note) => {
      const before = await repo.getMsp(trx, scope, caller.role, id);
      if (!before) throw new ApiError('ERR_NOT_FOUND');
      if (query.confirm_name !== undefined && query.confirm_name !== before.name) {
        const message = 'Type the exact name to confirm.';
        throw new ApiError('ERR_VALIDATION', message, { confirm_name: message });
      }
      const dependants = await repo.mspDependants(trx, scope, caller.role, id);
      if (inUse(dependants) && query.confirm_name === undefined) {
        throw inUseError(
          before.name,
          dependants,
          'Everything it owns goes with it: confirm with its name (confirm_name).',
        );
      }
      if (!(await repo.deleteMsp(trx, scope, caller.role, id))) throw new ApiError('ERR_NOT_FOUND');
      note.entityId = id;
      note.mspId = id;
      note.before = before;
      if (inUse(dependants)) note.after = { deleted_with: dependants };
    },
  );
  return { deleted: true };
}
