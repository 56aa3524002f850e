import type { CloudKeysTable, Database } from '@cordon/db';
import type { CloudKey, ListQuery } from '@cordon/shared';
import type { Kysely, Selectable, Updateable } from 'kysely';
import { containsAnyText, type ListSort, listPage } from '../paging/index.ts';
import { customerInScope, ownedInScope, type TenantScope } from '../tenancy/index.ts';

/** The cloud-key list's order (docs/api.md "Cloud keys"): `name` (the default sortkey) sorts by the key. */
const SORT: ListSort<string> = {
  columns: {
    name: 'cloud_keys.key',
    key: 'cloud_keys.key',
    description: 'cloud_keys.description',
    times_used: 'cloud_keys.times_used',
    created_at: 'cloud_keys.created_at',
    id: 'cloud_keys.id',
  },
  text: ['cloud_keys.key', 'cloud_keys.description'],
  tiebreak: 'cloud_keys.id',
};

const COLUMNS = [
  'cloud_keys.id',
  'cloud_keys.customer_id',
  'cloud_keys.key',
  'cloud_keys.description',
  'cloud_keys.max_uses',
  'cloud_keys.times_used',
  'cloud_keys.valid_from',
  'cloud_keys.valid_to',
  'cloud_keys.expires_after_s',
  'cloud_keys.active',
  'cloud_keys.created_at',
  'cloud_keys.updated_at',
] as const;

type CloudKeyRow = Selectable<CloudKeysTable>;

/** The keys of customer `customerId` within `scope` (joined to `customers`, so a foreign customer yields nothing). */
function keyQuery(db: Kysely<Database>, scope: TenantScope, customerId: number) {
  return db
    .selectFrom('cloud_keys')
    .innerJoin('customers', 'customers.id', 'cloud_keys.customer_id')
    .where(customerInScope(scope))
    .where('cloud_keys.customer_id', '=', customerId)
    .select(COLUMNS);
}

/** The wire form of a row (spec-notes §3 "Cloud key"). */
export function toCloudKey(r: CloudKeyRow): CloudKey {
  return {
    id: r.id,
    key: r.key,
    description: r.description,
    max_uses: r.max_uses === null ? null : Number(r.max_uses),
    times_used: Number(r.times_used),
    valid_from: r.valid_from,
    valid_to: r.valid_to,
    expires_after: Number(r.expires_after_s),
    active: r.active === 1,
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}

/** One page of the customer's keys; `filter` matches the key or the description. */
export async function listKeys(
  db: Kysely<Database>,
  scope: TenantScope,
  customerId: number,
  query: ListQuery,
): Promise<{ data: CloudKey[]; total: number }> {
  let base = keyQuery(db, scope, customerId);
  if (query.filter) base = base.where(containsAnyText(['cloud_keys.key', 'cloud_keys.description'], query.filter));
  const { rows, total } = await listPage(base, query, SORT);
  return { data: rows.map(toCloudKey), total };
}

/** Key `id` of customer `customerId` within `scope`, or undefined (missing, foreign, or another customer's). */
export async function getKey(
  db: Kysely<Database>,
  scope: TenantScope,
  customerId: number,
  id: number,
): Promise<CloudKey | undefined> {
  const row = await keyQuery(db, scope, customerId).where('cloud_keys.id', '=', id).executeTakeFirst();
  return row ? toCloudKey(row) : undefined;
}

/** True when customer `customerId` already has key text `key` (other than key `exceptId`). */
export async function keyTaken(db: Kysely<Database>, customerId: number, key: string, exceptId?: number) {
  let q = db.selectFrom('cloud_keys').select('id').where('customer_id', '=', customerId).where('key', '=', key);
  if (exceptId !== undefined) q = q.where('id', '!=', exceptId);
  return (await q.executeTakeFirst()) !== undefined;
}

/** Inserts a key; returns its id. The caller has checked the customer is visible. */
export async function insertKey(
  db: Kysely<Database>,
  customerId: number,
  values: Omit<CloudKeysTable, 'id' | 'customer_id' | 'times_used' | 'created_at' | 'updated_at'>,
  at: string,
): Promise<number> {
  const row = await db
    .insertInto('cloud_keys')
    .values({ ...values, customer_id: customerId, times_used: 0, created_at: at, updated_at: at })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** Updates key `id` of customer `customerId` within `scope`; returns whether a row changed. */
export async function updateKey(
  db: Kysely<Database>,
  scope: TenantScope,
  customerId: number,
  id: number,
  patch: Updateable<CloudKeysTable>,
  at: string,
): Promise<boolean> {
  const res = await db
    .updateTable('cloud_keys')
    .set({ ...patch, updated_at: at })
    .where('id', '=', id)
    .where('customer_id', '=', customerId)
    .where(ownedInScope('cloud_keys.customer_id', scope))
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

/** Deletes key `id` of customer `customerId` within `scope` and its bypasses; returns whether it existed. */
export async function deleteKey(db: Kysely<Database>, scope: TenantScope, customerId: number, id: number) {
  await endBypasses(db, scope, customerId, id);
  const res = await db
    .deleteFrom('cloud_keys')
    .where('id', '=', id)
    .where('customer_id', '=', customerId)
    .where(ownedInScope('cloud_keys.customer_id', scope))
    .executeTakeFirst();
  return Number(res.numDeletedRows) > 0;
}

/** Deletes the bypasses key `id` started (key deleted or deactivated); returns how many. */
export async function endBypasses(db: Kysely<Database>, scope: TenantScope, customerId: number, id: number) {
  const res = await db
    .deleteFrom('bypasses')
    .where('cloud_key_id', '=', id)
    .where('customer_id', '=', customerId)
    .where(ownedInScope('bypasses.customer_id', scope))
    .executeTakeFirst();
  return Number(res.numDeletedRows);
}
