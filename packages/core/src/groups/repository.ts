import type { Database } from '@cordon/db';
import type { Dependants, Group, ListQuery } from '@cordon/shared';
import { type Kysely, sql } from 'kysely';
import { dependantsOf, kindOf } from '../dependants/index.ts';
import { containsAnyText, type ListSort, listPage } from '../paging/index.ts';
import { customerInScope, ownedInScope, type TenantScope } from '../tenancy/index.ts';

/** The group list's order (docs/api.md "Conventions"); the ranking page sorts by `weight`. */
const SORT: ListSort<string> = {
  columns: {
    name: 'user_groups.name',
    weight: 'user_groups.weight',
    description: 'user_groups.description',
    last_updated: 'user_groups.updated_at',
    last_modified: 'user_groups.updated_at',
    id: 'user_groups.id',
  },
  text: ['user_groups.name', 'user_groups.description'],
  tiebreak: 'user_groups.id',
};

function groupQuery(db: Kysely<Database>, scope: TenantScope, customerId: number) {
  return db
    .selectFrom('user_groups')
    .innerJoin('customers', 'customers.id', 'user_groups.customer_id')
    .leftJoin('policies', 'policies.id', 'user_groups.policy_id')
    .where(customerInScope(scope))
    .where('user_groups.customer_id', '=', customerId)
    .select((eb) => [
      'user_groups.id',
      'user_groups.name',
      'user_groups.description',
      'user_groups.policy_id',
      'user_groups.weight',
      'user_groups.disabled',
      'user_groups.updated_at',
      'policies.name as policy_name',
      eb
        .selectFrom('user_group_members')
        .select(sql<number>`count(*)`.as('n'))
        .whereRef('user_group_members.group_id', '=', 'user_groups.id')
        .as('users_count'),
    ]);
}

type GroupRow = {
  id: number;
  name: string;
  description: string;
  policy_id: number | null;
  weight: number;
  disabled: number;
  updated_at: string;
  policy_name: string | null;
  users_count: number | string | null;
};

function toGroup(r: GroupRow): Group {
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    policy_id: r.policy_id,
    policy: r.policy_name ?? '',
    weight: Number(r.weight),
    disable: Number(r.disabled) === 1,
    users_count: Number(r.users_count ?? 0),
    last_updated: r.updated_at,
    last_modified: r.updated_at,
  };
}

/** One page of customer `customerId`'s groups within `scope`; `filter` matches name or description. */
export async function listGroups(
  db: Kysely<Database>,
  scope: TenantScope,
  customerId: number,
  query: ListQuery,
): Promise<{ data: Group[]; total: number }> {
  let base = groupQuery(db, scope, customerId);
  if (query.filter) base = base.where(containsAnyText(['user_groups.name', 'user_groups.description'], query.filter));
  const { rows, total } = await listPage(base, query, SORT);
  return { data: rows.map(toGroup), total };
}

/** Group `groupId` of customer `customerId` within `scope`, or undefined. */
export async function getGroup(
  db: Kysely<Database>,
  scope: TenantScope,
  customerId: number,
  groupId: number,
): Promise<Group | undefined> {
  const row = await groupQuery(db, scope, customerId).where('user_groups.id', '=', groupId).executeTakeFirst();
  return row ? toGroup(row) : undefined;
}

/** The ids among `ids` that are groups of customer `customerId` within `scope`. */
export async function groupIdsOfCustomer(
  db: Kysely<Database>,
  scope: TenantScope,
  customerId: number,
  ids: readonly number[],
): Promise<number[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('user_groups')
    .innerJoin('customers', 'customers.id', 'user_groups.customer_id')
    .where(customerInScope(scope))
    .where('user_groups.customer_id', '=', customerId)
    .where('user_groups.id', 'in', [...ids])
    .select('user_groups.id')
    .execute();
  return rows.map((r) => r.id);
}

