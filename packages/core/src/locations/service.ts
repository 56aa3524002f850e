import type { Database } from '@cordon/db';
import { nowIso } from '@cordon/db';
import {
  ApiError,
  type ClaimLimits,
  claimRefusal,
  type ListQuery,
  type Location,
  type LocationType,
  parseCidr,
  Role,
  type StaticIpLocationCreate,
  type StaticIpLocationUpdate,
} from '@cordon/shared';
import type { Kysely } from 'kysely';
import type { Caller, CoreDeps } from '../context.ts';
import { mutate } from '../mutation/index.ts';
import { policyOfCustomer } from '../policies/index.ts';
import { scopeOf, type TenantScope } from '../tenancy/index.ts';
import * as repo from './repository.ts';

/** What location writes need besides the core deps: the operator's address-claim limits (`--claim-*`). */
export interface LocationDeps extends CoreDeps {
  /** What MSP and customer admins may claim as location addresses (docs/security.md "Address claims"). */
  readonly claims: ClaimLimits;
}

const STATIC: LocationType = 'staticip';

/** 409 for addresses another location already uses; names the address, never its owner (docs/security.md). */
function addressConflict(ips: readonly string[], field: string): ApiError {
  const message =
    ips.length === 1
      ? `The address ${ips[0]} is already used by another location.`
      : `The addresses ${ips.join(', ')} are already used by other locations.`;
  return new ApiError('ERR_CONFLICT', message, { [field]: message });
}

/** 409 for addresses overlapping another customer's claim; names the caller's address, never the owner. */
function overlapConflict(ips: readonly string[], field: string): ApiError {
  const message =
    ips.length === 1
      ? `The address ${ips[0]} overlaps an address claimed by another customer.`
      : `The addresses ${ips.join(', ')} overlap addresses claimed by another customer.`;
  return new ApiError('ERR_CONFLICT', message, { [field]: message });
}

/**
 * The claim rules that need no database (docs/security.md "Address claims"): nobody claims a /0 or
 * an IPv6 prefix covering the IPv4-mapped range; MSP and customer admins also stay within the
 * operator's {@link LocationDeps.claims} (width, special-purpose and private ranges). `ips` are canonical.
 * @throws ApiError ERR_VALIDATION (400) with a `field` error naming the first refused address
 */
function checkClaimRules(deps: LocationDeps, caller: Caller, ips: readonly string[], field: string): void {
  const limits = caller.role === Role.System ? null : deps.claims;
  for (const ip of ips) {
    const range = parseCidr(ip);
    const why = range ? claimRefusal(range, limits) : null;
    if (why) throw new ApiError('ERR_VALIDATION', why, { [field]: why });
  }
}

/**
 * The claim rules against other claims, inside the writing transaction and under the claims lock
 * (docs/security.md "Address claims"): an address another location holds is refused for everyone
 * (409, the older claim would win anyway); an address overlapping another customer's claim is
 * refused unless a system admin assigns it. Only `added` (addresses location `exceptLocationId`
 * does not already hold) are checked for overlap, so re-saving a location never fails on an
 * assignment made since.
 * @throws ApiError ERR_CONFLICT (409) naming the caller's addresses, never the other tenant
 */
async function checkClaims(
  trx: Kysely<Database>,
  deps: LocationDeps,
  caller: Caller,
  customerId: number,
  ips: readonly string[],
  added: readonly string[],
  field: string,
  exceptLocationId?: number,
): Promise<void> {
  await repo.lockClaims(trx, deps.handle.dialect);
  await checkAddresses(trx, ips, field, exceptLocationId);
  if (caller.role === Role.System) return;
  const overlapping = await repo.addressesOverlappingOthers(trx, customerId, added);
  if (overlapping.length > 0) throw overlapConflict(overlapping, field);
}

/** Fails with ERR_VALIDATION when `policyId` is set and not a policy of the customer. */
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

/** `GET /users/{id}/locations/{type|all}`: the customer's locations (the guard has checked the customer). */
export function listLocations(
  deps: CoreDeps,
  caller: Caller,
  customerId: number,
  type: LocationType | 'all',
  query: ListQuery,
): Promise<{ data: Location[]; total: number }> {
  return repo.listLocations(deps.handle.db, scopeOf(caller), customerId, type, query);
}

