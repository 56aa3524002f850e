import type { Database } from '@cordon/db';
import { nowIso } from '@cordon/db';
import {
  ApiError,
  type ListQuery,
  type Location,
  type LocationType,
  type StaticIpLocationCreate,
  type StaticIpLocationUpdate,
} from '@cordon/shared';
import type { Kysely } from 'kysely';
import { isUniqueViolation } from '../../lib/db-errors.ts';
import { scopeOf, type TenantScope } from '../../lib/scope.ts';
import type { AppDeps, Tenant } from '../../types.ts';
import { policyOfCustomer } from '../policies/repository.ts';
import * as repo from './repository.ts';

const STATIC: LocationType = 'staticip';

/** 409 for addresses another location already uses; names the address, never its owner (DESIGN.md §4). */
function addressConflict(ips: readonly string[], field: string): ApiError {
  const message =
    ips.length === 1
      ? `The address ${ips[0]} is already used by another location.`
      : `The addresses ${ips.join(', ')} are already used by other locations.`;
  return new ApiError('ERR_CONFLICT', message, { [field]: message });
}

/**
 * Checks a location's `policy_id` belongs to the same customer (null = inherit the default).
 * @throws ApiError ERR_VALIDATION (400) with a `policy_id` field error otherwise
 */
async function checkPolicy(db: Kysely<Database>, scope: TenantScope, customerId: number, policyId: number | null) {
  if (policyId === null) return;
  if (!(await policyOfCustomer(db, scope, customerId, policyId))) {
    const message = 'Please select a policy of this customer.';
    throw new ApiError('ERR_VALIDATION', message, { policy_id: message });
  }
}

/** Fails with 409 when any of `ips` is used by a location other than `exceptLocationId`. */
async function checkAddresses(db: Kysely<Database>, ips: readonly string[], field: string, exceptLocationId?: number) {
  const used = await repo.addressesInUse(db, ips, exceptLocationId);
  if (used.length > 0) throw addressConflict(used, field);
}

/** Runs a write; a unique-index violation (a concurrent insert of the same address) becomes 409. */
async function guarded<T>(write: Promise<T>, ips: readonly string[]): Promise<T> {
  try {
    return await write;
  } catch (e) {
    if (isUniqueViolation(e)) throw addressConflict(ips, 'addresses');
    throw e;
  }
}

/** `GET /users/{id}/locations/{type|all}`: the customer's locations (the guard has checked the customer). */
export function listLocations(
  deps: AppDeps,
  tenant: Tenant,
  customerId: number,
  type: LocationType | 'all',
  query: ListQuery,
): Promise<{ data: Location[]; total: number }> {
  return repo.listLocations(deps.handle.db, scopeOf(tenant), customerId, type, query);
}

/**
 * `GET /users/{id}/locations/staticip/{locId}`.
 * @throws ApiError ERR_NOT_FOUND when missing, of another type, or of another customer
 */
export async function getStaticLocation(
  deps: AppDeps,
  tenant: Tenant,
  customerId: number,
  locId: number,
): Promise<Location> {
  const location = await repo.getLocation(deps.handle.db, scopeOf(tenant), customerId, STATIC, locId);
  if (!location) throw new ApiError('ERR_NOT_FOUND');
  return location;
}

/**
 * `POST /users/{id}/locations/staticip`: a static-IP location with its addresses (normalised CIDRs,
 * duplicates folded). Publishes `locations`.
 * @throws ApiError ERR_VALIDATION (policy of another customer), ERR_CONFLICT (address in use anywhere)
 */
export async function createStaticLocation(
  deps: AppDeps,
  tenant: Tenant,
  customerId: number,
  body: StaticIpLocationCreate,
): Promise<Location> {
  const scope = scopeOf(tenant);
  const ips = [...new Set(body.addresses)];
  const id = await guarded(
    deps.handle.db.transaction().execute(async (trx) => {
      await checkPolicy(trx, scope, customerId, body.policy_id);
      await checkAddresses(trx, ips, 'addresses');
      const at = nowIso(deps.now());
      const locId = await repo.insertLocation(
        trx,
        customerId,
        { type: STATIC, name: body.name, policy_id: body.policy_id, key: null },
        at,
      );
      await repo.insertAddresses(trx, customerId, locId, ips, at);
      return locId;
    }),
    ips,
  );
  await deps.changes.publish('locations');
  return getStaticLocation(deps, tenant, customerId, id);
}

/**
 * `POST /users/{id}/locations/staticip/{locId}` (an update): name, policy, and `addresses`, which
 * replaces the set. Publishes `locations`.
 * @throws ApiError ERR_NOT_FOUND, ERR_VALIDATION, ERR_CONFLICT as for creation
 */
