import { randomUUID } from 'node:crypto';
import { nowIso } from '@cordon/db';
import {
  ApiError,
  type ConfirmNameQuery,
  type Customer,
  type CustomerCreate,
  type CustomerListQuery,
  type CustomerUpdate,
  type DependantsResponse,
  Messages,
  type MspAccount,
  Role,
} from '@cordon/shared';
import { sql } from 'kysely';
import { adminEmailConflict, createPrimaryAdmin, hashPassword } from '../admins/index.ts';
import type { Caller, CoreDeps } from '../context.ts';
import { inUse, inUseError } from '../dependants/index.ts';
import { mutate } from '../mutation/index.ts';
import { createDefaultPolicy } from '../policies/index.ts';
import { EVERYTHING, mspVisible, scopeOf } from '../tenancy/index.ts';
import * as repo from './repository.ts';

const nameTaken = () =>
  new ApiError('ERR_CONFLICT', 'A customer with this name already exists.', {
    accountName: 'A customer with this name already exists.',
  });

/**
 * The refusal of a customer beyond the MSP's licence (issue 11: "an MSP cannot create customers
 * beyond its licence, with a clear message"): 409, on the `accountName` field of the form.
 */
export const licenceExceeded = (limit: number) => {
  const message = `The MSP's licence allows ${limit} customer${limit === 1 ? '' : 's'}, and all are in use. Delete a customer or raise the licence first.`;
  return new ApiError('ERR_CONFLICT', message, { accountName: message });
};

/**
 * The MSP a call about customers acts on: role 1 names it (optional for lists), role 3 is held to its own.
 * @throws ApiError ERR_NOT_FOUND for an MSP that is missing or not the caller's
 */
async function mspFor(deps: CoreDeps, caller: Caller, mspId: number | undefined): Promise<number | undefined> {
  if (caller.role === Role.Msp) {
    if (mspId !== undefined && mspId !== caller.mspId) throw new ApiError('ERR_NOT_FOUND');
    return caller.mspId ?? undefined;
  }
  if (mspId !== undefined && !(await mspVisible(deps.handle.db, scopeOf(caller), caller.role, mspId))) {
    throw new ApiError('ERR_NOT_FOUND');
  }
  return mspId;
}

/**
 * `GET /users/`: role 1 all or one MSP's; role 2 (sales, read-only: spec-notes §2 "sales MSP id") one
 * MSP's, `msp_id` required; role 3 its MSP's; role 4 itself.
 * @throws ApiError ERR_VALIDATION (sales without msp_id), ERR_NOT_FOUND (an MSP not visible)
 */
export async function listCustomers(
  deps: CoreDeps,
  caller: Caller,
  query: CustomerListQuery,
): Promise<{ data: Customer[]; total: number }> {
  if (caller.role === Role.Sales) {
    if (query.msp_id === undefined)
      throw new ApiError('ERR_VALIDATION', Messages.required, { msp_id: Messages.required });
    if (!(await mspVisible(deps.handle.db, scopeOf(caller), caller.role, query.msp_id))) {
      throw new ApiError('ERR_NOT_FOUND');
    }
    // Sales sees every MSP (mspInScope); its customers are read in the whole deployment, filtered by that MSP.
    return repo.listCustomers(deps.handle.db, EVERYTHING, query);
  }
  if (caller.role === Role.Customer) {
    // A customer admin lists itself; naming another MSP is "not found" like any foreign id.
    if (query.msp_id !== undefined && query.msp_id !== caller.mspId) throw new ApiError('ERR_NOT_FOUND');
    return repo.listCustomers(deps.handle.db, scopeOf(caller), { ...query, msp_id: undefined });
  }
  const mspId = await mspFor(deps, caller, query.msp_id);
  return repo.listCustomers(deps.handle.db, scopeOf(caller), { ...query, msp_id: mspId });
}

/**
 * `GET /users/{id}`.
 * @throws ApiError ERR_NOT_FOUND when missing or not visible
 */
export async function getCustomer(deps: CoreDeps, caller: Caller, id: number): Promise<Customer> {
  const customer = await repo.getCustomer(deps.handle.db, scopeOf(caller), id);
  if (!customer) throw new ApiError('ERR_NOT_FOUND');
  return customer;
}

