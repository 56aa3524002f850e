import { addressClaimColumns, type Database, type Dialect } from '@cordon/db';
import { type ListQuery, type Location, type LocationType, parseCidr, rangeHex } from '@cordon/shared';
import { type Kysely, sql } from 'kysely';
import { containsText, type ListSort, listPage } from '../paging/index.ts';
import { customerInScope, defaultPolicyOf, ownedInScope, type TenantScope } from '../tenancy/index.ts';

/** The location list's order (docs/api.md "Conventions"). */
const SORT: ListSort<string> = {
  columns: { name: 'locations.name', id: 'locations.id', type: 'locations.type', created_at: 'locations.created_at' },
  text: ['locations.name'],
  tiebreak: 'locations.id',
};

function locationQuery(db: Kysely<Database>, scope: TenantScope, customerId: number) {
  return db
    .selectFrom('locations')
    .innerJoin('customers', 'customers.id', 'locations.customer_id')
    .leftJoin('policies', 'policies.id', 'locations.policy_id')
    .where(customerInScope(scope))
    .where('locations.customer_id', '=', customerId)
    .select((eb) => [
      'locations.id',
      'locations.type',
      'locations.name',
      'locations.policy_id',
      'locations.key',
      'locations.hostname',
      'locations.addresses_updated_at',
      'locations.resolve_error',
      'policies.name as named_policy',
      defaultPolicyOf(eb.ref('locations.customer_id')).select('dp.name').as('default_policy'),
    ]);
}

type LocationRow = {
  id: number;
  type: string;
  name: string;
  policy_id: number | null;
  key: string | null;
  hostname: string | null;
  addresses_updated_at: string | null;
  resolve_error: string;
  named_policy: string | null;
  default_policy: string | null;
};

async function hydrate(db: Kysely<Database>, rows: LocationRow[]): Promise<Location[]> {
  if (rows.length === 0) return [];
  const addresses = await db
    .selectFrom('location_addresses')
    .select(['id', 'location_id', 'ip'])
    .where(
      'location_id',
      'in',
      rows.map((r) => r.id),
    )
    .orderBy('id')
    .execute();
  return rows.map((r) => {
    const own = addresses.filter((a) => a.location_id === r.id).map((a) => ({ id: a.id, ip: a.ip }));
    return {
      id: r.id,
      type: r.type as LocationType,
      name: r.name,
      policy_id: r.policy_id,
      // The named policy, else the customer's default policy (spec-notes §3 "policy_name").
      policy_name: r.named_policy ?? r.default_policy ?? '',
      key: r.key,
      addresses: own,
      ip: own[0]?.ip ?? null,
      hostname: r.hostname,
      addresses_updated_at: r.addresses_updated_at,
      resolve_error: r.resolve_error,
    };
  });
}

/**
 * A page of customer `customerId`'s locations of one type (or all) within `scope`. `policy_id`
 * keeps the locations whose effective policy it is: named, or inherited when it is the customer's
 * default policy (the policy's locations tab, spec-notes §2). `filter` matches the name, an address or the host name.
 * @throws ApiError 400 for an unknown sortkey
 */
export async function listLocations(
  db: Kysely<Database>,
  scope: TenantScope,
  customerId: number,
  type: LocationType | 'all',
  query: ListQuery & { policy_id?: number | undefined },
): Promise<{ data: Location[]; total: number }> {
  let base = locationQuery(db, scope, customerId);
  if (type !== 'all') base = base.where('locations.type', '=', type);
  if (query.filter) {
    const text = query.filter;
    base = base.where((eb) =>
      eb.or([
        containsText('locations.name', text),
        containsText('locations.hostname', text),
        eb.exists(
          eb
            .selectFrom('location_addresses as la')
            .select('la.id')
            .whereRef('la.location_id', '=', 'locations.id')
            .where(containsText('la.ip', text)),
        ),
      ]),
    );
  }
  if (query.policy_id !== undefined) {
    const policyId = query.policy_id;
    base = base.where((eb) =>
      eb.or([
        eb('locations.policy_id', '=', policyId),
        eb.and([
          eb('locations.policy_id', 'is', null),
          eb(defaultPolicyOf(eb.ref('locations.customer_id')).select('dp.id'), '=', policyId),
        ]),
      ]),
    );
  }
  // Prepared: a list within one customer, its plan the same for every customer.
  const { rows, total } = await listPage(base, query, SORT, db);
  return { data: await hydrate(db, rows), total };
}

