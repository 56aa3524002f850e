import type { Database } from '@cordon/db';
import {
  ApiError,
  type DeviceEffectivePolicy,
  type EffectivePolicy,
  type EffectiveStep,
  type PolicyMode,
  type PolicyRef,
  type UserEffectivePolicy,
} from '@cordon/shared';
import type { Kysely } from 'kysely';
import type { Caller, CoreDeps } from '../context.ts';
import { customerInScope, scopeOf, type TenantScope } from '../tenancy/index.ts';

/** A customer's policies by id, and its default (what `policyOf`/`defaultOf` of the resolver see). */
interface Policies {
  byId: Map<number, PolicyRef>;
  fallback: PolicyRef | null;
}

/** A device's choice as identification reads it: its own mode and policy, and the configuration's. */
interface DeviceChoice {
  id: number;
  name: string;
  mode: PolicyMode;
  policyId: number | null;
  cfgMode: PolicyMode | null;
  cfgPolicyId: number | null;
}

/** A user with its effective group (enabled, naming a policy, lowest weight then lowest id). */
interface UserChoice {
  id: number;
  name: string;
  policyId: number | null;
  group: { id: number; name: string; weight: number; policyId: number } | null;
}

function asMode(mode: string | null | undefined): PolicyMode {
  return mode === 'policy' || mode === 'group' ? mode : 'default';
}

/**
 * The policies of customer `customerId` within `scope` (tenant in SQL), or undefined when the
 * customer is not visible. The default is the lowest-id `is_default` policy.
 */
async function policiesOf(db: Kysely<Database>, scope: TenantScope, customerId: number): Promise<Policies | undefined> {
  const customer = await db
    .selectFrom('customers')
    .select('customers.id')
    .where(customerInScope(scope))
    .where('customers.id', '=', customerId)
    .executeTakeFirst();
  if (!customer) return undefined;
  const rows = await db
    .selectFrom('policies')
    .select(['id', 'name', 'is_default'])
    .where('customer_id', '=', customerId)
    .orderBy('id')
    .execute();
  const byId = new Map<number, PolicyRef>();
  let fallback: PolicyRef | null = null;
  for (const r of rows) {
    const ref = { id: r.id, name: r.name };
    byId.set(r.id, ref);
    if (fallback === null && Number(r.is_default) === 1) fallback = ref;
  }
  return { byId, fallback };
}

/** Users of customer `customerId` with their effective group, by id (`ids` empty: none read). */
async function usersOf(db: Kysely<Database>, customerId: number, ids: readonly number[]): Promise<UserChoice[]> {
  if (ids.length === 0) return [];
  const users = await db
    .selectFrom('internal_users')
    .select(['id', 'name', 'policy_id'])
    .where('customer_id', '=', customerId)
    .where('id', 'in', ids)
    .execute();
  // The resolver's groups part: of a user's enabled groups that name a policy, the lowest weight (rank
  // 1 first), ties by lowest id (docs/architecture.md "Identification").
  const groups = await db
    .selectFrom('user_group_members as m')
    .innerJoin('user_groups as g', 'g.id', 'm.group_id')
    .select(['m.user_id', 'g.id', 'g.name', 'g.weight', 'g.policy_id'])
    .where('m.customer_id', '=', customerId)
    .where('g.customer_id', '=', customerId)
    .where('m.user_id', 'in', ids)
    .where('g.disabled', '=', 0)
    .where('g.policy_id', 'is not', null)
    .orderBy('g.weight')
    .orderBy('g.id')
    .execute();
  const best = new Map<number, UserChoice['group']>();
  for (const g of groups) {
    if (!best.has(g.user_id)) {
      best.set(g.user_id, { id: g.id, name: g.name, weight: Number(g.weight), policyId: g.policy_id! });
    }
  }
  const byId = new Map(users.map((u) => [u.id, u]));
  return ids.flatMap((id) => {
    const u = byId.get(id);
    return u ? [{ id: u.id, name: u.name, policyId: u.policy_id, group: best.get(u.id) ?? null }] : [];
  });
}

function step(
  source: EffectiveStep['source'],
  outcome: EffectiveStep['outcome'],
  fields: Partial<Pick<EffectiveStep, 'id' | 'name' | 'mode' | 'rank' | 'policy'>> = {},
): EffectiveStep {
  return {
    source,
    id: fields.id ?? null,
    name: fields.name ?? null,
    mode: fields.mode ?? null,
    rank: fields.rank ?? null,
    policy: fields.policy ?? null,
    outcome,
    applied: outcome === 'chosen',
  };
}

