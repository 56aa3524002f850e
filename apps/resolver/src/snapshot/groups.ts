import type { DatabaseHandle } from '@cordon/db';
import { sql } from 'kysely';
import { big, type SnapshotPart, tableDigest } from './part.ts';

/** An internal user as the precedence rule needs it (docs/architecture.md "Identification"). */
export interface UserRow {
  readonly userId: number;
  readonly customerId: number;
  /** The OS user name the agent reports (unique per customer). */
  readonly name: string;
  /** Its own policy; null: none (its group's, then the device's apply). */
  readonly policyId: number | null;
  /**
   * Its effective group: of its enabled groups that name a policy, the highest ranked (lowest
   * weight; ties: lowest id); null when none.
   */
  readonly groupId: number | null;
  /** That group's policy; null when `groupId` is null. */
  readonly groupPolicyId: number | null;
}

/** The groups part: internal users by customer and name, each with its effective group resolved. */
export interface GroupsSnapshot {
  /** customer id → user name → user. */
  readonly users: ReadonlyMap<number, ReadonlyMap<string, UserRow>>;
  /** Users read. */
  readonly size: number;
}

/**
 * The groups part (topics `groups`, `tenants`): every internal user with its own policy
 * and its effective group (spec-notes §4: "A group higher in the ranking takes precedence"; weight 1 is
 * the highest), resolved here once per load so a query reads one map entry. Groups and users
 * change by hand (or when an agent first reports a user), so a change re-reads the tables whole.
 * A deleted policy needs no reload: its id no longer names a compiled policy, so identification
 * passes to the next level of the precedence.
 */
export const groupsPart: SnapshotPart<GroupsSnapshot> = {
  name: 'groups',
  topics: ['groups', 'tenants'],
  empty: () => ({ users: new Map(), size: 0 }),
  load: (handle: DatabaseHandle) =>
    handle.db
      .transaction()
      .setAccessMode('read only')
      .execute(async (trx) => {
        const groups = new Map<number, { policyId: number; weight: number }>();
        for (const g of await trx
          .selectFrom('user_groups')
          .select(['id', 'policy_id', 'weight'])
          .where('disabled', '=', 0)
          .where('policy_id', 'is not', null)
          .execute()) {
          groups.set(g.id, { policyId: g.policy_id!, weight: Number(g.weight) });
        }
        // user id → [group id, weight] of its best group so far.
        const best = new Map<number, { groupId: number; weight: number; policyId: number }>();
        for (const m of await trx.selectFrom('user_group_members').select(['user_id', 'group_id']).execute()) {
          const g = groups.get(m.group_id);
          if (!g) continue;
          const cur = best.get(m.user_id);
          if (!cur || g.weight < cur.weight || (g.weight === cur.weight && m.group_id < cur.groupId)) {
            best.set(m.user_id, { groupId: m.group_id, weight: g.weight, policyId: g.policyId });
          }
        }
        const users = new Map<number, Map<string, UserRow>>();
        let size = 0;
        for (const u of await trx
          .selectFrom('internal_users')
          .select(['id', 'customer_id', 'name', 'policy_id'])
          .orderBy('id')
          .execute()) {
          let byName = users.get(u.customer_id);
          if (!byName) {
            byName = new Map();
            users.set(u.customer_id, byName);
          }
          const g = best.get(u.id);
          byName.set(u.name, {
            userId: u.id,
            customerId: u.customer_id,
            name: u.name,
            policyId: u.policy_id,
            groupId: g?.groupId ?? null,
            groupPolicyId: g?.policyId ?? null,
          });
          size++;
        }
        return { users, size };
      }),
  digest: (handle) =>
    tableDigest(handle, [
      {
        table: 'user_groups',
        rows: [
          sql`(${big(sql.ref('id'))} * 1048576 + coalesce(policy_id, 0)) * 2 + disabled`,
          sql`${big(sql.ref('id'))} * 65536 + weight`,
        ],
        stamps: ['updated_at'],
      },
      { table: 'user_group_members', rows: [sql`${big(sql.ref('user_id'))} * 1048576 + group_id`] },
      {
        table: 'internal_users',
        rows: [sql`(${big(sql.ref('id'))} * 1048576 + coalesce(policy_id, 0)) * 256 + length(name)`],
        stamps: ['updated_at'],
      },
    ]),
};
