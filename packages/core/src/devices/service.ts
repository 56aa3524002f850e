import { randomBytes } from 'node:crypto';
import type { Database } from '@cordon/db';
import { nowIso } from '@cordon/db';
import {
  type AgentEnrol,
  type AgentHeartbeat,
  type AgentHeartbeatResponse,
  ApiError,
  type Device,
  type DeviceConfig,
  type DeviceConfigUpdate,
  type DeviceListQuery,
  type DeviceUpdate,
  type PolicyMode,
  Role,
  Texts,
} from '@cordon/shared';
import type { Kysely } from 'kysely';
import { type Caller, type CoreDeps, OPERATOR } from '../context.ts';
import { exceptionOfCustomer, rulesForAgent } from '../deviceexceptions/index.ts';
import { groupPolicyOf } from '../internalusers/index.ts';
import { mutate } from '../mutation/index.ts';
import { policyOfCustomer } from '../policies/index.ts';
import { scopeOf, type TenantScope } from '../tenancy/index.ts';
import * as repo from './repository.ts';
import { reportedUser } from './users.ts';

const TOPICS = ['devices'] as const;

/** How often an agent should call `POST /agent/heartbeat`, seconds (docs/decisions.md "Environment"). */
export const HEARTBEAT_SECONDS = 300;

/** A new secret key (install or device): 32 URL-safe characters, 192 random bits. */
function newKey(): string {
  return randomBytes(24).toString('base64url');
}

const lockedError = () =>
  new ApiError(
    'ERR_CONFLICT',
    "The device's details are locked while it has a JSON configuration. Reset the configuration first.",
  );

/** The audit state of a device: everything but its key (a credential; never in the trail). */
function audited(device: Device | undefined): unknown {
  if (!device) return null;
  const { key: _key, ...rest } = device;
  return rest;
}

/** Re-serialises valid JSON text (the schema has checked it parses). */
function normalizeJson(text: string): string {
  return JSON.stringify(JSON.parse(text), null, 2);
}

/**
 * The policy choice after a change (spec-notes §4 "Policy inheritance choices"): a `policy_id` without a
 * mode means `policy`; another mode clears the policy; `policy` needs one (the spec's "select a policy" prompt).
 * @throws ApiError ERR_VALIDATION for `policy` without a policy, or a policy of another customer
 */
async function policyChoice(
  db: Kysely<Database>,
  scope: TenantScope,
  customerId: number,
  before: { policy_mode: PolicyMode; policy_id: number | null },
  body: { policy_mode?: PolicyMode | undefined; policy_id?: number | null | undefined },
): Promise<{ policy_mode: PolicyMode; policy_id: number | null }> {
  const mode = body.policy_mode ?? (body.policy_id != null ? 'policy' : before.policy_mode);
  const policyId = mode === 'policy' ? (body.policy_id !== undefined ? body.policy_id : before.policy_id) : null;
  if (mode === 'policy' && policyId === null) {
    throw new ApiError('ERR_VALIDATION', 'Please select a policy.', { policy_id: 'Please select a policy.' });
  }
  if (policyId !== null && !(await policyOfCustomer(db, scope, customerId, policyId))) {
    const message = Texts.policyOfThisCustomer;
    throw new ApiError('ERR_VALIDATION', message, { policy_id: message });
  }
  return { policy_mode: mode, policy_id: policyId };
}

/** Fails with ERR_VALIDATION when `exceptionId` is set and not a device exception of the customer. */
async function checkException(
  db: Kysely<Database>,
  scope: TenantScope,
  customerId: number,
  exceptionId: number | null | undefined,
): Promise<void> {
  if (exceptionId === null || exceptionId === undefined) return;
  if (!(await exceptionOfCustomer(db, scope, customerId, exceptionId))) {
    const message = 'Please select a device exception of this customer.';
    throw new ApiError('ERR_VALIDATION', message, { device_exception_id: message });
  }
}

/**
 * `GET /users/{id}/devices` (spec-notes §7 "Devices"): a page of the customer's devices; `policyid` and
 * `location_id` narrow it (the policy's devices tab, a location's devices).
 * @throws ApiError ERR_VALIDATION for an unknown sortkey
 */
