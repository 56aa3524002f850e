import type { Database } from '@cordon/db';
import { type Device, type DeviceListQuery, normalizeCidr, type PolicyMode, parseCidr, rangeHex } from '@cordon/shared';
import { type Expression, type Kysely, sql } from 'kysely';
import { containsAnyText, type ListSort, listPage } from '../list/index.ts';
import { customerInScope, defaultPolicyOf, ownedInScope, type TenantScope } from '../tenancy/index.ts';

/** The device list's order (docs/api.md "Conventions"). */
const SORT: ListSort<string> = {
  columns: {
    name: 'devices.name',
    last_contact: 'devices.last_contact_at',
    version: 'devices.version',
    os_type: 'devices.os_type',
    tag: 'devices.tag',
    dns_name: 'devices.dns_name',
    last_ip: 'devices.last_ip',
    created_at: 'devices.created_at',
    id: 'devices.id',
  },
  text: ['devices.name', 'devices.tag', 'devices.dns_name', 'devices.os_type'],
  tiebreak: 'devices.id',
};

/**
 * The id of the policy a device gets without a user (docs/decisions.md "Environment"): its own named
 * policy, else the customer's device configuration's named policy when the device inherits it, else
 * the customer's default policy. An SQL expression over the joins of {@link deviceQuery}.
 */
function effectivePolicyId(): Expression<number | null> {
  return sql<number | null>`case
    when devices.policy_mode = 'policy' and devices.policy_id is not null then devices.policy_id
    when devices.policy_mode = 'default' and ds.policy_mode = 'policy' and ds.policy_id is not null then ds.policy_id
    else (select dp.id from policies as dp where dp.customer_id = devices.customer_id and dp.is_default = 1 limit 1)
  end`;
}

function deviceQuery(db: Kysely<Database>, scope: TenantScope, customerId: number) {
  return db
    .selectFrom('devices')
    .innerJoin('customers', 'customers.id', 'devices.customer_id')
    .leftJoin('locations', 'locations.id', 'devices.location_id')
    .leftJoin('policies as p', 'p.id', 'devices.policy_id')
    .leftJoin('device_exceptions as de', 'de.id', 'devices.device_exception_id')
    .leftJoin('device_settings as ds', 'ds.customer_id', 'devices.customer_id')
    .leftJoin('policies as sp', 'sp.id', 'ds.policy_id')
    .leftJoin('device_exceptions as sde', 'sde.id', 'ds.device_exception_id')
    .where(customerInScope(scope))
    .where('devices.customer_id', '=', customerId)
    .select((eb) => [
      'devices.id',
      'devices.name',
      'devices.key',
      'devices.dns_name',
      'devices.tag',
      'devices.version',
      'devices.os_type',
      'devices.extra_info',
      'devices.last_contact_at',
      'devices.last_ip',
      'devices.location_id',
      'devices.policy_mode',
      'devices.policy_id',
      'devices.device_exception_id',
      'devices.advanced_config',
      'devices.created_at',
      'locations.name as location_name',
      'p.name as own_policy',
      'de.name as own_exception',
      'ds.policy_mode as cfg_mode',
      'sp.name as cfg_policy',
      'sde.name as cfg_exception',
      defaultPolicyOf(eb.ref('devices.customer_id')).select('dp.name').as('default_policy'),
    ]);
}

type DeviceRow = {
  id: number;
  name: string;
  key: string;
  dns_name: string;
  tag: string;
  version: string;
  os_type: string;
  extra_info: string;
  last_contact_at: string | null;
  last_ip: string;
  location_id: number | null;
  policy_mode: string;
  policy_id: number | null;
  device_exception_id: number | null;
  advanced_config: string | null;
  created_at: string;
  location_name: string | null;
  own_policy: string | null;
  own_exception: string | null;
  cfg_mode: string | null;
  cfg_policy: string | null;
  cfg_exception: string | null;
  default_policy: string | null;
};

