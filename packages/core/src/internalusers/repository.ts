import type { Database } from '@cordon/db';
import type { InternalUser, ListQuery } from '@cordon/shared';
import type { Kysely } from 'kysely';
import { containsAnyText, type ListSort, listPage } from '../paging/index.ts';
import { customerInScope, ownedInScope, type TenantScope } from '../tenancy/index.ts';

/** The internal-user list's order (docs/api.md "Conventions"). */
const SORT: ListSort<string> = {
  columns: {
    name: 'internal_users.name',
    description: 'internal_users.description',
    last_login: 'internal_users.last_login_at',
    last_login_ip: 'internal_users.last_login_ip',
    id: 'internal_users.id',
  },
  text: ['internal_users.name', 'internal_users.description'],
  tiebreak: 'internal_users.id',
};

function userQuery(db: Kysely<Database>, scope: TenantScope, customerId: number) {
  return db
    .selectFrom('internal_users')
    .innerJoin('customers', 'customers.id', 'internal_users.customer_id')
    .leftJoin('policies', 'policies.id', 'internal_users.policy_id')
    .where(customerInScope(scope))
    .where('internal_users.customer_id', '=', customerId)
    .select([
      'internal_users.id',
      'internal_users.name',
      'internal_users.description',
      'internal_users.policy_id',
      'internal_users.last_login_at',
      'internal_users.last_login_ip',
      'policies.name as policy_name',
    ]);
}

type UserRow = {
  id: number;
  name: string;
  description: string;
  policy_id: number | null;
  last_login_at: string | null;
  last_login_ip: string;
  policy_name: string | null;
};

/**
 * The wire form of users, with their groups: `group_ids` all of them by rank, `group_id`/`group`
 * the effective one — the enabled group highest in the ranking (weight 1 first; spec-notes §4).
 */
async function hydrate(db: Kysely<Database>, rows: UserRow[]): Promise<InternalUser[]> {
  if (rows.length === 0) return [];
  const members = await db
    .selectFrom('user_group_members')
    .innerJoin('user_groups', 'user_groups.id', 'user_group_members.group_id')
    .select(['user_group_members.user_id', 'user_groups.id', 'user_groups.name', 'user_groups.disabled'])
    .where(
      'user_group_members.user_id',
      'in',
      rows.map((r) => r.id),
    )
    .orderBy('user_groups.weight')
    .orderBy('user_groups.id')
    .execute();
  return rows.map((r) => {
    const own = members.filter((m) => m.user_id === r.id);
    const effective = own.find((m) => Number(m.disabled) === 0);
    return {
      id: r.id,
      name: r.name,
      description: r.description,
      policyid: r.policy_id,
      policy: r.policy_name ?? '',
      group_id: effective?.id ?? null,
      group: effective?.name ?? null,
      group_ids: own.map((m) => m.id),
      role: 'user',
      last_login: r.last_login_at,
      last_login_ip: r.last_login_ip,
    };
  });
}

/** One page of customer `customerId`'s internal users within `scope`; `group_id` keeps a group's members. */
export async function listUsers(
  db: Kysely<Database>,
  scope: TenantScope,
  customerId: number,
  query: ListQuery & { group_id?: number | undefined },
): Promise<{ data: InternalUser[]; total: number }> {
  let base = userQuery(db, scope, customerId);
  if (query.filter)
    base = base.where(containsAnyText(['internal_users.name', 'internal_users.description'], query.filter));
  if (query.group_id !== undefined) {
    const groupId = query.group_id;
    base = base.where((eb) =>
      eb.exists(
        eb
          .selectFrom('user_group_members')
          .select('user_group_members.user_id')
          .whereRef('user_group_members.user_id', '=', 'internal_users.id')
          .where('user_group_members.group_id', '=', groupId),
      ),
    );
  }
  const { rows, total } = await listPage(base, query, SORT);
  return { data: await hydrate(db, rows), total };
}