export function listDevices(
  deps: CoreDeps,
  caller: Caller,
  customerId: number,
  query: DeviceListQuery,
): Promise<{ data: Device[]; total: number }> {
  return repo.listDevices(deps.handle.db, scopeOf(caller), customerId, query);
}

/**
 * `GET /users/{id}/devices/{deviceId}`.
 * @throws ApiError ERR_NOT_FOUND when missing or another customer's
 */
export async function getDevice(deps: CoreDeps, caller: Caller, customerId: number, deviceId: number): Promise<Device> {
  const device = await repo.getDevice(deps.handle.db, scopeOf(caller), customerId, deviceId);
  if (!device) throw new ApiError('ERR_NOT_FOUND');
  return device;
}

/**
 * `POST /users/{id}/devices/{deviceId}` (an update): name, tag, the policy choice and the device
 * exception (null: the customer's). Refused while the device has an advanced JSON configuration
 * (spec-notes §4: details locked until it is reset). Audit `device.update` (the key left out); publishes `devices`.
 * @throws ApiError ERR_NOT_FOUND; ERR_CONFLICT when locked; ERR_VALIDATION for a policy or exception of
 *   another customer, or mode `policy` without a policy
 */
export async function updateDevice(
  deps: CoreDeps,
  caller: Caller,
  customerId: number,
  deviceId: number,
  body: DeviceUpdate,
): Promise<Device> {
  const scope = scopeOf(caller);
  await mutate(
    deps,
    caller,
    { topics: TOPICS, audit: { action: 'device.update', entity: 'device' } },
    async (trx, note) => {
      const before = await repo.getDevice(trx, scope, customerId, deviceId);
      if (!before) throw new ApiError('ERR_NOT_FOUND');
      if (before.configuration !== null) throw lockedError();
      const choice = await policyChoice(trx, scope, customerId, before, body);
      await checkException(trx, scope, customerId, body.device_exception_id);
      const patch: Parameters<typeof repo.updateDevice>[4] = { ...choice };
      if (body.name !== undefined) patch.name = body.name;
      if (body.tag !== undefined) patch.tag = body.tag;
      if (body.device_exception_id !== undefined) patch.device_exception_id = body.device_exception_id;
      await repo.updateDevice(trx, scope, customerId, deviceId, patch, nowIso(deps.now()));
      note.entityId = deviceId;
      note.customerId = customerId;
      note.before = audited(before);
      note.after = audited(await repo.getDevice(trx, scope, customerId, deviceId));
    },
  );
  return getDevice(deps, caller, customerId, deviceId);
}

/**
 * `DELETE /users/{id}/devices/{deviceId}`: the device and its key (DoH and EDNS stop identifying it
 * within a second; the agent must enrol again). Audit `device.delete`; publishes `devices`.
 * @throws ApiError ERR_NOT_FOUND
 */
export async function deleteDevice(
  deps: CoreDeps,
  caller: Caller,
  customerId: number,
  deviceId: number,
): Promise<{ deleted: true }> {
  const scope = scopeOf(caller);
  await mutate(
    deps,
    caller,
    { topics: TOPICS, audit: { action: 'device.delete', entity: 'device' } },
    async (trx, note) => {
      const before = await repo.getDevice(trx, scope, customerId, deviceId);
      if (!before || !(await repo.deleteDevice(trx, scope, customerId, deviceId))) throw new ApiError('ERR_NOT_FOUND');
      note.entityId = deviceId;
      note.customerId = customerId;
      note.before = audited(before);
    },
  );
  return { deleted: true };
}

/**
 * `POST` (`configuration` set) and `DELETE` (`null`: reset) `/users/{id}/devices/{deviceId}/config/advanced`:
 * the device's advanced JSON configuration, which locks its details while set (spec-notes §4). Audit
 * `device.config.advanced.set` / `.reset`; publishes `devices`.
 * @throws ApiError ERR_NOT_FOUND
 */
