import type { Database, PoliciesTable } from '@cordon/db';
import type { Dependants, FilteringLevel, ListQuery, LocationType, Policy } from '@cordon/shared';
import { type Kysely, type Selectable, sql } from 'kysely';
import { dependantsOf, kindOf } from '../dependants/index.ts';
import { containsText, type ListSort, listPage } from '../paging/index.ts';
import { customerInScope, ownedInScope, type TenantScope } from '../tenancy/index.ts';

/** The policy list's order (docs/api.md "Conventions"). */
const SORT: ListSort<string> = {
  columns: {
    name: 'policies.name',
    policyname: 'policies.name',
    id: 'policies.id',
    filtering_level: 'policies.level',
    created_at: 'policies.created_at',
    updated_at: 'policies.updated_at',
  },
  text: ['policies.name'],
  tiebreak: 'policies.id',
};

type PolicyRow = Selectable<PoliciesTable>;

function policyQuery(db: Kysely<Database>, scope: TenantScope) {
  return db
    .selectFrom('policies')
    .innerJoin('customers', 'customers.id', 'policies.customer_id')
    .where(customerInScope(scope))
    .select([
      'policies.id',
      'policies.customer_id',
      'policies.name',
      'policies.description',
      'policies.level',
      'policies.is_default',
      'policies.allow_unclassified',
      'policies.safe_search',
      'policies.created_at',
      'policies.updated_at',
    ]);
}

/**
 * Adds each policy's locations (with addresses): those naming it, and for a default policy those
 * inheriting the default (`policy_id` null). `first_location` is the first by name.
 */
async function hydrate(db: Kysely<Database>, rows: PolicyRow[]): Promise<Policy[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id);
  const defaultCustomers = rows.filter((r) => r.is_default === 1).map((r) => r.customer_id);
  const customerIds = [...new Set(rows.map((r) => r.customer_id))];
  const locations = await db
    .selectFrom('locations')
    .select(['id', 'customer_id', 'name', 'type', 'policy_id'])
    // A location names a policy of its own customer only (policyOfCustomer): the customers' index,
    // where the OR alone scanned every location of every tenant (EXPLAIN QUERY PLAN, bench/README.md "API reads").
    .where('customer_id', 'in', customerIds)
    .where((eb) =>
      eb.or([
        eb('policy_id', 'in', ids),
        ...(defaultCustomers.length > 0
          ? [eb.and([eb('policy_id', 'is', null), eb('customer_id', 'in', defaultCustomers)])]
          : []),
      ]),
    )
    .orderBy(sql`lower(name)`)
    .orderBy('id')
    .execute();
  const addresses =
    locations.length === 0
      ? []
      : await db
          .selectFrom('location_addresses')
          .select(['location_id', 'ip'])
          .where(
            'location_id',
            'in',
            locations.map((l) => l.id),
          )
          .orderBy('id')
          .execute();
  return rows.map((r) => {
    const used = locations
      .filter(
        (l) => l.policy_id === r.id || (l.policy_id === null && r.is_default === 1 && l.customer_id === r.customer_id),
      )
      .map((l) => ({
        id: l.id,
        name: l.name,
        type: l.type as LocationType,
        addresses: addresses.filter((a) => a.location_id === l.id).map((a) => ({ ip: a.ip })),
      }));
    return {
      id: r.id,
      user_id: r.customer_id,
      name: r.name,
      policyname: r.name,
      description: r.description,
      filtering_level: r.level as FilteringLevel,
      is_default: r.is_default === 1,
      allow_unclassified: r.allow_unclassified === 1,
      safe_search: Number(r.safe_search) === 1,
      first_location: used[0]?.name ?? null,
      locations: used,
      extra_info: {},
      created_at: r.created_at,
      updated_at: r.updated_at,
    };
  });
}

/**
 * A page of customer `customerId`'s policies within `scope`; `showDefault: false` hides the default policy.
 * @throws ApiError 400 for an unknown sortkey
 */
export async function listPolicies(
  db: Kysely<Database>,
  scope: TenantScope,
  customerId: number,
  query: ListQuery & { show_default: boolean },
): Promise<{ data: Policy[]; total: number }> {
  let base = policyQuery(db, scope).where('policies.customer_id', '=', customerId);
  if (!query.show_default) base = base.where('policies.is_default', '=', 0);
  if (query.filter) base = base.where(containsText('policies.name', query.filter));
  const { rows, total } = await listPage(base, query, SORT);
  return { data: await hydrate(db, rows), total };
}

