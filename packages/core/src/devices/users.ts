import type { Database } from '@cordon/db';
import { nowIso } from '@cordon/db';
import { ApiError, DEVICE_AGENT_USER_CAP, type DeviceUsers, type DeviceUsersUpdate, Role } from '@cordon/shared';
import { type Kysely, sql } from 'kysely';
import { type Caller, type CoreDeps, OPERATOR } from '../context.ts';
import { recordAgentLogin } from '../internalusers/index.ts';
import { mutate } from '../mutation/index.ts';
import { scopeOf } from '../tenancy/index.ts';
import * as repo from './repository.ts';

/** Binding changes reach the resolvers' devices part (docs/architecture.md "Identification"). */
const TOPICS = ['devices'] as const;

/** The users device `deviceId` may assert, oldest binding first. */
async function boundUsers(db: Kysely<Database>, customerId: number, deviceId: number): Promise<DeviceUsers> {
  const rows = await db
    .selectFrom('device_users')
    .innerJoin('internal_users', 'internal_users.id', 'device_users.user_id')
    .select(['internal_users.id', 'internal_users.name', 'device_users.source', 'device_users.created_at'])
    .where('device_users.device_id', '=', deviceId)
    .where('device_users.customer_id', '=', customerId)
    .orderBy('device_users.created_at')
    .orderBy('internal_users.id')
    .execute();
  const device = await db
    .selectFrom('devices')
    .select('user_reports_refused')
    .where('id', '=', deviceId)
    .where('customer_id', '=', customerId)
    .executeTakeFirst();
  return {
    users: rows.map((r) => ({
      id: r.id,
      name: r.name,
      source: r.source === 'admin' ? 'admin' : 'agent',
      created_at: r.created_at,
    })),
    user_reports_refused: Number(device?.user_reports_refused ?? 0),
    agent_user_cap: DEVICE_AGENT_USER_CAP,
  };
}

/**
 * `GET /users/{id}/devices/{deviceId}/users` (docs/api.md "Device users"): the users the device may
 * assert (EDNS(0) option 65074, the heartbeat's `user`) and its refused heartbeat user reports.
 * @throws ApiError ERR_NOT_FOUND when the device is missing or another customer's
 */
export async function getDeviceUsers(
  deps: CoreDeps,
  caller: Caller,
  customerId: number,
  deviceId: number,
): Promise<DeviceUsers> {
  const db = deps.handle.db;
  if (!(await repo.getDevice(db, scopeOf(caller), customerId, deviceId))) throw new ApiError('ERR_NOT_FOUND');
  return boundUsers(db, customerId, deviceId);
}

/**
 * `PUT /users/{id}/devices/{deviceId}/users` (docs/api.md "Device users"; docs/security.md "Identity
 * claims"): the complete set of users the device may assert. Every id must be an internal user of
 * customer `customerId` (checked in SQL by customer, so another tenant's user is refused like a
 * missing one); users already bound keep their source, new ones are bound by the admin, bound users
 * left out are unbound. Audit `device.users`; publishes `devices`.
 * @throws ApiError ERR_NOT_FOUND for a missing or foreign device; ERR_VALIDATION (field `user_ids`)
 *   for an id that is no user of this customer (nothing changes)
 */
export async function setDeviceUsers(
  deps: CoreDeps,
  caller: Caller,
  customerId: number,
  deviceId: number,
  body: DeviceUsersUpdate,
): Promise<DeviceUsers> {
  const scope = scopeOf(caller);
  const wanted = [...new Set(body.user_ids)];
  await mutate(
    deps,
    caller,
    { topics: TOPICS, audit: { action: 'device.users', entity: 'device' } },
    async (trx, note) => {
      if (!(await repo.getDevice(trx, scope, customerId, deviceId))) throw new ApiError('ERR_NOT_FOUND');
      if (wanted.length > 0) {
        const found = await trx
          .selectFrom('internal_users')
          .select('id')
          .where('customer_id', '=', customerId)
          .where('id', 'in', wanted)
          .execute();
        if (found.length !== wanted.length) {
          const text = 'Must name users of this customer.';
          throw new ApiError('ERR_VALIDATION', text, { user_ids: text });
        }
      }
      const before = await boundUsers(trx, customerId, deviceId);
      const had = new Set(before.users.map((u) => u.id));
      const gone = before.users.filter((u) => !wanted.includes(u.id)).map((u) => u.id);
      if (gone.length > 0) {
        await trx
          .deleteFrom('device_users')
          .where('device_id', '=', deviceId)
          .where('customer_id', '=', customerId)
          .where('user_id', 'in', gone)
          .execute();
      }
      const at = nowIso(deps.now());
      const added = wanted.filter((id) => !had.has(id));
      if (added.length > 0) {
        await trx
          .insertInto('device_users')
          .values(
            added.map((userId) => ({
              device_id: deviceId,
              user_id: userId,
              customer_id: customerId,
              source: 'admin' as const,
              created_at: at,
            })),
          )
          .execute();
      }
      note.entityId = deviceId;
      note.customerId = customerId;
      note.before = before.users.map((u) => ({ id: u.id, source: u.source }));
      note.after = { user_ids: wanted };
    },
  );
  return boundUsers(deps.handle.db, customerId, deviceId);
}