export async function setDeviceAdvanced(
  deps: CoreDeps,
  caller: Caller,
  customerId: number,
  deviceId: number,
  configuration: string | null,
): Promise<Device> {
  const scope = scopeOf(caller);
  const text = configuration === null ? null : normalizeJson(configuration);
  await mutate(
    deps,
    caller,
    {
      topics: TOPICS,
      audit: {
        action: text === null ? 'device.config.advanced.reset' : 'device.config.advanced.set',
        entity: 'device',
      },
    },
    async (trx, note) => {
      const before = await repo.getDevice(trx, scope, customerId, deviceId);
      if (!before) throw new ApiError('ERR_NOT_FOUND');
      await repo.updateDevice(trx, scope, customerId, deviceId, { advanced_config: text }, nowIso(deps.now()));
      note.entityId = deviceId;
      note.customerId = customerId;
      note.before = { configuration: before.configuration };
      note.after = { configuration: text };
    },
  );
  return getDevice(deps, caller, customerId, deviceId);
}

/**
 * The customer's device settings, created with a fresh install key on first use (audit
 * `device.settings.create`, the key left out; publishes `devices`).
 * @throws ApiError ERR_NOT_FOUND when the customer is not visible
 */
async function settingsOf(deps: CoreDeps, caller: Caller, customerId: number) {
  const scope = scopeOf(caller);
  const found = await repo.getSettings(deps.handle.db, scope, customerId);
  if (found) return found;
  await mutate(
    deps,
    caller,
    {
      topics: TOPICS,
      audit: { action: 'device.settings.create', entity: 'device_settings' },
      // Two first reads racing: the loser's row would duplicate the winner's; it reads the winner's.
      conflict: () => new ApiError('ERR_CONFLICT'),
    },
    async (trx, note) => {
      if (await repo.getSettings(trx, scope, customerId)) return;
      const visible = await trx.selectFrom('customers').select('id').where('id', '=', customerId).executeTakeFirst();
      if (!visible) throw new ApiError('ERR_NOT_FOUND');
      await repo.insertSettings(trx, customerId, newKey(), nowIso(deps.now()));
      note.entityId = customerId;
      note.customerId = customerId;
      note.after = { policy_mode: 'default', policy_id: null, device_exception_id: null };
    },
  ).catch(async (e: unknown) => {
    if (e instanceof ApiError && e.code === 'ERR_CONFLICT') return;
    throw e;
  });
  const created = await repo.getSettings(deps.handle.db, scope, customerId);
  if (!created) throw new ApiError('ERR_NOT_FOUND');
  return created;
}

function toConfig(row: NonNullable<Awaited<ReturnType<typeof repo.getSettings>>>): DeviceConfig {
  return {
    install_key: row.install_key,
    install_key_created_at: row.install_key_created_at,
    policy_mode: row.policy_mode as PolicyMode,
    policy_id: row.policy_id,
    device_exception_id: row.device_exception_id,
    configuration: row.advanced_config,
  };
}

/** `GET /users/{id}/devices/config` (spec-notes §7 "Devices"): the install key and the customer's device configuration. */
export async function getDeviceConfig(deps: CoreDeps, caller: Caller, customerId: number): Promise<DeviceConfig> {
  return toConfig(await settingsOf(deps, caller, customerId));
}

/**
 * `POST /users/{id}/devices/config` (spec-notes §7: `policy_id` and `device_exception_id`): what devices
 * that inherit get. Audit `device.settings.update`; publishes `devices`.
 * @throws ApiError ERR_VALIDATION (policy or exception of another customer; `policy` without a policy)
 */
export async function updateDeviceConfig(
  deps: CoreDeps,
  caller: Caller,
  customerId: number,
  body: DeviceConfigUpdate,
): Promise<DeviceConfig> {
  const scope = scopeOf(caller);
  const current = await settingsOf(deps, caller, customerId);
  await mutate(
    deps,
    caller,
    { topics: TOPICS, audit: { action: 'device.settings.update', entity: 'device_settings' } },
    async (trx, note) => {
      const before = {
        policy_mode: current.policy_mode as PolicyMode,
        policy_id: current.policy_id,
        device_exception_id: current.device_exception_id,
      };
      const choice = await policyChoice(trx, scope, customerId, before, body);
      await checkException(trx, scope, customerId, body.device_exception_id);
      const patch: Parameters<typeof repo.updateSettings>[3] = { ...choice };
      if (body.device_exception_id !== undefined) patch.device_exception_id = body.device_exception_id;
      await repo.updateSettings(trx, scope, customerId, patch, nowIso(deps.now()));
      note.entityId = customerId;
      note.customerId = customerId;
      note.before = before;
      note.after = { ...before, ...patch };
    },
  );
  return getDeviceConfig(deps, caller, customerId);
}