function parseInfo(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

function toDevice(r: DeviceRow): Device {
  const policy =
    r.policy_mode === 'policy' && r.own_policy !== null
      ? r.own_policy
      : r.policy_mode === 'default' && r.cfg_mode === 'policy' && r.cfg_policy !== null
        ? r.cfg_policy
        : (r.default_policy ?? '');
  return {
    id: r.id,
    name: r.name,
    key: r.key,
    dns_name: r.dns_name,
    tag: r.tag,
    version: r.version,
    os_type: r.os_type,
    last_contact: r.last_contact_at,
    last_ip: r.last_ip,
    location_id: r.location_id,
    location_name: r.location_name,
    policy,
    policy_id: r.policy_id,
    policy_mode: r.policy_mode as PolicyMode,
    exception: r.own_exception ?? r.cfg_exception,
    device_exception_id: r.device_exception_id,
    extra_info: parseInfo(r.extra_info),
    configuration: r.advanced_config,
    created_at: r.created_at,
  };
}

/**
 * One page of customer `customerId`'s devices within `scope`: `policyid` keeps those whose policy
 * without a user is that one, `location_id` those last seen at that location, `filter` matches
 * name, DNS name, tag, OS or last address.
 */
export async function listDevices(
  db: Kysely<Database>,
  scope: TenantScope,
  customerId: number,
  query: DeviceListQuery,
): Promise<{ data: Device[]; total: number }> {
  let base = deviceQuery(db, scope, customerId);
  if (query.filter)
    base = base.where(
      containsAnyText(
        ['devices.name', 'devices.dns_name', 'devices.tag', 'devices.os_type', 'devices.last_ip'],
        query.filter,
      ),
    );
  if (query.policyid !== undefined) base = base.where(effectivePolicyId(), '=', query.policyid);
  if (query.location_id !== undefined) base = base.where('devices.location_id', '=', query.location_id);
  const { rows, total } = await listPage(base, query, SORT);
  return { data: rows.map(toDevice), total };
}

/** Device `deviceId` of customer `customerId` within `scope`, or undefined. */
export async function getDevice(
  db: Kysely<Database>,
  scope: TenantScope,
  customerId: number,
  deviceId: number,
): Promise<Device | undefined> {
  const row = await deviceQuery(db, scope, customerId).where('devices.id', '=', deviceId).executeTakeFirst();
  return row ? toDevice(row) : undefined;
}

/** Updates device `deviceId` of customer `customerId` within `scope`; false when not visible. */
export async function updateDevice(
  db: Kysely<Database>,
  scope: TenantScope,
  customerId: number,
  deviceId: number,
  patch: Partial<{
    name: string;
    tag: string;
    policy_mode: PolicyMode;
    policy_id: number | null;
    device_exception_id: number | null;
    advanced_config: string | null;
  }>,
  at: string,
): Promise<boolean> {
  const result = await db
    .updateTable('devices')
    .set({ ...patch, updated_at: at })
    .where('id', '=', deviceId)
    .where('customer_id', '=', customerId)
    .where(ownedInScope('devices.customer_id', scope))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Deletes device `deviceId` of customer `customerId` within `scope`; false when not visible. */
export async function deleteDevice(
  db: Kysely<Database>,
  scope: TenantScope,
  customerId: number,
  deviceId: number,
): Promise<boolean> {
  const result = await db
    .deleteFrom('devices')
    .where('id', '=', deviceId)
    .where('customer_id', '=', customerId)
    .where(ownedInScope('devices.customer_id', scope))
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** The device settings row of customer `customerId` within `scope`, or undefined when none exists yet. */
export async function getSettings(db: Kysely<Database>, scope: TenantScope, customerId: number) {
  return db
    .selectFrom('device_settings')
    .innerJoin('customers', 'customers.id', 'device_settings.customer_id')
    .where(customerInScope(scope))
    .where('device_settings.customer_id', '=', customerId)
    .select([
      'device_settings.customer_id',
      'device_settings.install_key',
      'device_settings.install_key_created_at',
      'device_settings.policy_mode',
      'device_settings.policy_id',
      'device_settings.device_exception_id',
      'device_settings.advanced_config',
    ])
    .executeTakeFirst();
}

/** Inserts the device settings of customer `customerId` (already checked in scope) with `installKey`. */
export async function insertSettings(
  db: Kysely<Database>,
  customerId: number,
  installKey: string,
  at: string,
): Promise<void> {
  await db
    .insertInto('device_settings')
    .values({
      customer_id: customerId,
      install_key: installKey,
      install_key_created_at: at,
      policy_mode: 'default',
      policy_id: null,
      device_exception_id: null,
      advanced_config: null,
      updated_at: at,
    })
    .execute();
}

/** Updates the device settings of customer `customerId` within `scope`. */
export async function updateSettings(
  db: Kysely<Database>,
  scope: TenantScope,
  customerId: number,
  patch: Partial<{
    install_key: string;
    install_key_created_at: string;
    policy_mode: PolicyMode;
    policy_id: number | null;
    device_exception_id: number | null;
    advanced_config: string | null;
  }>,
  at: string,
): Promise<void> {
  await db
    .updateTable('device_settings')
    .set({ ...patch, updated_at: at })
    .where('customer_id', '=', customerId)
    .where(ownedInScope('device_settings.customer_id', scope))
    .execute();
}

/** The customer (and its MSP) whose current install key is `installKey`, or undefined (any tenant: the key is the credential). */
export async function customerByInstallKey(db: Kysely<Database>, installKey: string) {
  return db
    .selectFrom('device_settings')
    .innerJoin('customers', 'customers.id', 'device_settings.customer_id')
    .select(['customers.id as customer_id', 'customers.msp_id'])
    .where('device_settings.install_key', '=', installKey)
    .executeTakeFirst();
}

/** The device whose key is `key`, with what a heartbeat needs (any tenant: the key is the credential), or undefined. */
export async function deviceByKey(db: Kysely<Database>, key: string) {
  return db
    .selectFrom('devices')
    .innerJoin('customers', 'customers.id', 'devices.customer_id')
    .leftJoin('device_settings as ds', 'ds.customer_id', 'devices.customer_id')
    .select([
      'devices.id',
      'devices.customer_id',
      'customers.msp_id',
      'devices.name',
      'devices.version',
      'devices.os_type',
      'devices.dns_name',
      'devices.policy_mode',
      'devices.policy_id',
      'devices.device_exception_id',
      'devices.advanced_config',
      'ds.policy_mode as cfg_mode',
      'ds.policy_id as cfg_policy_id',
      'ds.device_exception_id as cfg_exception_id',
      'ds.advanced_config as cfg_advanced',
    ])
    .where('devices.key', '=', key)
    .executeTakeFirst();
}

/** Inserts an enrolled device of customer `customerId`; returns its id. */
export async function insertDevice(
  db: Kysely<Database>,
  customerId: number,
  values: {
    key: string;
    name: string;
    dns_name: string;
    version: string;
    os_type: string;
    extra_info: string;
    last_contact_at: string;
    last_ip: string;
    location_id: number | null;
  },
  at: string,
): Promise<number> {
  const row = await db
    .insertInto('devices')
    .values({
      customer_id: customerId,
      ...values,
      policy_id: null,
      device_exception_id: null,
      advanced_config: null,
      created_at: at,
      updated_at: at,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** Records a heartbeat of device `deviceId` (not a tenant change: no audit, no topic). */
export async function touchDevice(
  db: Kysely<Database>,
  deviceId: number,
  values: Partial<{
    name: string;
    dns_name: string;
    version: string;
    os_type: string;
    extra_info: string;
    last_contact_at: string;
    last_ip: string;
    location_id: number | null;
  }>,
): Promise<void> {
  await db.updateTable('devices').set(values).where('id', '=', deviceId).execute();
}

/**
 * The location of customer `customerId` whose address claim holds `ip` (longest prefix first), or
 * null: where a device's heartbeat came from.
 */
export async function locationOfAddress(db: Kysely<Database>, customerId: number, ip: string): Promise<number | null> {
  const cidr = normalizeCidr(ip);
  const range = cidr ? parseCidr(cidr) : null;
  if (!range || (range.family === 4 ? range.prefix !== 32 : range.prefix !== 128)) return null;
  const { start } = rangeHex(range);
  const row = await db
    .selectFrom('location_addresses')
    .select('location_id')
    .where('customer_id', '=', customerId)
    .where('family', '=', range.family)
    .where('range_start', '<=', start)
    .where('range_end', '>=', start)
    .orderBy('range_start', 'desc')
    .orderBy('range_end', 'asc')
    .limit(1)
    .executeTakeFirst();
  return row?.location_id ?? null;
}
