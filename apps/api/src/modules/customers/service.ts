import { randomUUID } from 'node:crypto';
import { nowIso } from '@cordon/db';
import {
  ApiError,
  type Customer,
  type CustomerCreate,
  type CustomerListQuery,
  type CustomerUpdate,
  categoriesBlockedAt,
  Messages,
  Role,
} from '@cordon/shared';
import { isUniqueViolation } from '../../lib/db-errors.ts';
import { scopeOf } from '../../lib/scope.ts';
import type { AppDeps, Tenant } from '../../types.ts';
import { emailTaken, insertAdmin } from '../auth/repository.ts';
import { hashPassword } from '../auth/service.ts';
import { mspVisible } from '../msps/repository.ts';
import { categoryRows, insertPolicy, setBlockedCategories } from '../policies/repository.ts';
import * as repo from './repository.ts';

const nameTaken = () =>
  new ApiError('ERR_CONFLICT', 'A customer with this name already exists.', {
    accountName: 'A customer with this name already exists.',
  });

/**
 * The 409 for an admin e-mail already used by some admin. E-mails are unique across all tenants, so
 * only a system admin (who sees every tenant) is told it is in use; an MSP admin gets a text that does
 * not confirm another tenant's admin exists (issue 5: no cross-tenant data in 409 answers).
 */
export function adminEmailConflict(tenant: Pick<Tenant, 'role'>): ApiError {
  const message =
    tenant.role === Role.System ? 'This email address is already in use.' : 'This email address cannot be used.';
  return new ApiError('ERR_CONFLICT', message, { admin_email: message });
}

/** The name of every customer's default policy. */
export const DEFAULT_POLICY_NAME = 'Default';

/**
 * The MSP a call about customers acts on: role 1 names it (optional for lists), role 3 is held to its own.
 * @throws ApiError ERR_NOT_FOUND for an MSP that is missing or not the caller's
 */
async function mspFor(deps: AppDeps, tenant: Tenant, mspId: number | undefined): Promise<number | undefined> {
  if (tenant.role === Role.Msp) {
    if (mspId !== undefined && mspId !== tenant.mspId) throw new ApiError('ERR_NOT_FOUND');
    return tenant.mspId ?? undefined;
  }
  if (mspId !== undefined && !(await mspVisible(deps.handle.db, scopeOf(tenant), tenant.role, mspId))) {
    throw new ApiError('ERR_NOT_FOUND');
  }
  return mspId;
}

/** `GET /users/`: role 1 all or one MSP's; role 3 its MSP's; role 4 itself. */
export async function listCustomers(
  deps: AppDeps,
  tenant: Tenant,
  query: CustomerListQuery,
): Promise<{ data: Customer[]; total: number }> {
  if (tenant.role === Role.Customer) {
    // A customer admin lists itself; naming another MSP is "not found" like any foreign id.
    if (query.msp_id !== undefined && query.msp_id !== tenant.mspId) throw new ApiError('ERR_NOT_FOUND');
    return repo.listCustomers(deps.handle.db, scopeOf(tenant), { ...query, msp_id: undefined });
  }
  const mspId = await mspFor(deps, tenant, query.msp_id);
  return repo.listCustomers(deps.handle.db, scopeOf(tenant), { ...query, msp_id: mspId });
}

/**
 * `GET /users/{id}`.
 * @throws ApiError ERR_NOT_FOUND when missing or not visible
 */
export async function getCustomer(deps: AppDeps, tenant: Tenant, id: number): Promise<Customer> {
  const customer = await repo.getCustomer(deps.handle.db, scopeOf(tenant), id);
  if (!customer) throw new ApiError('ERR_NOT_FOUND');
  return customer;
}

/**
 * `POST /users/` (roles 1, 3): creates the customer with a fresh `uuid_str`, its default policy
 * 'Default' at `default_level` (categories from the current levels: spec §4), and an optional
 * role-4 admin, in one transaction; publishes `tenants` and `policies` after commit.
 * @throws ApiError ERR_VALIDATION (msp_id missing for role 1; admin e-mail without password),
 *   ERR_NOT_FOUND (MSP not visible), ERR_CONFLICT (name or admin e-mail taken; see {@link adminEmailConflict})
 */