/**
 * `GET|POST|DELETE /users/{id}/devices/config/advanced` (spec-notes §7): the customer's advanced JSON
 * device configuration; `configuration` undefined reads, null resets. Audit
 * `device.settings.advanced.set` / `.reset`; publishes `devices`.
 */
export async function customerAdvanced(
  deps: CoreDeps,
  caller: Caller,
  customerId: number,
  configuration?: string | null,
): Promise<{ configuration: string | null }> {
  const current = await settingsOf(deps, caller, customerId);
  if (configuration === undefined) return { configuration: current.advanced_config };
  const text = configuration === null ? null : normalizeJson(configuration);
  const scope = scopeOf(caller);
  await mutate(
    deps,
    caller,
    {
      topics: TOPICS,
      audit: {
        action: text === null ? 'device.settings.advanced.reset' : 'device.settings.advanced.set',
        entity: 'device_settings',
      },
    },
    async (trx, note) => {
      await repo.updateSettings(trx, scope, customerId, { advanced_config: text }, nowIso(deps.now()));
      note.entityId = customerId;
      note.customerId = customerId;
      note.before = { configuration: current.advanced_config };
      note.after = { configuration: text };
    },
  );
  return { configuration: text };
}

/**
 * `PUT /users/{id}/devices/key` (spec-notes §7 "Customers"; spec-notes §4): a new install key. The old one
 * stops new installs at once; enrolled devices keep their own keys. Audit
 * `device.installkey.regenerate` (no key in the trail); publishes `devices`.
 */
export async function regenerateInstallKey(
  deps: CoreDeps,
  caller: Caller,
  customerId: number,
): Promise<{ install_key: string; install_key_created_at: string }> {
  await settingsOf(deps, caller, customerId);
  const scope = scopeOf(caller);
  const at = nowIso(deps.now());
  const key = newKey();
  await mutate(
    deps,
    caller,
    { topics: TOPICS, audit: { action: 'device.installkey.regenerate', entity: 'device_settings' } },
    async (trx, note) => {
      await repo.updateSettings(trx, scope, customerId, { install_key: key, install_key_created_at: at }, at);
      note.entityId = customerId;
      note.customerId = customerId;
      note.after = { install_key_created_at: at };
    },
  );
  return { install_key: key, install_key_created_at: at };
}

/** The caller a key acts as: the key's customer, no admin (its audit rows have no admin). */
function keyCaller(owner: { customer_id: number; msp_id: number }, ip: string): Caller & { customerId: number } {
  return { ...OPERATOR, role: Role.Customer, mspId: owner.msp_id, customerId: owner.customer_id, ip };
}

/** The `extra_info` JSON of a device (spec-notes §3: it holds `os.type`). */
function extraInfo(osType: string): string {
  return JSON.stringify({ os: { type: osType } });
}

/**
 * `POST /agent/enrol` (public; docs/decisions.md "Environment"): an agent presents its customer's
 * current install key and gets a new device and its secret device key. The device inherits the
 * customer's device configuration. Audit `device.enrol` (no admin; the key left out); publishes `devices`.
 * @throws ApiError ERR_BAD_CREDENTIALS (401) for an unknown or replaced install key
 */
export async function enrolDevice(
  deps: CoreDeps,
  body: AgentEnrol,
  clientIp: string,
): Promise<{ device_id: number; device_key: string; customer_id: number }> {
  const owner = await repo.customerByInstallKey(deps.handle.db, body.install_key);
  if (!owner) throw new ApiError('ERR_BAD_CREDENTIALS', 'Unknown or replaced install key.');
  const caller = keyCaller(owner, clientIp);
  const key = newKey();
  const id = await mutate(
    deps,
    caller,
    { topics: TOPICS, audit: { action: 'device.enrol', entity: 'device' } },
    async (trx, note) => {
      const at = nowIso(deps.now());
      const osType = body.os_type ?? '';
      const deviceId = await repo.insertDevice(
        trx,
        owner.customer_id,
        {
          key,
          name: body.name,
          dns_name: body.dns_name ?? '',
          version: body.version ?? '',
          os_type: osType,
          extra_info: extraInfo(osType),
          last_contact_at: at,
          last_ip: clientIp,
          location_id: await repo.locationOfAddress(trx, owner.customer_id, clientIp),
        },
        at,
      );
      note.entityId = deviceId;
      note.customerId = owner.customer_id;
      note.after = { id: deviceId, name: body.name, os_type: osType, version: body.version ?? '' };
      return deviceId;
    },
  );
  return { device_id: id, device_key: key, customer_id: owner.customer_id };
}