/** The user's own steps: its own policy, then its group's (skipped when `groupsCount` is false). */
function userSteps(
  policies: Policies,
  user: UserChoice,
  groupsCount: boolean,
): { steps: EffectiveStep[]; chosen: PolicyRef | null } {
  const own = user.policyId === null ? null : (policies.byId.get(user.policyId) ?? null);
  const steps = [step('user', own ? 'chosen' : 'no_policy', { id: user.id, name: user.name, policy: own })];
  if (own) return { steps, chosen: own };
  if (user.group) {
    // A group whose policy is gone or foreign passes on, as in the resolver (no second-best group).
    const g = policies.byId.get(user.group.policyId) ?? null;
    const outcome = g === null ? 'no_policy' : groupsCount ? 'chosen' : 'ignored';
    steps.push(
      step('group', outcome, { id: user.group.id, name: user.group.name, rank: user.group.weight, policy: g }),
    );
    if (outcome === 'chosen') return { steps, chosen: g };
  }
  return { steps, chosen: null };
}

/**
 * The device's policy for `user` (null: no user reported), step by step — the resolver's rule
 * (docs/architecture.md "Identification"): its choice (own mode and policy, or the customer's device
 * configuration's when its own mode is `default`); the user's own policy → the user's highest-ranked
 * enabled group with a policy (unless the choice is "inherit the default policy") → the named policy
 * (mode `policy`) → the customer's default. A policy of another customer never counts.
 */
function deviceEffective(policies: Policies, device: DeviceChoice, user: UserChoice | null): EffectivePolicy {
  const chain: EffectiveStep[] = [];
  const ownChoice = device.mode !== 'default';
  const mode = ownChoice ? device.mode : (device.cfgMode ?? 'default');
  const namedId = ownChoice ? device.policyId : device.cfgPolicyId;
  const ref = (id: number | null) => (id === null ? null : (policies.byId.get(id) ?? null));
  chain.push(
    step('device', 'choice', {
      id: device.id,
      name: device.name,
      mode: device.mode,
      policy: device.mode === 'policy' ? ref(device.policyId) : null,
    }),
  );
  if (!ownChoice) {
    chain.push(step('device_configuration', 'choice', { mode, policy: mode === 'policy' ? ref(namedId) : null }));
  }
  const done = (policy: PolicyRef | null): EffectivePolicy => ({
    policy,
    device: { id: device.id, name: device.name },
    user: user ? { id: user.id, name: user.name } : null,
    chain,
  });
  if (user) {
    const u = userSteps(policies, user, mode !== 'default');
    chain.push(...u.steps);
    if (u.chosen) return done(u.chosen);
  }
  if (mode === 'policy') {
    const named = ref(namedId);
    chain.push(step('named_policy', named ? 'chosen' : 'no_policy', { policy: named }));
    if (named) return done(named);
  }
  chain.push(step('customer_default', policies.fallback ? 'chosen' : 'no_policy', { policy: policies.fallback }));
  return done(policies.fallback);
}

async function deviceChoices(
  db: Kysely<Database>,
  customerId: number,
  where: { deviceId: number } | { userId: number },
): Promise<Array<DeviceChoice & { exceptionId: number | null; cfgExceptionId: number | null }>> {
  let q = db
    .selectFrom('devices')
    .leftJoin('device_settings as ds', 'ds.customer_id', 'devices.customer_id')
    .select([
      'devices.id',
      'devices.name',
      'devices.policy_mode',
      'devices.policy_id',
      'devices.device_exception_id',
      'ds.policy_mode as cfg_mode',
      'ds.policy_id as cfg_policy_id',
      'ds.device_exception_id as cfg_exception_id',
    ])
    .where('devices.customer_id', '=', customerId);
  if ('deviceId' in where) q = q.where('devices.id', '=', where.deviceId);
  else {
    const userId = where.userId;
    q = q.where((eb) =>
      eb(
        'devices.id',
        'in',
        eb
          .selectFrom('device_users')
          .select('device_users.device_id')
          .where('device_users.user_id', '=', userId)
          .where('device_users.customer_id', '=', customerId),
      ),
    );
  }
  const rows = await q.orderBy('devices.id').execute();
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    mode: asMode(r.policy_mode),
    policyId: r.policy_id,
    cfgMode: r.cfg_mode === null ? null : asMode(r.cfg_mode),
    cfgPolicyId: r.cfg_policy_id,
    exceptionId: r.device_exception_id,
    cfgExceptionId: r.cfg_exception_id,
  }));
}