export async function updateStaticLocation(
  deps: AppDeps,
  tenant: Tenant,
  customerId: number,
  locId: number,
  body: StaticIpLocationUpdate,
): Promise<Location> {
  const scope = scopeOf(tenant);
  const ips = body.addresses ? [...new Set(body.addresses)] : undefined;
  await guarded(
    deps.handle.db.transaction().execute(async (trx) => {
      if (!(await repo.getLocation(trx, scope, customerId, STATIC, locId))) throw new ApiError('ERR_NOT_FOUND');
      if (body.policy_id !== undefined) await checkPolicy(trx, scope, customerId, body.policy_id);
      const at = nowIso(deps.now());
      const patch: { name?: string; policy_id?: number | null } = {};
      if (body.name !== undefined) patch.name = body.name;
      if (body.policy_id !== undefined) patch.policy_id = body.policy_id;
      await repo.updateLocation(trx, scope, customerId, locId, patch, at);
      if (ips) {
        await checkAddresses(trx, ips, 'addresses', locId);
        await repo.replaceAddresses(trx, customerId, locId, ips, at);
      }
    }),
    ips ?? [],
  );
  await deps.changes.publish('locations');
  return getStaticLocation(deps, tenant, customerId, locId);
}

/**
 * `DELETE /users/{id}/locations/staticip/{locId}`. Publishes `locations`.
 * @throws ApiError ERR_NOT_FOUND
 */
export async function deleteStaticLocation(
  deps: AppDeps,
  tenant: Tenant,
  customerId: number,
  locId: number,
): Promise<{ deleted: true }> {
  await getStaticLocation(deps, tenant, customerId, locId);
  const deleted = await deps.handle.db
    .transaction()
    .execute((trx) => repo.deleteLocation(trx, scopeOf(tenant), customerId, locId));
  if (!deleted) throw new ApiError('ERR_NOT_FOUND');
  await deps.changes.publish('locations');
  return { deleted: true };
}

/** `GET /users/{id}/locations/staticip/{locId}/addresses`: `{ data, total }` of `{ id, ip }`. */
export async function listAddresses(
  deps: AppDeps,
  tenant: Tenant,
  customerId: number,
  locId: number,
): Promise<{ data: Array<{ id: number; ip: string }>; total: number }> {
  const location = await getStaticLocation(deps, tenant, customerId, locId);
  return { data: location.addresses, total: location.addresses.length };
}

/**
 * `POST /users/{id}/locations/staticip/{locId}/addresses`: adds one address. Publishes `locations`.
 * @throws ApiError ERR_NOT_FOUND, ERR_CONFLICT (in use by any location, this one included)
 */
export async function addAddress(
  deps: AppDeps,
  tenant: Tenant,
  customerId: number,
  locId: number,
  ip: string,
): Promise<{ id: number; ip: string }> {
  const scope = scopeOf(tenant);
  const row = await guarded(
    deps.handle.db.transaction().execute(async (trx) => {
      if (!(await repo.getLocation(trx, scope, customerId, STATIC, locId))) throw new ApiError('ERR_NOT_FOUND');
      await checkAddresses(trx, [ip], 'ip');
      const [inserted] = await repo.insertAddresses(trx, customerId, locId, [ip], nowIso(deps.now()));
      return inserted!;
    }),
    [ip],
  );
  await deps.changes.publish('locations');
  return row;
}

/**
 * `DELETE /users/{id}/locations/staticip/{locId}/addresses/{addrId}`. A static-IP location keeps at
 * least one address (it is how queries find the customer). Publishes `locations`.
 * @throws ApiError ERR_NOT_FOUND; ERR_CONFLICT for the last address
 */
export async function deleteAddress(
  deps: AppDeps,
  tenant: Tenant,
  customerId: number,
  locId: number,
  addrId: number,
): Promise<{ deleted: true }> {
  const scope = scopeOf(tenant);
  await deps.handle.db.transaction().execute(async (trx) => {
    const location = await repo.getLocation(trx, scope, customerId, STATIC, locId);
    if (!location?.addresses.some((a) => a.id === addrId)) throw new ApiError('ERR_NOT_FOUND');
    if (location.addresses.length === 1) {
      throw new ApiError('ERR_CONFLICT', 'A static IP location must keep at least one address.');
    }
    if (!(await repo.deleteAddress(trx, scope, customerId, locId, addrId))) throw new ApiError('ERR_NOT_FOUND');
  });
  await deps.changes.publish('locations');
  return { deleted: true };
}