/**
 * `POST /agent/heartbeat` (public; docs/decisions.md "Environment"): the device's last contact,
 * address, location, version, OS and (unless its details are locked by a JSON configuration) name;
 * `user`, the logged-in OS user, counts only as far as docs/security.md "Identity claims" allows
 * (`reportedUser`: bound to the device, or bound now within the per-device cap). A heartbeat itself is not
 * a tenant change: no audit row, no topic. Answers the configuration the agent applies: the policy
 * this device and user get (user → group → device → default, with the inherit choices), its device
 * exception and rules, and the advanced JSON configuration (the device's, else the customer's).
 * @throws ApiError ERR_BAD_CREDENTIALS (401) for an unknown device key (deleted devices included)
 */
export async function heartbeat(
  deps: CoreDeps,
  body: AgentHeartbeat,
  clientIp: string,
): Promise<AgentHeartbeatResponse> {
  const db = deps.handle.db;
  const device = await repo.deviceByKey(db, body.device_key);
  if (!device) throw new ApiError('ERR_BAD_CREDENTIALS', 'Unknown or removed device key.');
  const at = nowIso(deps.now());
  const locked = device.advanced_config !== null;
  const touch: Parameters<typeof repo.touchDevice>[2] = {
    last_contact_at: at,
    last_ip: clientIp,
    location_id: await repo.locationOfAddress(db, device.customer_id, clientIp),
  };
  if (body.version !== undefined) touch.version = body.version;
  if (body.os_type !== undefined) {
    touch.os_type = body.os_type;
    touch.extra_info = extraInfo(body.os_type);
  }
  if (!locked && body.name !== undefined) touch.name = body.name;
  if (!locked && body.dns_name !== undefined) touch.dns_name = body.dns_name;
  await repo.touchDevice(db, device.id, touch);

  // The reported user counts only when bound to this device (docs/security.md "Identity claims").
  const reported = body.user !== undefined ? await reportedUser(deps, device, body.user, clientIp) : null;
  const user = reported?.kind === 'bound' ? reported : null;

  // The device's choice, else the customer's device configuration (docs/decisions.md "Environment").
  const ownChoice = device.policy_mode !== 'default';
  const mode = (ownChoice ? device.policy_mode : (device.cfg_mode ?? 'default')) as PolicyMode;
  const named = ownChoice ? device.policy_id : device.cfg_policy_id;
  let policyId: number | null = user?.policy_id ?? null;
  if (policyId === null && user && mode !== 'default') policyId = await groupPolicyOf(deps, user.id);
  if (policyId === null && mode === 'policy') policyId = named;
  if (policyId === null) {
    const fallback = await db
      .selectFrom('policies')
      .select('id')
      .where('customer_id', '=', device.customer_id)
      .where('is_default', '=', 1)
      .executeTakeFirst();
    policyId = fallback?.id ?? null;
  }

  const exceptionId = device.device_exception_id ?? device.cfg_exception_id;
  const exception =
    exceptionId === null
      ? undefined
      : await db
          .selectFrom('device_exceptions')
          .select(['id', 'name'])
          .where('id', '=', exceptionId)
          .where('customer_id', '=', device.customer_id)
          .executeTakeFirst();
  const advancedText = device.advanced_config ?? device.cfg_advanced;
  return {
    device_id: device.id,
    customer_id: device.customer_id,
    heartbeat_s: HEARTBEAT_SECONDS,
    config: {
      policy_id: policyId,
      device_exception: exception ?? null,
      rules: exception ? await rulesForAgent(db, device.customer_id, exception.id) : [],
      advanced: advancedText === null ? null : (JSON.parse(advancedText) as unknown),
    },
  };
}
