import { randomBytes } from 'node:crypto';
import type { Database } from '@cordon/db';
import { nowIso } from '@cordon/db';
import {
  ApiError,
  type ClaimLimits,
  claimRefusal,
  type DependantsResponse,
  type ListQuery,
  type Location,
  type LocationListQuery,
  type LocationType,
  Messages,
  normalizeCidr,
  type OtherLocationCreate,
  type OtherLocationType,
  type OtherLocationUpdate,
  parseCidr,
  Role,
  type StaticIpLocationCreate,
  type StaticIpLocationUpdate,
  Texts,
} from '@cordon/shared';
import type { Kysely } from 'kysely';
import { type Caller, type CoreDeps, OPERATOR } from '../context.ts';
import { dependantsOf, kindOf } from '../dependants/index.ts';
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
    const message = Texts.policyOfThisCustomer;
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
  query: ListQuery | LocationListQuery,
): Promise<{ data: Location[]; total: number }> {
  return repo.listLocations(deps.handle.db, scopeOf(caller), customerId, type, query);
}

/**
 * `GET /users/{id}/locations/staticip/{locId}`.
 * @throws ApiError ERR_NOT_FOUND when missing, of another type, or of another customer
 */
export function getStaticLocation(
  deps: CoreDeps,
  caller: Caller,
  customerId: number,
  locId: number,
): Promise<Location> {
  return locationOfType(deps, caller, customerId, STATIC, locId);
}

