import {
  addressClaimColumns,
  type ChangeFeed,
  type ChangeListener,
  type ChangeTopic,
  type DatabaseHandle,
} from '@cordon/db';

/**
 * Adds a static location named `name` to customer `customerId` claiming `cidr` (inheriting the
 * default policy), as the API would store it.
 * @returns the location's id
 */
export async function addStaticLocation(
  handle: DatabaseHandle,
  customerId: number,
  name: string,
  cidr: string,
): Promise<number> {
  const now = new Date().toISOString();
  const l = await handle.db
    .insertInto('locations')
    .values({
      customer_id: customerId,
      type: 'static',
      name,
      policy_id: null,
      key: null,
      created_at: now,
      updated_at: now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await handle.db
    .insertInto('location_addresses')
    .values({ location_id: l.id, customer_id: customerId, ...addressClaimColumns(cidr), created_at: now })
    .execute();
  return l.id;
}

/** A change feed the test drives by hand: `emit(topic)` tells the subscribers at once. */
export function manualFeed(): ChangeFeed & { emit(topic: ChangeTopic): void } {
  const listeners = new Set<ChangeListener>();
  const tell = (t: ChangeTopic) => {
    for (const l of listeners) l(t);
  };
  return {
    publish: async (t) => tell(t),
    subscribe: (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    start: async () => undefined,
    close: async () => undefined,
    emit: tell,
  };
}

/** Ids of the seeded tenant data. */
export interface Seeded {
  customerId: number;
  defaultPolicyId: number;
  otherCustomerId: number;
  otherPolicyId: number;
  locationId: number;
}

/**
 * Seeds two customers of one MSP:
 * - "Acme": default policy "Moderate" blocking Gambling (20) and Pornography (9), allow unclassified;
 *   location "HQ" with 127.0.0.1/32 (inherits the default policy).
 * - "Beta": default policy blocking nothing; location with 127.0.0.3/32.
 * Category domains: gambling.example → 20, news.example → 39, mixed.example → 39 and 20.
 */
export async function seedTenants(handle: DatabaseHandle): Promise<Seeded> {
  const db = handle.db;
  const now = new Date().toISOString();
  const ts = { created_at: now, updated_at: now };
  const msp = await db
    .insertInto('msps')
    .values({ name: 'MSP One', company_name: 'MSP One Ltd', license: '', timezone: 'UTC', ...ts })
    .returning('id')
    .executeTakeFirstOrThrow();
  const customer = async (name: string) =>
    (
      await db
        .insertInto('customers')
        .values({ msp_id: msp.id, account_name: name, uuid_str: `uuid-${name}`, timezone: 'UTC', ...ts })
        .returning('id')
        .executeTakeFirstOrThrow()
    ).id;
  const acme = await customer('Acme');
  const beta = await customer('Beta');
  const policy = async (customerId: number, name: string, blocked: number[]) => {
    const p = await db
      .insertInto('policies')
      .values({
        customer_id: customerId,
        name,
        description: '',
        level: 'custom',
        is_default: 1,
        allow_unclassified: 1,
        ...ts,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    for (const c of blocked) {
      await db
        .insertInto('policy_categories')
        .values({ policy_id: p.id, customer_id: customerId, category_id: c })
        .execute();
    }
    return p.id;
  };
  const acmePolicy = await policy(acme, 'Moderate', [9, 20]);
  const betaPolicy = await policy(beta, 'Open', []);
  const locationId = await addStaticLocation(handle, acme, 'HQ', '127.0.0.1/32');
  await addStaticLocation(handle, beta, 'Branch', '127.0.0.3/32');
  await db
    .insertInto('category_domains')
    .values([
      { domain: 'gambling.example', category_id: 20, source: 'test' },
      { domain: 'news.example', category_id: 39, source: 'test' },
      { domain: 'mixed.example', category_id: 39, source: 'test' },
      { domain: 'mixed.example', category_id: 20, source: 'test' },
    ])
    .execute();
  return {
    customerId: acme,
    defaultPolicyId: acmePolicy,
    otherCustomerId: beta,
    otherPolicyId: betaPolicy,
    locationId,
  };
}
