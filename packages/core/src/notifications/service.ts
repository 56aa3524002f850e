import type { Database } from '@cordon/db';
import { nowIso } from '@cordon/db';
import {
  ApiError,
  type NotificationInterval,
  type NotificationWindow,
  type PolicyNotifications,
  type PolicyNotificationsUpdate,
} from '@cordon/shared';
import type { Kysely, Selectable } from 'kysely';
import type { Caller, CoreDeps } from '../context.ts';
import { mutate } from '../mutation/index.ts';
import { defaultPolicyIdFor } from '../policies/index.ts';
import { customerInScope, ownedInScope, scopeOf, type TenantScope } from '../tenancy/index.ts';

type Row = Selectable<Database['policy_notifications']>;

/** What a policy that never saved its notifications answers (spec-notes §3 "Notification settings"). */
const DEFAULTS = { interval: 'daily', period: 'day' } as const;

/** Policy `id` with its customer and MSP, when `scope` may see it; else undefined (a foreign id is a missing one). */
async function policyInScope(
  db: Kysely<Database>,
  scope: TenantScope,
  id: number,
): Promise<{ id: number; customerId: number; mspId: number } | undefined> {
  const row = await db
    .selectFrom('policies')
    .innerJoin('customers', 'customers.id', 'policies.customer_id')
    .select(['policies.id as id', 'policies.customer_id as customerId', 'customers.msp_id as mspId'])
    .where(customerInScope(scope))
    .where('policies.id', '=', id)
    .executeTakeFirst();
  return row;
}

async function findRow(db: Kysely<Database>, scope: TenantScope, policyId: number): Promise<Row | undefined> {
  return db
    .selectFrom('policy_notifications')
    .selectAll()
    .where(ownedInScope('policy_notifications.customer_id', scope))
    .where('policy_notifications.policy_id', '=', policyId)
    .executeTakeFirst();
}

function toWire(policyId: number, customerId: number, row: Row | undefined): PolicyNotifications {
  return {
    policy_id: policyId,
    user_id: customerId,
    categories: row ? (JSON.parse(row.categories) as number[]) : [],
    interval: (row?.interval ?? DEFAULTS.interval) as NotificationInterval,
    period: (row?.period ?? DEFAULTS.period) as NotificationWindow,
    emails: row ? (JSON.parse(row.emails) as string[]) : [],
    last_run_at: row?.last_run_at ?? null,
    last_sent_at: row?.last_sent_at ?? null,
    last_status: row?.last_status ?? null,
    last_reason: row?.last_reason ?? null,
    updated_at: row?.updated_at ?? null,
  };
}

/**
 * `GET /policies/{id}/notifications`: the policy's category notifications (defaults when never saved).
 * @throws ApiError ERR_NOT_FOUND when the policy is missing or another tenant's
 */
export async function getNotifications(deps: CoreDeps, caller: Caller, policyId: number): Promise<PolicyNotifications> {
  const scope = scopeOf(caller);
  const policy = await policyInScope(deps.handle.db, scope, policyId);
  if (!policy) throw new ApiError('ERR_NOT_FOUND');
  return toWire(policy.id, policy.customerId, await findRow(deps.handle.db, scope, policy.id));
}

/**
 * `POST /policies/{id}/notifications`: replaces the policy's category notifications (body already
 * validated by `policyNotificationsUpdateSchema`: categories need a recipient, spec-notes §5).
 * Switching them on (from no categories) starts the interval now, so the first digest goes out one
 * interval later. Audit `notification.update` (entity `policy_notification`, id the policy's).
 * @throws ApiError ERR_NOT_FOUND when the policy is missing or another tenant's; nothing is written then
 */
export async function setNotifications(
  deps: CoreDeps,
  caller: Caller,
  policyId: number,
  body: PolicyNotificationsUpdate,
): Promise<PolicyNotifications> {
  const scope = scopeOf(caller);
  await mutate(
    deps,
    caller,
    { topics: [], audit: { action: 'notification.update', entity: 'policy_notification' } },
    async (trx, note) => {
      const policy = await policyInScope(trx, scope, policyId);
      if (!policy) throw new ApiError('ERR_NOT_FOUND');
      const before = await findRow(trx, scope, policy.id);
      const at = nowIso(deps.now());
      const values = {
        categories: JSON.stringify(body.categories),
        interval: body.interval,
        period: body.period,
        emails: JSON.stringify(body.emails),
        updated_at: at,
      };
      const wasOn = before !== undefined && before.categories !== '[]';
      const isOn = body.categories.length > 0;
      if (before) {
        await trx
          .updateTable('policy_notifications')
          .set(isOn && !wasOn ? { ...values, last_run_at: at } : values)
          .where(ownedInScope('policy_notifications.customer_id', scope))
          .where('policy_id', '=', policy.id)
          .execute();
      } else {
        await trx
          .insertInto('policy_notifications')
          .values({
            policy_id: policy.id,
            customer_id: policy.customerId,
            ...values,
            last_run_at: at,
            last_sent_at: null,
            last_status: null,
            last_reason: null,
            created_at: at,
          })
          .execute();
      }
      note.entityId = policy.id;
      note.mspId = policy.mspId;
      note.customerId = policy.customerId;
      note.before = before ? toWire(policy.id, policy.customerId, before) : null;
      note.after = { ...body };
    },
  );
  return getNotifications(deps, caller, policyId);
}

/**
 * `GET /policies/default/notifications?user_id=`: the notifications of the customer's default policy
 * (a customer admin's own when `user_id` is left out).
 * @throws ApiError ERR_VALIDATION (no user_id for a system or MSP admin), ERR_NOT_FOUND (customer not visible)
 */
export async function getDefaultNotifications(
  deps: CoreDeps,
  caller: Caller,
  userId: number | undefined,
): Promise<PolicyNotifications> {
  return getNotifications(deps, caller, await defaultPolicyIdFor(deps, caller, userId));
}

/** `POST /policies/default/notifications?user_id=`: as {@link setNotifications} for the customer's default policy. */
export async function setDefaultNotifications(
  deps: CoreDeps,
  caller: Caller,
  userId: number | undefined,
  body: PolicyNotificationsUpdate,
): Promise<PolicyNotifications> {
  return setNotifications(deps, caller, await defaultPolicyIdFor(deps, caller, userId), body);
}