/** Policy `id` within `scope`, or undefined. */
export async function getPolicy(db: Kysely<Database>, scope: TenantScope, id: number): Promise<Policy | undefined> {
  const row = await policyQuery(db, scope).where('policies.id', '=', id).executeTakeFirst();
  return row ? (await hydrate(db, [row]))[0] : undefined;
}

/** The id of customer `customerId`'s default policy within `scope`, or undefined. */
export async function defaultPolicyId(
  db: Kysely<Database>,
  scope: TenantScope,
  customerId: number,
): Promise<number | undefined> {
  const row = await policyQuery(db, scope)
    .where('policies.customer_id', '=', customerId)
    .where('policies.is_default', '=', 1)
    .executeTakeFirst();
  return row?.id;
}

/** Policy `policyId` if it belongs to customer `customerId` within `scope` (for references from locations). */
export async function policyOfCustomer(
  db: Kysely<Database>,
  scope: TenantScope,
  customerId: number,
  policyId: number,
): Promise<{ id: number; name: string } | undefined> {
  return policyQuery(db, scope)
    .where('policies.customer_id', '=', customerId)
    .where('policies.id', '=', policyId)
    .clearSelect()
    .select(['policies.id', 'policies.name'])
    .executeTakeFirst();
}

/** True when another policy of the customer (not `exceptId`) has this name. */
export async function policyNameTaken(
  db: Kysely<Database>,
  customerId: number,
  name: string,
  exceptId?: number,
): Promise<boolean> {
  let q = db.selectFrom('policies').select('id').where('customer_id', '=', customerId).where('name', '=', name);
  if (exceptId !== undefined) q = q.where('id', '!=', exceptId);
  return (await q.executeTakeFirst()) !== undefined;
}