/**
 * `GET /users/{id}/locations/staticip/{locId}`.
 * @throws ApiError ERR_NOT_FOUND when missing, of another type, or of another customer
 */
export async function getStaticLocation(
  deps: CoreDeps,
  caller: Caller,
  customerId: number,
  locId: number,
): Promise<Location> {
  const location = await repo.getLocation(deps.handle.db, scopeOf(caller), customerId, STATIC, locId);
  if (!location) throw new ApiError('ERR_NOT_FOUND');
  return location;
}

/**
 * `POST /users/{id}/locations/staticip`: a static-IP location with its addresses (canonical CIDRs,
 * duplicates folded). Audit `location.create`; publishes `locations`. A concurrent insert of the same
 * address loses on the unique index: 409 as for an address in use.
 * @throws ApiError ERR_VALIDATION (policy of another customer; an address the caller may not claim),
 *   ERR_CONFLICT (address in use anywhere, or overlapping another customer's claim)
 */
export async function createStaticLocation(
  deps: LocationDeps,
  caller: Caller,
  customerId: number,
  body: StaticIpLocationCreate,
): Promise<Location> {
  const scope = scopeOf(caller);
  const ips = [...new Set(body.addresses)];
  checkClaimRules(deps, caller, ips, 'addresses');
  const id = await mutate(
    deps,
    caller,
    {
      topics: ['locations'],
      audit: { action: 'location.create', entity: 'location' },
      conflict: () => addressConflict(ips, 'addresses'),
    },
    async (trx, note) => {
      await checkPolicy(trx, scope, customerId, body.policy_id);
      await checkClaims(trx, deps, caller, customerId, ips, ips, 'addresses');
      const at = nowIso(deps.now());
      const locId = await repo.insertLocation(
        trx,
        customerId,
        { type: STATIC, name: body.name, policy_id: body.policy_id, key: null },
        at,
      );
      await repo.insertAddresses(trx, customerId, locId, ips, at);
      note.entityId = locId;
      note.customerId = customerId;
      note.after = await repo.getLocation(trx, scope, customerId, STATIC, locId);
      return locId;
    },
  );
  return getStaticLocation(deps, caller, customerId, id);
}

/**
 * `POST /users/{id}/locations/staticip/{locId}` (an update): name, policy, and `addresses`, which
 * replaces the set. Audit `location.update` with the location before and after; publishes `locations`.
 * @throws ApiError ERR_NOT_FOUND, ERR_VALIDATION, ERR_CONFLICT as for creation (overlap is checked
 *   for the addresses the location does not already hold)
 */
export async function updateStaticLocation(
  deps: LocationDeps,
  caller: Caller,
  customerId: number,
  locId: number,
  body: StaticIpLocationUpdate,
): Promise<Location> {
  const scope = scopeOf(caller);
  const ips = body.addresses ? [...new Set(body.addresses)] : undefined;
  if (ips) checkClaimRules(deps, caller, ips, 'addresses');
  await mutate(
    deps,
    caller,
    {
      topics: ['locations'],
      audit: { action: 'location.update', entity: 'location' },
      conflict: () => addressConflict(ips ?? [], 'addresses'),
    },
    async (trx, note) => {
      const before = await repo.getLocation(trx, scope, customerId, STATIC, locId);
      if (!before) throw new ApiError('ERR_NOT_FOUND');
      if (body.policy_id !== undefined) await checkPolicy(trx, scope, customerId, body.policy_id);
      const at = nowIso(deps.now());
      const patch: { name?: string; policy_id?: number | null } = {};
      if (body.name !== undefined) patch.name = body.name;
      if (body.policy_id !== undefined) patch.policy_id = body.policy_id;
      await repo.updateLocation(trx, scope, customerId, locId, patch, at);
      if (ips) {
        const held = new Set(await repo.addressesOf(trx, locId));
        const added = ips.filter((ip) => !held.has(ip));
        await checkClaims(trx, deps, caller, customerId, ips, added, 'addresses', locId);
        await repo.replaceAddresses(trx, customerId, locId, ips, at);
      }
      note.entityId = locId;
      note.customerId = customerId;
      note.before = before;
      note.after = await repo.getLocation(trx, scope, customerId, STATIC, locId);
    },
  );
  return getStaticLocation(deps, caller, customerId, locId);
}