/** Location `locId` of customer `customerId` and type `type` within `scope`, or undefined. */
export async function getLocation(
  db: Kysely<Database>,
  scope: TenantScope,
  customerId: number,
  type: LocationType,
  locId: number,
): Promise<Location | undefined> {
  const row = await locationQuery(db, scope, customerId)
    .where('locations.id', '=', locId)
    .where('locations.type', '=', type)
    .executeTakeFirst();
  return row ? (await hydrate(db, [row]))[0] : undefined;
}

/** Inserts a location of customer `customerId` (already checked in scope); returns its id. */
export async function insertLocation(
  db: Kysely<Database>,
  customerId: number,
  values: { type: LocationType; name: string; policy_id: number | null; key: string | null; hostname?: string | null },
  at: string,
): Promise<number> {
  const row = await db
    .insertInto('locations')
    .values({ customer_id: customerId, ...values, created_at: at, updated_at: at })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** Updates location `locId` of customer `customerId` within `scope`; false when not visible. */
export async function updateLocation(
  db: Kysely<Database>,
  scope: TenantScope,
  customerId: number,
  locId: number,
  patch: Partial<{
    name: string;
    policy_id: number | null;
    key: string;
    hostname: string;
    addresses_updated_at: string;
    resolve_error: string;
  }>,
  at: string,
): Promise<boolean> {
  const result = await db
    .updateTable('locations')
    .set({ ...patch, updated_at: at })
    .where('locations.id', '=', locId)
    .where('locations.customer_id', '=', customerId)
    .where(ownedInScope('locations.customer_id', scope))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Deletes location `locId` of customer `customerId` within `scope` (addresses by FK cascade). */
export async function deleteLocation(
  db: Kysely<Database>,
  scope: TenantScope,
  customerId: number,
  locId: number,
): Promise<boolean> {
  const result = await db
    .deleteFrom('locations')
    .where('locations.id', '=', locId)
    .where('locations.customer_id', '=', customerId)
    .where(ownedInScope('locations.customer_id', scope))
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/**
 * Which of `ips` are already used by a location other than `exceptLocationId`, in ANY tenant
 * (addresses identify the customer of a query, so they are unique deployment-wide). Returns only the
 * addresses, never the owner.
 */
export async function addressesInUse(
  db: Kysely<Database>,
  ips: readonly string[],
  exceptLocationId?: number,
): Promise<string[]> {
  if (ips.length === 0) return [];
  let q = db.selectFrom('location_addresses').select('ip').where('ip', 'in', ips);
  if (exceptLocationId !== undefined) q = q.where('location_id', '!=', exceptLocationId);
  return (await q.execute()).map((r) => r.ip);
}

/**
 * The PostgreSQL advisory lock key of address claims (a fixed key, ASCII 'clam'). Every transaction
 * that checks and writes claims takes it first, so two concurrent claims cannot both pass the
 * overlap check (docs/security.md "Address claims"). SQLite needs none: it serialises writers.
 */
export const CLAIM_LOCK_KEY = 0x636c616d;

/** Takes the claims lock for the rest of transaction `trx` (PostgreSQL; a no-op on SQLite). */
export async function lockClaims(trx: Kysely<Database>, dialect: Dialect): Promise<void> {
  if (dialect === 'postgres') await sql`select pg_advisory_xact_lock(${CLAIM_LOCK_KEY})`.execute(trx);
}

/**
 * Which of `ips` (canonical CIDR text) overlap, in either direction, an address claimed by a
 * customer other than `customerId` (docs/security.md "Address claims"). Returns only the caller's addresses, never the
 * other claim or its owner. Uses the (family, range_start) index: `range_start <= end AND range_end >= start`.
 */
export async function addressesOverlappingOthers(
  db: Kysely<Database>,
  customerId: number,
  ips: readonly string[],
): Promise<string[]> {
  const overlapping: string[] = [];
  for (const ip of ips) {
    const range = parseCidr(ip);
    if (!range) continue;
    const { start, end } = rangeHex(range);
    const hit = await db
      .selectFrom('location_addresses')
      .select('id')
      .where('family', '=', range.family)
      .where('range_start', '<=', end)
      .where('range_end', '>=', start)
      .where('customer_id', '!=', customerId)
      .limit(1)
      .executeTakeFirst();
    if (hit) overlapping.push(ip);
  }
  return overlapping;
}

/** The addresses location `locId` holds now (already checked in scope). */
export async function addressesOf(db: Kysely<Database>, locId: number): Promise<string[]> {
  const rows = await db.selectFrom('location_addresses').select('ip').where('location_id', '=', locId).execute();
  return rows.map((r) => r.ip);
}

/** Replaces the address set of location `locId` (already checked in scope) with `ips`. */
export async function replaceAddresses(
  db: Kysely<Database>,
  customerId: number,
  locId: number,
  ips: readonly string[],
  at: string,
): Promise<void> {
  await db.deleteFrom('location_addresses').where('location_id', '=', locId).execute();
  await insertAddresses(db, customerId, locId, ips, at);
}

/** Adds addresses to location `locId` (already checked in scope); returns the new rows. */
export async function insertAddresses(
  db: Kysely<Database>,
  customerId: number,
  locId: number,
  ips: readonly string[],
  at: string,
): Promise<Array<{ id: number; ip: string }>> {
  if (ips.length === 0) return [];
  return db
    .insertInto('location_addresses')
    .values(
      ips.map((ip) => ({ location_id: locId, customer_id: customerId, ...addressClaimColumns(ip), created_at: at })),
    )
    .returning(['id', 'ip'])
    .execute();
}

/** Deletes address `addrId` of location `locId` of customer `customerId` within `scope`; false when not visible. */
export async function deleteAddress(
  db: Kysely<Database>,
  scope: TenantScope,
  customerId: number,
  locId: number,
  addrId: number,
): Promise<boolean> {
  const result = await db
    .deleteFrom('location_addresses')
    .where('location_addresses.id', '=', addrId)
    .where('location_addresses.location_id', '=', locId)
    .where('location_addresses.customer_id', '=', customerId)
    .where(ownedInScope('location_addresses.customer_id', scope))
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** The location whose key is `key` and type `type` (any tenant: the key is the credential), or undefined. */
export async function locationByKey(
  db: Kysely<Database>,
  type: LocationType,
  key: string,
): Promise<{ id: number; customer_id: number; msp_id: number } | undefined> {
  return db
    .selectFrom('locations')
    .innerJoin('customers', 'customers.id', 'locations.customer_id')
    .select(['locations.id', 'locations.customer_id', 'customers.msp_id'])
    .where('locations.key', '=', key)
    .where('locations.type', '=', type)
    .executeTakeFirst();
}

/** Location `locId` with its customer and MSP (any tenant: for the data-plane worker), or undefined. */
export async function locationOwner(
  db: Kysely<Database>,
  locId: number,
): Promise<{ id: number; customer_id: number; msp_id: number; type: string } | undefined> {
  return db
    .selectFrom('locations')
    .innerJoin('customers', 'customers.id', 'locations.customer_id')
    .select(['locations.id', 'locations.customer_id', 'customers.msp_id', 'locations.type'])
    .where('locations.id', '=', locId)
    .executeTakeFirst();
}

/** Every `dynamicdns` location of the deployment with its host name (for the re-resolution job), by id. */
export async function dynamicDnsLocations(
  db: Kysely<Database>,
): Promise<Array<{ id: number; customer_id: number; hostname: string }>> {
  const rows = await db
    .selectFrom('locations')
    .select(['id', 'customer_id', 'hostname'])
    .where('type', '=', 'dynamicdns')
    .where('hostname', 'is not', null)
    .orderBy('id')
    .execute();
  return rows.map((r) => ({ id: r.id, customer_id: r.customer_id, hostname: r.hostname ?? '' }));
}
