import type { Database, DatabaseHandle } from '@cordon/db';
import { type CidrRange, claimRefusal, parseCidr } from '@cordon/shared';
import { type Kysely, sql } from 'kysely';
import type { Logger } from 'pino';
import {
  big,
  changedKeys,
  chunks,
  collectDigests,
  digestColumns,
  INCREMENTAL_LIMIT,
  type SnapshotPart,
  tableDigest,
} from './part.ts';

/** A location as the resolver needs it. `policyId` null: the location inherits the customer default. */
export interface LocationRow {
  readonly locationId: number;
  readonly customerId: number;
  readonly mspId: number;
  readonly policyId: number | null;
}

/** One usable address claim: parsed once, kept in address-id order (the tie rule's order). */
export interface AddressClaim {
  readonly addressId: number;
  readonly ip: string;
  readonly range: CidrRange;
  readonly locationId: number;
  readonly customerId: number;
}

/** The locations part: locations by id and their usable address claims, oldest claim first. */
export interface LocationsSnapshot {
  readonly byId: ReadonlyMap<number, LocationRow>;
  /** Sorted by address id ascending: adding them in this order makes the oldest claim win a tie. */
  readonly claims: readonly AddressClaim[];
  /** customer id → digest of its location and address rows and its MSP. */
  readonly digests: ReadonlyMap<number, string>;
  /**
   * DoH key → location id, of the `roaming` and `virtual` locations (matched by key, never by
   * address: docs/architecture.md "Identification"). A `dynamicip` location's key is its update
   * URL's and is not here.
   */
  readonly keys: ReadonlyMap<string, number>;
  /** Customers read by the load that built this value (every one on a full load). */
  readonly reloadedCustomers: number;
}

async function digests(db: Kysely<Database>): Promise<Map<number, string>> {
  const out = new Map<number, string>();
  const m = digestColumns(big(sql.ref('msp_id')));
  collectDigests(
    out,
    await db
      .selectFrom('customers')
      .select([sql<number>`id`.as('key'), m.n.as('n'), m.s.as('s'), m.q.as('q')])
      .groupBy('id')
      .execute(),
  );
  const l = digestColumns(sql`${big(sql.ref('id'))} * 1048576 + coalesce(policy_id, 0)`);
  collectDigests(
    out,
    await db
      .selectFrom('locations')
      .select([sql<number>`customer_id`.as('key'), l.n.as('n'), l.s.as('s'), l.q.as('q')])
      .groupBy('customer_id')
      .execute(),
  );
  const a = digestColumns(sql`(${big(sql.ref('id'))} * 1000003 + location_id) * 64 + length(ip)`);
  collectDigests(
    out,
    await db
      .selectFrom('location_addresses')
      .select([sql<number>`customer_id`.as('key'), a.n.as('n'), a.s.as('s'), a.q.as('q')])
      .groupBy('customer_id')
      .execute(),
  );
  return out;
}

/**
 * Reads the locations and address claims of `customers` (null: all), every table in id order.
 * Address claims (docs/architecture.md "Tenancy"): unparsable rows and claims nobody may hold
 * (`/0`, an IPv6 prefix covering ::ffff:0:0/96) are skipped and logged, so a row left by hand can
 * never make Cordon an open resolver.
 */
async function read(db: Kysely<Database>, logger: Logger, customers: number[] | null) {
  const rows: LocationRow[] = [];
  const claims: AddressClaim[] = [];
  for (const ids of customers === null ? [null] : chunks(customers)) {
    let lq = db
      .selectFrom('locations')
      .innerJoin('customers', 'customers.id', 'locations.customer_id')
      .select(['locations.id', 'locations.customer_id', 'locations.policy_id', 'customers.msp_id'])
      .orderBy('locations.id');
    let aq = db.selectFrom('location_addresses').select(['id', 'ip', 'location_id', 'customer_id']).orderBy('id');
    if (ids !== null) {
      lq = lq.where('locations.customer_id', 'in', ids);
      aq = aq.where('customer_id', 'in', ids);
    }
    for (const l of await lq.execute()) {
      rows.push({ locationId: l.id, customerId: l.customer_id, mspId: l.msp_id, policyId: l.policy_id });
    }
    for (const a of await aq.execute()) {
      const range = parseCidr(a.ip);
      if (!range) {
        logger.warn({ ip: a.ip, locationId: a.location_id }, 'skipping unparsable location address');
        continue;
      }
      const refusal = claimRefusal(range, null);
      if (refusal) {
        logger.warn(
          { ip: a.ip, locationId: a.location_id, reason: refusal },
          'skipping a location address nobody may claim',
        );
        continue;
      }
      claims.push({ addressId: a.id, ip: a.ip, range, locationId: a.location_id, customerId: a.customer_id });
    }
  }
  return { rows, claims };
}