/** The location `locId` of `type` of `customerId` within the caller's scope. @throws ApiError ERR_NOT_FOUND */
async function locationOfType(
  deps: CoreDeps,
  caller: Caller,
  customerId: number,
  type: LocationType,
  locId: number,
): Promise<Location> {
  const location = await repo.getLocation(deps.handle.db, scopeOf(caller), customerId, type, locId);
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

/** How far back a device's last contact counts as "seen at" a location for its dependants, ms. */
const SEEN_WINDOW_MS = 24 * 3_600_000;

/**
 * `GET /users/{id}/locations/{type}/{locId}/dependants` (docs/api.md "Deletes of things in use";
 * issue 29): what a delete of the location breaks, though nothing refuses it (`in_use` false, the
 * DELETE needs no parameter): `addresses`, its claims, which stop identifying the customer's queries
 * (they are then refused, or fall to another claim), and `recent_devices`, the customer's devices last seen there
 * within 24 hours of `deps.now()` (they keep working by key; their location is cleared).
 * @throws ApiError ERR_NOT_FOUND (a location of another type, customer or tenant included)
 */
export async function locationDependants(
  deps: CoreDeps,
  caller: Caller,
  customerId: number,
  type: LocationType,
  locId: number,
): Promise<DependantsResponse> {
  await locationOfType(deps, caller, customerId, type, locId);
  const db = deps.handle.db;
  const since = new Date(deps.now() - SEEN_WINDOW_MS).toISOString();
  const dependants = dependantsOf({
    addresses: await kindOf(
      db
        .selectFrom('location_addresses')
        .where('location_addresses.location_id', '=', locId)
        .where('location_addresses.customer_id', '=', customerId),
      'location_addresses.ip',
    ),
    recent_devices: await kindOf(
      db
        .selectFrom('devices')
        .where('devices.location_id', '=', locId)
        .where('devices.customer_id', '=', customerId)
        .where('devices.last_contact_at', '>=', since),
      'devices.name',
    ),
  });
  return { in_use: false, dependants };
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

/** A new location key: 32 URL-safe characters (192 random bits), the credential of an update URL or a DoH path. */
export function newLocationKey(): string {
  return randomBytes(24).toString('base64url');
}

/** The types that carry a key: the update key of `dynamicip`, the DoH key of `roaming` and `virtual`. */
const KEYED: ReadonlySet<LocationType> = new Set(['dynamicip', 'roaming', 'virtual']);

/** The audit state of a location: everything but its key (a credential; never in the trail). */
function audited(location: Location | undefined): unknown {
  if (!location) return null;
  const { key: _key, ...rest } = location;
  return { ...rest, key: location.key === null ? null : '(set)' };
}

/** The /32 or /128 claim of one address, canonical. */
function hostClaim(ip: string): string {
  return normalizeCidr(ip) as string;
}

/**
 * `GET /users/{id}/locations/{type}/{locId}` for `dynamicip`, `dynamicdns`, `roaming` and `virtual`.
 * @throws ApiError ERR_NOT_FOUND when missing, of another type, or of another customer
 */
export function getLocationOfType(
  deps: CoreDeps,
  caller: Caller,
  customerId: number,
  type: OtherLocationType,
  locId: number,
): Promise<Location> {
  return locationOfType(deps, caller, customerId, type, locId);
}

/**
 * `POST /users/{id}/locations/{type}` for the non-static types (docs/decisions.md "Environment"):
 * `dynamicip` gets an update key and optionally its first address (`ip`, claimed as a /32 or
 * /128 under the claim rules); `dynamicdns` needs `hostname` (its addresses come from the
 * re-resolution job); `roaming` and `virtual` get a DoH key and no address. Audit
 * `location.create` (the key left out); publishes `locations`.
 * @throws ApiError ERR_VALIDATION (missing host name, a field the type does not take, a policy of
 *   another customer, an address the caller may not claim), ERR_CONFLICT (address in use)
 */
export async function createLocation(
  deps: LocationDeps,
  caller: Caller,
  customerId: number,
  type: OtherLocationType,
  body: OtherLocationCreate,
): Promise<Location> {
  const scope = scopeOf(caller);
  checkTypeFields(type, body);
  const ips = type === 'dynamicip' && body.ip ? [hostClaim(body.ip)] : [];
  checkClaimRules(deps, caller, ips, 'ip');
  const id = await mutate(
    deps,
    caller,
    {
      topics: ['locations'],
      audit: { action: 'location.create', entity: 'location' },
      conflict: () => addressConflict(ips, 'ip'),
    },
    async (trx, note) => {
      await checkPolicy(trx, scope, customerId, body.policy_id);
      if (ips.length > 0) await checkClaims(trx, deps, caller, customerId, ips, ips, 'ip');
      const at = nowIso(deps.now());
      const locId = await repo.insertLocation(
        trx,
        customerId,
        {
          type,
          name: body.name,
          policy_id: body.policy_id,
          key: KEYED.has(type) ? newLocationKey() : null,
          hostname: type === 'dynamicdns' ? (body.hostname ?? null) : null,
        },
        at,
      );
      if (ips.length > 0) {
        await repo.insertAddresses(trx, customerId, locId, ips, at);
        await repo.updateLocation(trx, scope, customerId, locId, { addresses_updated_at: at }, at);
      }
      note.entityId = locId;
      note.customerId = customerId;
      note.after = audited(await repo.getLocation(trx, scope, customerId, type, locId));
      return locId;
    },
  );
  return getLocationOfType(deps, caller, customerId, type, id);
}

/** Refuses the fields a type does not take, and a `dynamicdns` location without its host name. */
function checkTypeFields(type: OtherLocationType, body: { hostname?: string | undefined; ip?: string | undefined }) {
  if (type === 'dynamicdns' && body.hostname === undefined) {
    throw new ApiError('ERR_VALIDATION', Messages.required, { hostname: Messages.required });
  }
  if (type !== 'dynamicdns' && body.hostname !== undefined) {
    const message = 'Only a dynamic DNS location has a host name.';
    throw new ApiError('ERR_VALIDATION', message, { hostname: message });
  }
  if (type !== 'dynamicip' && body.ip !== undefined) {
    const message = 'Only a dynamic IP location has an address to set.';
    throw new ApiError('ERR_VALIDATION', message, { ip: message });
  }
}

/**
 * `POST /users/{id}/locations/{type}/{locId}` (an update) for the non-static types: name, policy,
 * `hostname` (`dynamicdns`; its addresses are cleared until the next re-resolution), `ip`
 * (`dynamicip`: the spec's POST setting its address, replacing the previous one) and
 * `regenerate_key` (the old key stops working at once). Audit `location.update`; publishes `locations`.
 * @throws ApiError ERR_NOT_FOUND, ERR_VALIDATION, ERR_CONFLICT as for creation
 */
export async function updateLocationOfType(
  deps: LocationDeps,
  caller: Caller,
  customerId: number,
  type: OtherLocationType,
  locId: number,
  body: OtherLocationUpdate,
): Promise<Location> {
  const scope = scopeOf(caller);
  checkTypeFields(type, { ...body, hostname: type === 'dynamicdns' ? (body.hostname ?? '') : body.hostname });
  if (body.regenerate_key && !KEYED.has(type)) {
    const message = 'This location has no key.';
    throw new ApiError('ERR_VALIDATION', message, { regenerate_key: message });
  }
  const ips = body.ip !== undefined ? [hostClaim(body.ip)] : undefined;
  if (ips) checkClaimRules(deps, caller, ips, 'ip');
  await mutate(
    deps,
    caller,
    {
      topics: ['locations'],
      audit: { action: 'location.update', entity: 'location' },
      conflict: () => addressConflict(ips ?? [], 'ip'),
    },
    async (trx, note) => {
      const before = await repo.getLocation(trx, scope, customerId, type, locId);
      if (!before) throw new ApiError('ERR_NOT_FOUND');
      if (body.policy_id !== undefined) await checkPolicy(trx, scope, customerId, body.policy_id);
      const at = nowIso(deps.now());
      const patch: Parameters<typeof repo.updateLocation>[4] = {};
      if (body.name !== undefined) patch.name = body.name;
      if (body.policy_id !== undefined) patch.policy_id = body.policy_id;
      if (body.regenerate_key) patch.key = newLocationKey();
      if (body.hostname !== undefined && body.hostname !== before.hostname) {
        patch.hostname = body.hostname;
        patch.resolve_error = '';
        patch.addresses_updated_at = at;
        await repo.replaceAddresses(trx, customerId, locId, [], at);
      }
      if (ips) {
        const held = new Set(await repo.addressesOf(trx, locId));
        const added = ips.filter((ip) => !held.has(ip));
        await checkClaims(trx, deps, caller, customerId, ips, added, 'ip', locId);
        if (added.length > 0) {
          await repo.replaceAddresses(trx, customerId, locId, ips, at);
          patch.addresses_updated_at = at;
        }
      }
      await repo.updateLocation(trx, scope, customerId, locId, patch, at);
      note.entityId = locId;
      note.customerId = customerId;
      note.before = audited(before);
      note.after = audited(await repo.getLocation(trx, scope, customerId, type, locId));
    },
  );
  return getLocationOfType(deps, caller, customerId, type, locId);
}

/**
 * `DELETE /users/{id}/locations/{type}/{locId}` for the non-static types (addresses by cascade; its
 * key stops working). Audit `location.delete`; publishes `locations`.
 * @throws ApiError ERR_NOT_FOUND
 */
export async function deleteLocationOfType(
  deps: CoreDeps,
  caller: Caller,
  customerId: number,
  type: OtherLocationType,
  locId: number,
): Promise<{ deleted: true }> {
  const scope = scopeOf(caller);
  await mutate(
    deps,
    caller,
    { topics: ['locations'], audit: { action: 'location.delete', entity: 'location' } },
    async (trx, note) => {
      const before = await repo.getLocation(trx, scope, customerId, type, locId);
      if (!before || !(await repo.deleteLocation(trx, scope, customerId, locId))) throw new ApiError('ERR_NOT_FOUND');
      note.entityId = locId;
      note.customerId = customerId;
      note.before = audited(before);
    },
  );
  return { deleted: true };
}

/** The caller a location key or the data-plane worker acts as: the location's customer, no admin (audit: admin null). */
function keyCaller(owner: { customer_id: number; msp_id: number }, ip: string | null): Caller {
  return { ...OPERATOR, role: Role.Customer, mspId: owner.msp_id, customerId: owner.customer_id, ip };
}

/**
 * The DynDNS-compatible update URL `GET /locations/dynamicip/update?key=&myip=` (docs/decisions.md
 * "Environment"): sets the address of the `dynamicip` location whose update key is `key` to `myip`,
 * else to the caller's address `clientIp`, under the claim rules of the location's customer.
 * Unchanged: `nochg`, nothing written. Audit `location.address.update` (no admin); publishes `locations`,
 * so the resolver matches the new address within a second.
 * @throws ApiError ERR_BAD_CREDENTIALS (401) for an unknown key; ERR_VALIDATION, ERR_CONFLICT as a claim
 */
export async function dynDnsUpdate(
  deps: LocationDeps,
  key: string,
  myip: string | undefined,
  clientIp: string,
): Promise<{ status: 'good' | 'nochg'; ip: string }> {
  const owner = await repo.locationByKey(deps.handle.db, 'dynamicip', key);
  if (!owner) throw new ApiError('ERR_BAD_CREDENTIALS', 'Unknown or revoked location key.');
  const caller = keyCaller(owner, clientIp);
  const ip = canonicalHost(myip ?? clientIp);
  const claim = hostClaim(ip);
  const held = await repo.addressesOf(deps.handle.db, owner.id);
  if (held.length === 1 && held[0] === claim) return { status: 'nochg', ip };
  await updateLocationOfType(deps, caller, owner.customer_id, 'dynamicip', owner.id, { ip });
  return { status: 'good', ip };
}

/** An address's canonical text (an IPv4-mapped IPv6 address is its IPv4 address). */
function canonicalHost(ip: string): string {
  const cidr = normalizeCidr(ip);
  if (!cidr) throw new ApiError('ERR_VALIDATION', Messages.invalidIp, { myip: Messages.invalidIp });
  return cidr.replace(/\/\d+$/, '');
}

/**
 * For the dynamic-DNS re-resolution job: every `dynamicdns` location with its host name, by id.
 * Not tenant-scoped: the job runs for the whole deployment.
 */
export function listDynamicDnsLocations(
  deps: CoreDeps,
): Promise<Array<{ id: number; customer_id: number; hostname: string }>> {
  return repo.dynamicDnsLocations(deps.handle.db);
}

/**
 * For the dynamic-DNS re-resolution job: replaces the addresses of `dynamicdns` location `locId`
 * with `ips` (what its host name resolved to) and records `error` ('' on success). Addresses the
 * customer may not claim (claim rules, in use by another location, overlapping another customer)
 * are left out and named in `resolve_error`. Writes only when something changed; then audit
 * `location.address.resolve` (no admin) and publishes `locations`.
 * @returns the addresses now held
 */
export async function applyResolvedAddresses(
  deps: LocationDeps,
  locId: number,
  ips: readonly string[],
  error: string,
): Promise<string[]> {
  const owner = await repo.locationOwner(deps.handle.db, locId);
  if (owner?.type !== 'dynamicdns') throw new ApiError('ERR_NOT_FOUND');
  const caller = keyCaller(owner, null);
  const wanted = [...new Set(ips.map((ip) => normalizeCidr(ip)).filter((c): c is string => c !== null))].sort();
  const allowed = wanted.filter((c) => {
    const range = parseCidr(c);
    return range !== null && claimRefusal(range, deps.claims) === null;
  });
  const scope = scopeOf(caller);
  return mutate(
    deps,
    caller,
    { topics: ['locations'], audit: { action: 'location.address.resolve', entity: 'location' } },
    async (trx, note) => {
      await repo.lockClaims(trx, deps.handle.dialect);
      const inUse = new Set(await repo.addressesInUse(trx, allowed, locId));
      const overlapping = new Set(await repo.addressesOverlappingOthers(trx, owner.customer_id, allowed));
      const kept = allowed.filter((c) => !inUse.has(c) && !overlapping.has(c));
      const refused = wanted.filter((c) => !kept.includes(c));
      const problem = [error, refused.length > 0 ? `Addresses not claimed: ${refused.join(', ')}.` : '']
        .filter((t) => t !== '')
        .join(' ');
      const before = await repo.getLocation(trx, scope, owner.customer_id, 'dynamicdns', locId);
      if (!before) throw new ApiError('ERR_NOT_FOUND');
      const held = before.addresses.map((a) => a.ip).sort();
      const same = held.length === kept.length && held.every((c, i) => c === kept[i]);
      // A failed lookup keeps the last addresses (the host is usually still there).
      const next = error !== '' && kept.length === 0 ? held : kept;
      const at = nowIso(deps.now());
      if (!same && next !== held) await repo.replaceAddresses(trx, owner.customer_id, locId, next, at);
      await repo.updateLocation(
        trx,
        scope,
        owner.customer_id,
        locId,
        { resolve_error: problem, ...(!same && next !== held ? { addresses_updated_at: at } : {}) },
        at,
      );
      note.entityId = locId;
      note.customerId = owner.customer_id;
      note.before = audited(before);
      note.after = { addresses: next, resolve_error: problem };
      return next;
    },
  );
}