/** What a heartbeat's user report came to (docs/security.md "Identity claims"). */
export type ReportedUser =
  /** A bound user (found, or just bound): its policy applies to the device's queries. */
  | { readonly kind: 'bound'; readonly id: number; readonly policy_id: number | null }
  /** Refused and counted: the device's own policy applies. */
  | { readonly kind: 'refused'; readonly why: 'cap' | 'needs-admin' };

/**
 * A heartbeat's `user` (the OS user the agent reports; docs/security.md "Identity claims"). The report
 * is text the device key's holder chooses, so it is trusted only this far:
 *
 * - a user already bound to the device (by an admin, or by an earlier report) is recorded as logged in;
 * - otherwise, while the device holds fewer than {@link DEVICE_AGENT_USER_CAP} agent-bound users,
 *   a new name becomes an internal user bound to the device (`agent`), and an existing user is bound
 *   only when binding it gives the device nothing: no policy of its own and no group (a user with
 *   either is brought to a new device by an admin's binding);
 * - anything else is refused, counted in `devices.user_reports_refused`, and the device keeps its own policy.
 *
 * A new binding is audited (`device.user.report`, no admin) and publishes `devices`.
 */
export async function reportedUser(
  deps: CoreDeps,
  device: { id: number; customer_id: number; msp_id: number },
  name: string,
  clientIp: string,
): Promise<ReportedUser> {
  const db = deps.handle.db;
  const caller = {
    ...OPERATOR,
    role: Role.Customer,
    mspId: device.msp_id,
    customerId: device.customer_id,
    ip: clientIp,
  };
  const bound = await db
    .selectFrom('device_users')
    .innerJoin('internal_users', 'internal_users.id', 'device_users.user_id')
    .select(['internal_users.id'])
    .where('device_users.device_id', '=', device.id)
    .where('device_users.customer_id', '=', device.customer_id)
    .where('internal_users.name', '=', name)
    .executeTakeFirst();
  if (bound) {
    const user = await recordAgentLogin(deps, caller, name, clientIp, device.id);
    return { kind: 'bound', id: user.id, policy_id: user.policy_id };
  }
  const refuse = async (why: 'cap' | 'needs-admin'): Promise<ReportedUser> => {
    await db
      .updateTable('devices')
      .set({ user_reports_refused: sql<number>`user_reports_refused + 1` })
      .where('id', '=', device.id)
      .execute();
    return { kind: 'refused', why };
  };
  const agentBound = await db
    .selectFrom('device_users')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('device_id', '=', device.id)
    .where('source', '=', 'agent')
    .executeTakeFirstOrThrow();
  if (Number(agentBound.n) >= DEVICE_AGENT_USER_CAP) return refuse('cap');
  const existing = await db
    .selectFrom('internal_users')
    .select(['id', 'policy_id'])
    .select((eb) =>
      eb
        .exists(eb.selectFrom('user_group_members').select('user_id').whereRef('user_id', '=', 'internal_users.id'))
        .as('grouped'),
    )
    .where('customer_id', '=', device.customer_id)
    .where('name', '=', name)
    .executeTakeFirst();
  if (existing && (existing.policy_id !== null || Boolean(existing.grouped))) return refuse('needs-admin');
  const user = await recordAgentLogin(deps, caller, name, clientIp, device.id);
  await mutate(
    deps,
    caller,
    {
      topics: TOPICS,
      audit: { action: 'device.user.report', entity: 'device' },
      // A second heartbeat racing with the same report: the binding is there already.
      conflict: () => new ApiError('ERR_CONFLICT', 'This user was just bound; try again.'),
    },
    async (trx, note) => {
      await trx
        .insertInto('device_users')
        .values({
          device_id: device.id,
          user_id: user.id,
          customer_id: device.customer_id,
          source: 'agent',
          created_at: nowIso(deps.now()),
        })
        .execute();
      note.entityId = device.id;
      note.customerId = device.customer_id;
      note.after = { user_id: user.id, name, source: 'agent' };
    },
  );
  return { kind: 'bound', id: user.id, policy_id: user.policy_id };
}
