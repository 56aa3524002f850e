import { nowIso } from '@cordon/db';
import { ApiError, type ListQuery, type Msp, type MspCreate, type MspUpdate, Role } from '@cordon/shared';
import { isUniqueViolation } from '../../lib/db-errors.ts';
import { scopeOf } from '../../lib/scope.ts';
import type { AppDeps, Tenant } from '../../types.ts';
import { emailTaken, insertAdmin } from '../auth/repository.ts';
import { hashPassword } from '../auth/service.ts';
import * as repo from './repository.ts';

/**
 * The 409 for an MSP name in use. MSP names are unique across the deployment, so only a system admin
 * is told another MSP has it; an MSP admin renaming its own MSP gets a text naming no other tenant
 * (issue 5: no cross-tenant data in 409 answers).
 */
const nameTaken = (tenant: Pick<Tenant, 'role'>) => {
  const message = tenant.role === Role.System ? 'An MSP with this name already exists.' : 'This name cannot be used.';
  return new ApiError('ERR_CONFLICT', message, { name: message });
};
const emailInUse = () =>
  new ApiError('ERR_CONFLICT', 'This email address is already in use.', {
    admin_email: 'This email address is already in use.',
  });

/** `GET /msp`: the MSPs the caller may list (roles 1, 2). */
export function listMsps(deps: AppDeps, tenant: Tenant, query: ListQuery): Promise<{ data: Msp[]; total: number }> {
  return repo.listMsps(deps.handle.db, scopeOf(tenant), tenant.role, query);
}

/**
 * `GET /msp/{id}`.
 * @throws ApiError ERR_NOT_FOUND when missing or not visible
 */
export async function getMsp(deps: AppDeps, tenant: Tenant, id: number): Promise<Msp> {
  const msp = await repo.getMsp(deps.handle.db, scopeOf(tenant), tenant.role, id);
  if (!msp) throw new ApiError('ERR_NOT_FOUND');
  return msp;
}

/**
 * `POST /msp` (role 1): creates the MSP and, with `admin_email`/`admin_password`, its primary
 * (`is_default`) role-3 admin, in one transaction; publishes `tenants` after commit.
 * @throws ApiError ERR_CONFLICT (409) for a taken MSP name or admin e-mail
 */
export async function createMsp(deps: AppDeps, tenant: Tenant, body: MspCreate): Promise<Msp> {
  const at = nowIso(deps.now());
  const passwordHash = body.admin_password ? await hashPassword(body.admin_password) : undefined;
  const id = await deps.handle.db
    .transaction()
    .execute(async (trx) => {
      if (await repo.mspNameTaken(trx, body.name)) throw nameTaken(tenant);
      const mspId = await repo.insertMsp(
        trx,
        { name: body.name, company_name: body.company_name, license: body.license, timezone: body.timezone },
        at,
      );
      if (body.admin_email && passwordHash) {
        if (await emailTaken(trx, body.admin_email)) throw emailInUse();
        await insertAdmin(
          trx,
          {
            email: body.admin_email,
            full_name: body.admin_name ?? body.admin_email,
            password_hash: passwordHash,
            role: Role.Msp,
            msp_id: mspId,
            customer_id: null,
            is_default: true,
          },
          at,
        );
      }
      return mspId;
    })
    .catch((e: unknown) => {
      // A concurrent insert of the same name or e-mail loses the race on the unique index.
      throw isUniqueViolation(e) ? new ApiError('ERR_CONFLICT') : e;
    });
  await deps.changes.publish('tenants');
  return getMsp(deps, tenant, id);
}

/**
 * `PUT /msp/{id}` (role 1; role 3 its own MSP, without the license).
 * @throws ApiError ERR_NOT_FOUND, ERR_CONFLICT for a taken name, ERR_VALIDATION when an MSP admin edits the license
 */
export async function updateMsp(deps: AppDeps, tenant: Tenant, id: number, body: MspUpdate): Promise<Msp> {
  if (tenant.role !== Role.System && body.license !== undefined) {
    const current = await getMsp(deps, tenant, id);
    if (current.license !== body.license) {
      const message = 'Only a system administrator can change the license.';
      throw new ApiError('ERR_VALIDATION', message, { license: message });
    }
  }
  const patch = Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined));
  await deps.handle.db
    .transaction()
    .execute(async (trx) => {
      if (body.name !== undefined && (await repo.mspNameTaken(trx, body.name, id))) throw nameTaken(tenant);
      if (!(await repo.updateMsp(trx, scopeOf(tenant), tenant.role, id, patch, nowIso(deps.now())))) {
        throw new ApiError('ERR_NOT_FOUND');
      }
    })
    .catch((e: unknown) => {
      throw isUniqueViolation(e) ? nameTaken(tenant) : e;
    });
  await deps.changes.publish('tenants');
  return getMsp(deps, tenant, id);
}

/**
 * `DELETE /msp/{id}` (role 1): removes the MSP and everything under it; publishes all tenant topics.
 * @throws ApiError ERR_NOT_FOUND
 */
export async function deleteMsp(deps: AppDeps, tenant: Tenant, id: number): Promise<{ deleted: true }> {
  const deleted = await deps.handle.db
    .transaction()
    .execute((trx) => repo.deleteMsp(trx, scopeOf(tenant), tenant.role, id));
  if (!deleted) throw new ApiError('ERR_NOT_FOUND');
  // Its customers' policies and locations went with it: the resolver reloads all three.
  for (const topic of ['tenants', 'policies', 'locations'] as const) await deps.changes.publish(topic);
  return { deleted: true };
}