/**
 * `DELETE /users/{id}/locations/staticip/{locId}`. Audit `location.delete` with the location
 * before; publishes `locations`.
 * @throws ApiError ERR_NOT_FOUND
 */
export async function deleteStaticLocation(
  deps: CoreDeps,
  caller: Caller,
  customerId: number,
  locId: number,
): Promise<{ deleted: true }> {
  const scope = scopeOf(caller);
  await mutate(
    deps,
    caller,
    { topics: ['locations'], audit: { action: 'location.delete', entity: 'location' } },
    async (trx, note) => {
      const before = await repo.getLocation(trx, scope, customerId, STATIC, locId);
      if (!before || !(await repo.deleteLocation(trx, scope, customerId, locId))) throw new ApiError('ERR_NOT_FOUND');
      note.entityId = locId;
      note.customerId = customerId;
      note.before = before;
    },
  );
  return { deleted: true };
}

/** `GET /users/{id}/locations/staticip/{locId}/addresses`: `{ data, total }` of `{ id, ip }`. */
export async function listAddresses(
  deps: CoreDeps,
  caller: Caller,
  customerId: number,
  locId: number,
): Promise<{ data: Array<{ id: number; ip: string }>; total: number }> {
  const location = await getStaticLocation(deps, caller, customerId, locId);
  return { data: location.addresses, total: location.addresses.length };
}

/**
 * `POST /users/{id}/locations/staticip/{locId}/addresses`: adds one address. Audit
 * `location.address.add` (entity `location_address`); publishes `locations`.
 * @throws ApiError ERR_NOT_FOUND, ERR_VALIDATION (an address the caller may not claim), ERR_CONFLICT
 *   (in use by any location, this one included, or overlapping another customer's claim)
 */
export async function addAddress(
  deps: LocationDeps,
  caller: Caller,
  customerId: number,
  locId: number,
  ip: string,
): Promise<{ id: number; ip: string }> {
  const scope = scopeOf(caller);
  checkClaimRules(deps, caller, [ip], 'ip');
  return mutate(
    deps,
    caller,
    {
      topics: ['locations'],
      audit: { action: 'location.address.add', entity: 'location_address' },
      conflict: () => addressConflict([ip], 'addresses'),
    },
    async (trx, note) => {
      if (!(await repo.getLocation(trx, scope, customerId, STATIC, locId))) throw new ApiError('ERR_NOT_FOUND');
      await checkClaims(trx, deps, caller, customerId, [ip], [ip], 'ip');
      const [inserted] = await repo.insertAddresses(trx, customerId, locId, [ip], nowIso(deps.now()));
      if (!inserted) throw new Error('insert returned no row');
      note.entityId = inserted.id;
      note.customerId = customerId;
      note.after = { location_id: locId, ...inserted };
      return inserted;
    },
  );
}

/**
 * `DELETE /users/{id}/locations/staticip/{locId}/addresses/{addrId}`. A static-IP location keeps at
 * least one address (it is how queries find the customer). Audit `location.address.remove`;
 * publishes `locations`.
 * @throws ApiError ERR_NOT_FOUND; ERR_CONFLICT for the last address
 */
export async function deleteAddress(
  deps: CoreDeps,
  caller: Caller,
  customerId: number,
  locId: number,
  addrId: number,
): Promise<{ deleted: true }> {
  const scope = scopeOf(caller);
  await mutate(
    deps,
    caller,
    { topics: ['locations'], audit: { action: 'location.address.remove', entity: 'location_address' } },
    async (trx, note) => {
      const location = await repo.getLocation(trx, scope, customerId, STATIC, locId);
      const address = location?.addresses.find((a) => a.id === addrId);
      if (!location || !address) throw new ApiError('ERR_NOT_FOUND');
      if (location.addresses.length === 1) {
        throw new ApiError('ERR_CONFLICT', 'A static IP location must keep at least one address.');
      }
      if (!(await repo.deleteAddress(trx, scope, customerId, locId, addrId))) throw new ApiError('ERR_NOT_FOUND');
      note.entityId = addrId;
      note.customerId = customerId;
      note.before = { location_id: locId, ...address };
    },
  );
  return { deleted: true };
}