/** The next weight of customer `customerId`: one past the lowest rank (1 for the first group). */
export async function nextWeight(db: Kysely<Database>, customerId: number): Promise<number> {
  const row = await db
    .selectFrom('user_groups')
    .select(sql<number | null>`max(weight)`.as('w'))
    .where('customer_id', '=', customerId)
    .executeTakeFirst();
  return Number(row?.w ?? 0) + 1;
}

/** Inserts a group of customer `customerId` (already checked in scope); returns its id. */
export async function insertGroup(
  db: Kysely<Database>,
  customerId: number,
  values: { name: string; description: string; policy_id: number | null; disabled: number; weight: number },
  at: string,
): Promise<number> {
  const row = await db
    .insertInto('user_groups')
    .values({ customer_id: customerId, ...values, created_at: at, updated_at: at })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** Updates group `groupId` of customer `customerId` within `scope`; false when not visible. */
export async function updateGroup(
  db: Kysely<Database>,
  scope: TenantScope,
  customerId: number,
  groupId: number,
  patch: Partial<{ name: string; description: string; policy_id: number | null; disabled: number; weight: number }>,
  at: string,
): Promise<boolean> {
  const result = await db
    .updateTable('user_groups')
    .set({ ...patch, updated_at: at })
    .where('id', '=', groupId)
    .where('customer_id', '=', customerId)
    .where(ownedInScope('user_groups.customer_id', scope))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Deletes group `groupId` of customer `customerId` within `scope` (memberships by cascade); false when not visible. */
export async function deleteGroup(
  db: Kysely<Database>,
  scope: TenantScope,
  customerId: number,
  groupId: number,
): Promise<boolean> {
  const result = await db
    .deleteFrom('user_groups')
    .where('id', '=', groupId)
    .where('customer_id', '=', customerId)
    .where(ownedInScope('user_groups.customer_id', scope))
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** True when another group of the customer (not `exceptId`) has this name (case-insensitive). */
export async function groupNameTaken(
  db: Kysely<Database>,
  customerId: number,
  name: string,
  exceptId?: number,
): Promise<boolean> {
  let q = db
    .selectFrom('user_groups')
    .select('id')
    .where('customer_id', '=', customerId)
    .where(sql`lower(name)`, '=', name.toLowerCase());
  if (exceptId !== undefined) q = q.where('id', '!=', exceptId);
  return (await q.executeTakeFirst()) !== undefined;
}

/**
 * What depends on group `groupId` of customer `customerId` (docs/api.md "Deletes of things in use"):
 * its `members` (internal users), tenant-scoped in SQL.
 */
export async function groupDependants(
  db: Kysely<Database>,
  scope: TenantScope,
  customerId: number,
  groupId: number,
): Promise<Dependants> {
  const members = await kindOf(
    db
      .selectFrom('user_group_members')
      .innerJoin('internal_users', 'internal_users.id', 'user_group_members.user_id')
      .where('user_group_members.group_id', '=', groupId)
      .where('user_group_members.customer_id', '=', customerId)
      .where(ownedInScope('user_group_members.customer_id', scope)),
    'internal_users.name',
  );
  return dependantsOf({ members });
}

/**
 * Adds every member of group `fromId` to group `toId` (both of customer `customerId`, already checked
 * in scope) unless already there. @returns how many memberships were added
 */
export async function moveGroupMembers(
  db: Kysely<Database>,
  scope: TenantScope,
  customerId: number,
  fromId: number,
  toId: number,
): Promise<number> {
  const already = db.selectFrom('user_group_members as t').select('t.user_id').where('t.group_id', '=', toId);
  const result = await db
    .insertInto('user_group_members')
    .columns(['user_id', 'group_id', 'customer_id'])
    .expression(
      db
        .selectFrom('user_group_members')
        .select((eb) => [
          'user_group_members.user_id',
          eb.val(toId).as('group_id'),
          eb.val(customerId).as('customer_id'),
        ])
        .where('user_group_members.group_id', '=', fromId)
        .where('user_group_members.customer_id', '=', customerId)
        .where(ownedInScope('user_group_members.customer_id', scope))
        .where('user_group_members.user_id', 'not in', already),
    )
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n);
}