/** Inserts a policy of customer `customerId` (already checked in scope); returns its id. */
export async function insertPolicy(
  db: Kysely<Database>,
  customerId: number,
  values: {
    name: string;
    description: string;
    level: FilteringLevel;
    is_default: boolean;
    allow_unclassified: boolean;
    safe_search?: boolean;
  },
  at: string,
): Promise<number> {
  const row = await db
    .insertInto('policies')
    .values({
      customer_id: customerId,
      name: values.name,
      description: values.description,
      level: values.level,
      is_default: values.is_default ? 1 : 0,
      allow_unclassified: values.allow_unclassified ? 1 : 0,
      safe_search: values.safe_search ? 1 : 0,
      created_at: at,
      updated_at: at,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** Updates policy `id` within `scope`; false when not visible. */
export async function updatePolicy(
  db: Kysely<Database>,
  scope: TenantScope,
  id: number,
  patch: Partial<{
    name: string;
    description: string;
    level: FilteringLevel;
    allow_unclassified: number;
    safe_search: number;
  }>,
  at: string,
): Promise<boolean> {
  const result = await db
    .updateTable('policies')
    .set({ ...patch, updated_at: at })
    .where('policies.id', '=', id)
    .where(ownedInScope('policies.customer_id', scope))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Deletes a non-default policy `id` within `scope`; locations naming it fall back to the default (FK set null). */
export async function deletePolicy(db: Kysely<Database>, scope: TenantScope, id: number): Promise<boolean> {
  const result = await db
    .deleteFrom('policies')
    .where('policies.id', '=', id)
    .where('policies.is_default', '=', 0)
    .where(ownedInScope('policies.customer_id', scope))
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** The category ids policy `policyId` blocks (the caller has checked the policy is in scope), ascending. */
export async function blockedCategories(db: Kysely<Database>, policyId: number): Promise<number[]> {
  const rows = await db
    .selectFrom('policy_categories')
    .select('category_id')
    .where('policy_id', '=', policyId)
    .orderBy('category_id')
    .execute();
  return rows.map((r) => r.category_id);
}

/** Replaces the blocked set of policy `policyId` of customer `customerId` (already checked in scope). */
export async function setBlockedCategories(
  db: Kysely<Database>,
  policyId: number,
  customerId: number,
  categoryIds: readonly number[],
): Promise<void> {
  await db.deleteFrom('policy_categories').where('policy_id', '=', policyId).execute();
  if (categoryIds.length === 0) return;
  await db
    .insertInto('policy_categories')
    .values(categoryIds.map((category_id) => ({ policy_id: policyId, customer_id: customerId, category_id })))
    .execute();
}

/**
 * What names policy `policyId` of customer `customerId` (docs/api.md "Deletes of things in use"),
 * each kind tenant-scoped in SQL: `locations`, `groups` and `users` naming it, `devices` set to it
 * (`policy_mode` `policy`), and `device_settings` (the customer's device configuration naming it).
 * A default policy's implicit users (locations with no policy) are not counted: it cannot be deleted.
 */
export async function policyDependants(
  db: Kysely<Database>,
  scope: TenantScope,
  customerId: number,
  policyId: number,
): Promise<Dependants> {
  const locations = await kindOf(
    db
      .selectFrom('locations')
      .where('locations.customer_id', '=', customerId)
      .where('locations.policy_id', '=', policyId)
      .where(ownedInScope('locations.customer_id', scope)),
    'locations.name',
  );
  const groups = await kindOf(
    db
      .selectFrom('user_groups')
      .where('user_groups.customer_id', '=', customerId)
      .where('user_groups.policy_id', '=', policyId)
      .where(ownedInScope('user_groups.customer_id', scope)),
    'user_groups.name',
  );
  const users = await kindOf(
    db
      .selectFrom('internal_users')
      .where('internal_users.customer_id', '=', customerId)
      .where('internal_users.policy_id', '=', policyId)
      .where(ownedInScope('internal_users.customer_id', scope)),
    'internal_users.name',
  );
  const devices = await kindOf(
    db
      .selectFrom('devices')
      .where('devices.customer_id', '=', customerId)
      .where('devices.policy_mode', '=', 'policy')
      .where('devices.policy_id', '=', policyId)
      .where(ownedInScope('devices.customer_id', scope)),
    'devices.name',
  );
  const settings = await db
    .selectFrom('device_settings')
    .select('device_settings.customer_id')
    .where('device_settings.customer_id', '=', customerId)
    .where('device_settings.policy_mode', '=', 'policy')
    .where('device_settings.policy_id', '=', policyId)
    .where(ownedInScope('device_settings.customer_id', scope))
    .executeTakeFirst();
  return dependantsOf({
    locations,
    groups,
    users,
    devices,
    device_settings: { count: settings ? 1 : 0, names: [] },
  });
}

/**
 * Moves everything naming policy `fromId` of customer `customerId` to policy `toId` of the same
 * customer (both already checked in scope): locations (to `null`, "the default", when `toIsDefault`,
 * as a location with no policy uses it), groups, users, devices and the device configuration.
 * @returns how many rows moved, by kind
 */
export async function movePolicyDependants(
  db: Kysely<Database>,
  scope: TenantScope,
  customerId: number,
  fromId: number,
  toId: number,
  toIsDefault: boolean,
): Promise<Record<string, number>> {
  const moved: Record<string, number> = {};
  const count = (r: { numUpdatedRows: bigint }) => Number(r.numUpdatedRows);
  moved.locations = count(
    await db
      .updateTable('locations')
      .set({ policy_id: toIsDefault ? null : toId })
      .where('locations.customer_id', '=', customerId)
      .where('locations.policy_id', '=', fromId)
      .where(ownedInScope('locations.customer_id', scope))
      .executeTakeFirst(),
  );
  moved.groups = count(
    await db
      .updateTable('user_groups')
      .set({ policy_id: toId })
      .where('user_groups.customer_id', '=', customerId)
      .where('user_groups.policy_id', '=', fromId)
      .where(ownedInScope('user_groups.customer_id', scope))
      .executeTakeFirst(),
  );
  moved.users = count(
    await db
      .updateTable('internal_users')
      .set({ policy_id: toId })
      .where('internal_users.customer_id', '=', customerId)
      .where('internal_users.policy_id', '=', fromId)
      .where(ownedInScope('internal_users.customer_id', scope))
      .executeTakeFirst(),
  );
  moved.devices = count(
    await db
      .updateTable('devices')
      .set({ policy_id: toId })
      .where('devices.customer_id', '=', customerId)
      .where('devices.policy_id', '=', fromId)
      .where(ownedInScope('devices.customer_id', scope))
      .executeTakeFirst(),
  );
  moved.device_settings = count(
    await db
      .updateTable('device_settings')
      .set({ policy_id: toId })
      .where('device_settings.customer_id', '=', customerId)
      .where('device_settings.policy_id', '=', fromId)
      .where(ownedInScope('device_settings.customer_id', scope))
      .executeTakeFirst(),
  );
  return moved;
}