/**
 * The locations part (topics `locations`, `tenants`: a customer deleted, or moved to another MSP).
 * Incremental like the policies part: a digest row per customer (its MSP, its locations and their
 * policy, its address rows) finds the customers whose rows changed; only theirs are read again, the
 * other customers' locations and parsed claims are kept. The claims stay sorted by address id, so
 * the prefix matcher built from them is the same whichever way it was loaded.
 */
export const locationsPart: SnapshotPart<LocationsSnapshot> = {
  name: 'locations',
  incremental: true,
  topics: ['locations', 'tenants'],
  empty: () => ({ byId: new Map(), claims: [], digests: new Map(), keys: new Map(), reloadedCustomers: 0 }),
  load: (handle: DatabaseHandle, logger, previous) =>
    handle.db
      .transaction()
      .setAccessMode('read only')
      .execute(async (trx) => {
        const now = await digests(trx);
        const keys = await readKeys(trx);
        const changed = previous ? changedKeys(previous.digests, now) : null;
        if (previous && changed && changed.size === 0) {
          return sameKeys(previous.keys, keys) ? previous : { ...previous, keys, reloadedCustomers: 0 };
        }
        const partial = previous !== null && changed !== null && changed.size <= INCREMENTAL_LIMIT;
        const fresh = await read(trx, logger, partial ? [...changed] : null);
        const byId = new Map<number, LocationRow>();
        let claims = fresh.claims;
        if (partial) {
          for (const [id, l] of previous.byId) if (!changed.has(l.customerId)) byId.set(id, l);
          claims = previous.claims.filter((c) => !changed.has(c.customerId)).concat(fresh.claims);
          claims.sort((a, b) => a.addressId - b.addressId);
        }
        for (const l of fresh.rows) byId.set(l.locationId, l);
        return { byId, claims, digests: now, keys, reloadedCustomers: partial ? changed.size : now.size };
      }),
  // Keys, names and types are text edited through core, which sets updated_at; addresses are replaced (new ids).
  digest: (handle) =>
    tableDigest(handle, [
      { table: 'customers', rows: [sql`${big(sql.ref('id'))} * 1048576 + msp_id`], stamps: ['updated_at'] },
      {
        table: 'locations',
        rows: [sql`(${big(sql.ref('id'))} * 1048576 + coalesce(policy_id, 0)) * 1024 + coalesce(length(key), 0)`],
        stamps: ['updated_at', 'addresses_updated_at'],
      },
      {
        table: 'location_addresses',
        rows: [sql`(${big(sql.ref('id'))} * 1000003 + location_id) * 64 + length(ip)`],
      },
    ]),
};

/**
 * The DoH keys of the `roaming` and `virtual` locations, read whole on every load (a key is
 * secret text the digests cannot see change; these locations are few), key → location id.
 */
async function readKeys(db: Kysely<Database>): Promise<Map<string, number>> {
  const keys = new Map<string, number>();
  for (const r of await db
    .selectFrom('locations')
    .select(['id', 'key'])
    .where('type', 'in', ['roaming', 'virtual'])
    .where('key', 'is not', null)
    .orderBy('id')
    .execute()) {
    if (r.key !== null && r.key.length > 0 && !keys.has(r.key)) keys.set(r.key, r.id);
  }
  return keys;
}

function sameKeys(a: ReadonlyMap<string, number>, b: ReadonlyMap<string, number>): boolean {
  if (a.size !== b.size) return false;
  for (const [k, v] of a) if (b.get(k) !== v) return false;
  return true;
}