/** Internal user `userId` of customer `customerId` within `scope`, or undefined. */
export async function getUser(
  db: Kysely<Database>,
  scope: TenantScope,
  customerId: number,
  userId: number,
): Promise<InternalUser | undefined> {
  const row = await userQuery(db, scope, customerId).where('internal_users.id', '=', userId).executeTakeFirst();
  return row ? (await hydrate(db, [row]))[0] : undefined;
}

/** Updates user `userId` of customer `customerId` within `scope`; false when not visible. */
export async function updateUser(
  db: Kysely<Database>,
  scope: TenantScope,
  customerId: number,
  userId: number,
  patch: Partial<{ policy_id: number | null; description: string }>,
  at: string,
): Promise<boolean> {
  const result = await db
    .updateTable('internal_users')
    .set({ ...patch, updated_at: at })
    .where('id', '=', userId)
    .where('customer_id', '=', customerId)
    .where(ownedInScope('internal_users.customer_id', scope))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Replaces the groups of user `userId` of customer `customerId` (both already checked in scope). */
export async function setGroups(
  db: Kysely<Database>,
  customerId: number,
  userId: number,
  groupIds: readonly number[],
): Promise<void> {
  await db.deleteFrom('user_group_members').where('user_id', '=', userId).execute();
  if (groupIds.length === 0) return;
  await db
    .insertInto('user_group_members')
    .values(groupIds.map((group_id) => ({ user_id: userId, group_id, customer_id: customerId })))
    .execute();
}

/** Deletes user `userId` of customer `customerId` within `scope`; false when not visible. */
export async function deleteUser(
  db: Kysely<Database>,
  scope: TenantScope,
  customerId: number,
  userId: number,
): Promise<boolean> {
  const result = await db
    .deleteFrom('internal_users')
    .where('id', '=', userId)
    .where('customer_id', '=', customerId)
    .where(ownedInScope('internal_users.customer_id', scope))
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** The user of customer `customerId` named `name` (as the agent reports it), or undefined. */
export async function userByName(
  db: Kysely<Database>,
  customerId: number,
  name: string,
): Promise<{ id: number; policy_id: number | null } | undefined> {
  return db
    .selectFrom('internal_users')
    .select(['id', 'policy_id'])
    .where('customer_id', '=', customerId)
    .where('name', '=', name)
    .executeTakeFirst();
}

/** Inserts a user of customer `customerId` first reported by an agent; returns its id. */
export async function insertUser(
  db: Kysely<Database>,
  customerId: number,
  values: { name: string; last_login_at: string; last_login_ip: string; last_device_id: number },
  at: string,
): Promise<number> {
  const row = await db
    .insertInto('internal_users')
    .values({ customer_id: customerId, description: '', policy_id: null, ...values, created_at: at, updated_at: at })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** Records a login of user `userId` seen by an agent: time, address and device (not a tenant change: no audit). */
export async function touchUser(
  db: Kysely<Database>,
  userId: number,
  values: { last_login_at: string; last_login_ip: string; last_device_id: number },
): Promise<void> {
  await db.updateTable('internal_users').set(values).where('id', '=', userId).execute();
}

/**
 * The policy of the effective group of user `userId` (enabled groups with a policy, highest rank
 * first; docs/decisions.md "Environment"), or null.
 */
export async function groupPolicyOf(db: Kysely<Database>, userId: number): Promise<number | null> {
  const row = await db
    .selectFrom('user_group_members')
    .innerJoin('user_groups', 'user_groups.id', 'user_group_members.group_id')
    .select('user_groups.policy_id')
    .where('user_group_members.user_id', '=', userId)
    .where('user_groups.disabled', '=', 0)
    .where('user_groups.policy_id', 'is not', null)
    .orderBy('user_groups.weight')
    .orderBy('user_groups.id')
    .limit(1)
    .executeTakeFirst();
  return row?.policy_id ?? null;
}