export async function createCustomer(deps: AppDeps, tenant: Tenant, body: CustomerCreate): Promise<Customer> {
  const mspId = await mspFor(deps, tenant, body.msp_id);
  if (mspId === undefined) throw new ApiError('ERR_VALIDATION', Messages.required, { msp_id: Messages.required });
  if ((body.admin_email === undefined) !== (body.admin_password === undefined)) {
    const field = body.admin_email === undefined ? 'admin_email' : 'admin_password';
    throw new ApiError('ERR_VALIDATION', Messages.required, { [field]: Messages.required });
  }
  const at = nowIso(deps.now());
  const passwordHash = body.admin_password ? await hashPassword(body.admin_password) : undefined;
  const id = await deps.handle.db
    .transaction()
    .execute(async (trx) => {
      if (await repo.customerNameTaken(trx, mspId, body.accountName)) throw nameTaken();
      const customerId = await repo.insertCustomer(
        trx,
        { msp_id: mspId, account_name: body.accountName, uuid_str: randomUUID(), timezone: body.timezone },
        at,
      );
      const policyId = await insertPolicy(
        trx,
        customerId,
        {
          name: DEFAULT_POLICY_NAME,
          description: '',
          level: body.default_level,
          is_default: true,
          allow_unclassified: true,
        },
        at,
      );
      await setBlockedCategories(
        trx,
        policyId,
        customerId,
        categoriesBlockedAt(body.default_level, await categoryRows(trx)),
      );
      if (body.admin_email && passwordHash) {
        if (await emailTaken(trx, body.admin_email)) throw adminEmailConflict(tenant);
        await insertAdmin(
          trx,
          {
            email: body.admin_email,
            full_name: body.admin_name ?? body.admin_email,
            password_hash: passwordHash,
            role: Role.Customer,
            msp_id: mspId,
            customer_id: customerId,
            is_default: true,
          },
          at,
        );
      }
      return customerId;
    })
    .catch((e: unknown) => {
      throw isUniqueViolation(e) ? new ApiError('ERR_CONFLICT') : e;
    });
  await deps.changes.publish('tenants');
  await deps.changes.publish('policies');
  return getCustomer(deps, tenant, id);
}

/**
 * `POST /users/{id}` (an update: spec §7): account name and time zone.
 * @throws ApiError ERR_NOT_FOUND, ERR_CONFLICT for a name taken within the MSP
 */
export async function updateCustomer(
  deps: AppDeps,
  tenant: Tenant,
  id: number,
  body: CustomerUpdate,
): Promise<Customer> {
  const current = await getCustomer(deps, tenant, id);
  const patch: { account_name?: string; timezone?: string } = {};
  if (body.accountName !== undefined) patch.account_name = body.accountName;
  if (body.timezone !== undefined) patch.timezone = body.timezone;
  await deps.handle.db
    .transaction()
    .execute(async (trx) => {
      if (body.accountName !== undefined && (await repo.customerNameTaken(trx, current.msp_id, body.accountName, id))) {
        throw nameTaken();
      }
      if (!(await repo.updateCustomer(trx, scopeOf(tenant), id, patch, nowIso(deps.now())))) {
        throw new ApiError('ERR_NOT_FOUND');
      }
    })
    .catch((e: unknown) => {
      throw isUniqueViolation(e) ? nameTaken() : e;
    });
  await deps.changes.publish('tenants');
  return getCustomer(deps, tenant, id);
}

/**
 * `DELETE /users/{id}` (roles 1, 3): the customer with its policies, locations and admins.
 * @throws ApiError ERR_NOT_FOUND
 */
export async function deleteCustomer(deps: AppDeps, tenant: Tenant, id: number): Promise<{ deleted: true }> {
  const deleted = await deps.handle.db.transaction().execute((trx) => repo.deleteCustomer(trx, scopeOf(tenant), id));
  if (!deleted) throw new ApiError('ERR_NOT_FOUND');
  for (const topic of ['tenants', 'policies', 'locations'] as const) await deps.changes.publish(topic);
  return { deleted: true };
}