/**
 * `POST /users/` (roles 1, 3): creates the customer with a fresh `uuid_str`, its default policy
 * 'Default' copied from the MSP's global default policy (else the system's), at `default_level`
 * when given (categories from the current levels: spec-notes §4), and an optional
 * role-4 primary admin, in one mutation (audit `customer.create`); publishes `tenants` and
 * `policies` after commit.
 * @throws ApiError ERR_VALIDATION (msp_id missing for role 1; admin e-mail without password),
 *   ERR_NOT_FOUND (MSP not visible), ERR_CONFLICT (name or admin e-mail taken; see `adminEmailConflict`;
 *   or the MSP's licence, a whole number, is used up: {@link licenceExceeded})
 */
export async function createCustomer(deps: CoreDeps, caller: Caller, body: CustomerCreate): Promise<Customer> {
  const mspId = await mspFor(deps, caller, body.msp_id);
  if (mspId === undefined) throw new ApiError('ERR_VALIDATION', Messages.required, { msp_id: Messages.required });
  if ((body.admin_email === undefined) !== (body.admin_password === undefined)) {
    const field = body.admin_email === undefined ? 'admin_email' : 'admin_password';
    throw new ApiError('ERR_VALIDATION', Messages.required, { [field]: Messages.required });
  }
  const at = nowIso(deps.now());
  const passwordHash = body.admin_password ? await hashPassword(body.admin_password) : undefined;
  const id = await mutate(
    deps,
    caller,
    { topics: ['tenants', 'policies'], audit: { action: 'customer.create', entity: 'customer' } },
    async (trx, note) => {
      if (await repo.customerNameTaken(trx, mspId, body.accountName)) throw nameTaken();
      const licence = await repo.licenceUse(trx, mspId);
      if (licence.limit !== null && licence.used >= licence.limit) throw licenceExceeded(licence.limit);
      const fields = { msp_id: mspId, account_name: body.accountName, uuid_str: randomUUID(), timezone: body.timezone };
      const customerId = await repo.insertCustomer(trx, fields, at);
      const defaultPolicyId = await createDefaultPolicy(trx, customerId, mspId, at, body.default_level);
      let admin: unknown = null;
      if (body.admin_email && passwordHash) {
        admin = await createPrimaryAdmin(
          trx,
          {
            email: body.admin_email,
            full_name: body.admin_name ?? body.admin_email,
            password_hash: passwordHash,
            role: Role.Customer,
            msp_id: mspId,
            customer_id: customerId,
          },
          () => adminEmailConflict(caller),
          at,
        );
      }
      note.entityId = customerId;
      note.mspId = mspId;
      note.customerId = customerId;
      note.after = {
        id: customerId,
        ...fields,
        default_level: body.default_level,
        default_policy_id: defaultPolicyId,
        admin,
      };
      return customerId;
    },
  );
  return getCustomer(deps, caller, id);
}

/**
 * `POST /users/{id}` (an update: spec-notes §7): account name and time zone. Audit `customer.update`
 * with the customer before and after; publishes `tenants`.
 * @throws ApiError ERR_NOT_FOUND, ERR_CONFLICT for a name taken within the MSP
 */
export async function updateCustomer(
  deps: CoreDeps,
  caller: Caller,
  id: number,
  body: CustomerUpdate,
): Promise<Customer> {
  const scope = scopeOf(caller);
  const current = await getCustomer(deps, caller, id);
  const patch: { account_name?: string; timezone?: string } = {};
  if (body.accountName !== undefined) patch.account_name = body.accountName;
  if (body.timezone !== undefined) patch.timezone = body.timezone;
  await mutate(
    deps,
    caller,
    { topics: ['tenants'], audit: { action: 'customer.update', entity: 'customer' }, conflict: nameTaken },
    async (trx, note) => {
      if (body.accountName !== undefined && (await repo.customerNameTaken(trx, current.msp_id, body.accountName, id))) {
        throw nameTaken();
      }
      if (!(await repo.updateCustomer(trx, scope, id, patch, nowIso(deps.now())))) {
        throw new ApiError('ERR_NOT_FOUND');
      }
      note.entityId = id;
      note.mspId = current.msp_id;
      note.customerId = id;
      note.before = current;
      note.after = await repo.getCustomer(trx, scope, id);
    },
  );
  return getCustomer(deps, caller, id);
}