/**
 * `GET /users/{id}/effective_policy/devices/{deviceId}` (docs/api.md "Effective policy"; issue 29):
 * the device's effective policy without a reported user and for each bound user (oldest binding
 * first), each with the chain of {@link deviceEffective}, and the device exception in force. Reads
 * only; every query carries the customer id, and the customer is checked against the caller's scope.
 * @throws ApiError ERR_NOT_FOUND when the customer is not visible or the device is not one of its own
 */
export async function effectiveOfDevice(
  deps: CoreDeps,
  caller: Caller,
  customerId: number,
  deviceId: number,
): Promise<DeviceEffectivePolicy> {
  const db = deps.handle.db;
  const policies = await policiesOf(db, scopeOf(caller), customerId);
  if (!policies) throw new ApiError('ERR_NOT_FOUND');
  const [device] = await deviceChoices(db, customerId, { deviceId });
  if (!device) throw new ApiError('ERR_NOT_FOUND');
  const bound = await db
    .selectFrom('device_users')
    .select('user_id')
    .where('device_id', '=', deviceId)
    .where('customer_id', '=', customerId)
    .orderBy('created_at')
    .orderBy('user_id')
    .execute();
  const users = await usersOf(
    db,
    customerId,
    bound.map((b) => b.user_id),
  );
  const exceptionId = device.exceptionId ?? device.cfgExceptionId;
  const exception =
    exceptionId === null
      ? undefined
      : await db
          .selectFrom('device_exceptions')
          .select(['id', 'name'])
          .where('id', '=', exceptionId)
          .where('customer_id', '=', customerId)
          .executeTakeFirst();
  return {
    without_user: deviceEffective(policies, device, null),
    users: users.map((u) => deviceEffective(policies, device, u)),
    exception: exception
      ? { ...exception, source: device.exceptionId !== null ? 'device' : 'device_configuration' }
      : null,
  };
}

/**
 * `GET /users/{id}/effective_policy/users/{userId}` (docs/api.md "Effective policy"): the internal
 * user's own steps (its policy, then its group's, which counts on every device whose choice is not
 * "inherit the default policy") and, per device it is bound to, that device's answer for the user.
 * @throws ApiError ERR_NOT_FOUND when the customer is not visible or the user is not one of its own
 */
export async function effectiveOfUser(
  deps: CoreDeps,
  caller: Caller,
  customerId: number,
  userId: number,
): Promise<UserEffectivePolicy> {
  const db = deps.handle.db;
  const policies = await policiesOf(db, scopeOf(caller), customerId);
  if (!policies) throw new ApiError('ERR_NOT_FOUND');
  const [user] = await usersOf(db, customerId, [userId]);
  if (!user) throw new ApiError('ERR_NOT_FOUND');
  const own = userSteps(policies, user, true);
  const devices = await deviceChoices(db, customerId, { userId });
  return {
    user: { id: user.id, name: user.name },
    policy: own.chosen,
    chain: own.steps,
    devices: devices.map((d) => deviceEffective(policies, d, user)),
  };
}

/**
 * `GET /users/{id}/effective_policy/locations/{locId}` (docs/api.md "Effective policy"): a location's
 * policy → the customer's default (docs/architecture.md "Identification"); a policy of another
 * customer never counts.
 * @throws ApiError ERR_NOT_FOUND when the customer is not visible or the location is not one of its own
 */
export async function effectiveOfLocation(
  deps: CoreDeps,
  caller: Caller,
  customerId: number,
  locationId: number,
): Promise<EffectivePolicy> {
  const db = deps.handle.db;
  const policies = await policiesOf(db, scopeOf(caller), customerId);
  if (!policies) throw new ApiError('ERR_NOT_FOUND');
  const location = await db
    .selectFrom('locations')
    .select(['id', 'name', 'policy_id'])
    .where('id', '=', locationId)
    .where('customer_id', '=', customerId)
    .executeTakeFirst();
  if (!location) throw new ApiError('ERR_NOT_FOUND');
  const own = location.policy_id === null ? null : (policies.byId.get(location.policy_id) ?? null);
  const chain = [step('location', own ? 'chosen' : 'no_policy', { id: location.id, name: location.name, policy: own })];
  if (!own) {
    chain.push(step('customer_default', policies.fallback ? 'chosen' : 'no_policy', { policy: policies.fallback }));
  }
  return { policy: own ?? policies.fallback, device: null, user: null, chain };
}