/** The field error of a cascading delete whose `confirm_name` is not the name. */
const confirmNameMismatch = () => {
  const message = 'Type the exact name to confirm.';
  return new ApiError('ERR_VALIDATION', message, { confirm_name: message });
};

/**
 * `GET /users/{id}/dependants` (docs/api.md "Deletes of things in use"): what a delete of the
 * customer takes with it, with `in_use` true when the DELETE needs `confirm_name`.
 * @throws ApiError ERR_NOT_FOUND
 */
export async function customerDependants(deps: CoreDeps, caller: Caller, id: number): Promise<DependantsResponse> {
  await getCustomer(deps, caller, id);
  const dependants = await repo.customerDependants(deps.handle.db, scopeOf(caller), id);
  return { in_use: inUse(dependants), dependants };
}

/**
 * `DELETE /users/{id}[?confirm_name=]` (roles 1, 3): the customer with its policies, locations,
 * devices, groups, users and admins (docs/api.md "Deletes of things in use"; issue 29). A customer
 * owning anything besides its default policy is refused with 409 ERR_IN_USE (the counts and first
 * names) unless `confirm_name` is its account name exactly. Audit `customer.delete` with the customer
 * before (after: what went with it); publishes `tenants`, `policies` and `locations`.
 * @throws ApiError ERR_NOT_FOUND; ERR_VALIDATION (`confirm_name` not the name); InUseError
 */
export async function deleteCustomer(
  deps: CoreDeps,
  caller: Caller,
  id: number,
  query: ConfirmNameQuery = {},
): Promise<{ deleted: true }> {
  const scope = scopeOf(caller);
  await mutate(
    deps,
    caller,
    { topics: ['tenants', 'policies', 'locations'], audit: { action: 'customer.delete', entity: 'customer' } },
    async (trx, note) => {
      const before = await repo.getCustomer(trx, scope, id);
      if (!before) throw new ApiError('ERR_NOT_FOUND');
      if (query.confirm_name !== undefined && query.confirm_name !== before.accountName) throw confirmNameMismatch();
      const dependants = await repo.customerDependants(trx, scope, id);
      if (inUse(dependants) && query.confirm_name === undefined) {
        throw inUseError(
          before.accountName,
          dependants,
          'Everything it owns goes with it: confirm with its name (confirm_name).',
        );
      }
      if (!(await repo.deleteCustomer(trx, scope, id))) throw new ApiError('ERR_NOT_FOUND');
      note.entityId = id;
      note.mspId = before.msp_id;
      note.customerId = id;
      note.before = before;
      if (inUse(dependants)) note.after = { deleted_with: dependants };
    },
  );
  return { deleted: true };
}

/**
 * `GET /users/{id}/all` (roles 1 and 3; `id` is an MSP): the MSP's account name and every one of
 * its customers by name, unpaged (spec-notes §3 "allCustomers").
 * @throws ApiError ERR_NOT_FOUND for an MSP that is missing or not the caller's
 */
export async function mspAccount(deps: CoreDeps, caller: Caller, mspId: number): Promise<MspAccount> {
  const scope = scopeOf(caller);
  if (!(await mspVisible(deps.handle.db, scope, caller.role, mspId))) throw new ApiError('ERR_NOT_FOUND');
  const msp = await deps.handle.db
    .selectFrom('msps')
    .select(['id', 'name'])
    .where('id', '=', mspId)
    .executeTakeFirstOrThrow();
  const customers = await deps.handle.db
    .selectFrom('customers')
    .select(['id', 'account_name', 'uuid_str', 'timezone'])
    .where('msp_id', '=', mspId)
    .orderBy(sql`lower(account_name)`)
    .orderBy('id')
    .execute();
  return {
    id: msp.id,
    accountName: msp.name,
    allCustomers: customers.map((c) => ({
      id: c.id,
      accountName: c.account_name,
      uuid_str: c.uuid_str,
      timezone: c.timezone,
    })),
  };
}
