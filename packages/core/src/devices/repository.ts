import { type Database, executePrepared } from '@cordon/db';
import { type Device, type DeviceListQuery, normalizeCidr, type PolicyMode, parseCidr, rangeHex } from '@cordon/shared';
import { type Expression, expressionBuilder, type Kysely, type SqlBool, sql } from 'kysely';
import { containsAnyText, type ListSort, sortColumn } from '../paging/index.ts';
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

/** The columns of one device row: its own, its location's name and its own policy's and exception's names. */
const DEVICE_COLUMNS = [
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
] as const;

/** One device of customer `customerId` within `scope` with what it inherits joined in (one device: {@link getDevice}). */
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
      ...DEVICE_COLUMNS,
      'ds.policy_mode as cfg_mode',
      'sp.name as cfg_policy',
      'sde.name as cfg_exception',
      defaultPolicyOf(eb.ref('devices.customer_id')).select('dp.name').as('default_policy'),
    ]);
}

/** A row of {@link DEVICE_COLUMNS}. */
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
};

/** What {@link toDevice} needs of what the device inherits: the names of {@link Inherited}. */
type InheritedNames = Pick<Inherited, 'cfg_mode' | 'cfg_policy' | 'cfg_exception' | 'default_policy'>;

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

/**
 * The API's device (spec-notes §3 "Device") from its row and what it inherits. Its `policy` is the name of
 * the policy it gets without a user (docs/decisions.md "Environment"): its own named policy, else the
 * customer's device configuration's named policy when the device inherits it (`default`), else the
 * customer's default policy ('' without one); its `exception` its own, else the configuration's.
 */
function toDevice(r: DeviceRow, inherited: InheritedNames): Device {
  const policy =
    r.policy_mode === 'policy' && r.own_policy !== null
      ? r.own_policy
      : r.policy_mode === 'default' && inherited.cfg_mode === 'policy' && inherited.cfg_policy !== null
        ? inherited.cfg_policy
        : (inherited.default_policy ?? '');
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
    exception: r.own_exception ?? inherited.cfg_exception,
    device_exception_id: r.device_exception_id,
    extra_info: parseInfo(r.extra_info),
    configuration: r.advanced_config,
    created_at: r.created_at,
  };
}

/**
 * What every device of one customer inherits (docs/decisions.md "Environment"): the customer's
 * device configuration (mode, named policy and its name, device exception's name; all null without a
 * settings row) and its default policy (id and name; null without one). Read once per list request
 * rather than joined to every row (bench/README.md "API reads").
 */
interface Inherited {
  cfg_mode: string | null;
  cfg_policy_id: number | null;
  cfg_policy: string | null;
  cfg_exception: string | null;
  default_policy_id: number | null;
  default_policy: string | null;
}

/** {@link Inherited} of customer `customerId` within `scope`, or undefined when the customer is not visible. */
async function inheritedOf(
  db: Kysely<Database>,
  scope: TenantScope,
  customerId: number,
): Promise<Inherited | undefined> {
  const query = db
    .selectFrom('customers')
    .leftJoin('device_settings as ds', 'ds.customer_id', 'customers.id')
    .leftJoin('policies as sp', 'sp.id', 'ds.policy_id')
    .leftJoin('device_exceptions as sde', 'sde.id', 'ds.device_exception_id')
    .where(customerInScope(scope))
    .where('customers.id', '=', customerId)
    .select((eb) => [
      'ds.policy_mode as cfg_mode',
      'ds.policy_id as cfg_policy_id',
      'sp.name as cfg_policy',
      'sde.name as cfg_exception',
      defaultPolicyOf(eb.ref('customers.id')).select('dp.id').as('default_policy_id'),
      defaultPolicyOf(eb.ref('customers.id')).select('dp.name').as('default_policy'),
    ]);
  // Prepared: run on every device list and lookup, its plan the same for every customer (primary keys).
  return (await executePrepared(db, query))[0];
}

/**
 * A condition on `devices` true when the device's policy without a user is `policyId` (the list's
 * `policyid`; the rule of {@link toDevice}), with the customer's device configuration and default
 * policy already read, so it is on the device's own columns only.
 */
function effectivePolicyIs(inherited: Inherited, policyId: number): Expression<SqlBool> {
  const eb = expressionBuilder<Database, 'devices'>();
  // A `default` device's policy: the configuration's named policy, else the default policy.
  const cfgNamed = inherited.cfg_mode === 'policy' ? inherited.cfg_policy_id : null;
  const terms: Expression<SqlBool>[] = [
    eb.and([eb('devices.policy_mode', '=', 'policy'), eb('devices.policy_id', '=', policyId)]),
  ];
  if (cfgNamed === policyId) terms.push(eb('devices.policy_mode', '=', 'default'));
  if (inherited.default_policy_id === policyId) {
    // Neither a named policy of its own nor (for `default`) the configuration's: the default policy.
    const fallsBack = [eb.or([eb('devices.policy_mode', '!=', 'policy'), eb('devices.policy_id', 'is', null)])];
    if (cfgNamed !== null) fallsBack.push(eb('devices.policy_mode', '!=', 'default'));
    terms.push(eb.and(fallsBack));
  }
  return eb.or(terms);
}

/**
 * One page of customer `customerId`'s devices within `scope`: `policyid` keeps those whose policy
 * without a user is that one, `location_id` those last seen at that location, `filter` matches
 * name, DNS name, tag, OS or last address (docs/api.md "Conventions" for paging and sorting).
 *
 * Three steps, so a request costs the page's rows and not the customer's device count times the
 * joins (bench/README.md "API reads"): what the customer's devices inherit (one row, which also
 * checks the customer is in `scope`); the page's ids in order with the count of every match
 * (`count(*) over ()`, devices joined to `customers` under `scope`); the page's details joined to
 * those ids. A page past the end counts apart.
 * @returns the page and the number of devices matching (all pages)
 * @throws ApiError ERR_VALIDATION (400) for an unknown sortkey, before any query runs
 */
export async function listDevices(
  db: Kysely<Database>,
  scope: TenantScope,
  customerId: number,
  query: DeviceListQuery,
): Promise<{ data: Device[]; total: number }> {
  const column = sortColumn(query, SORT.columns);
  const inherited = await inheritedOf(db, scope, customerId);
  if (!inherited) return { data: [], total: 0 };
  let matching = db
    .selectFrom('devices')
    .innerJoin('customers', 'customers.id', 'devices.customer_id')
    .where(customerInScope(scope))
    .where('devices.customer_id', '=', customerId);
  if (query.filter)
    matching = matching.where(
      containsAnyText(
        ['devices.name', 'devices.dns_name', 'devices.tag', 'devices.os_type', 'devices.last_ip'],
        query.filter,
      ),
    );
  if (query.policyid !== undefined) matching = matching.where(effectivePolicyIs(inherited, query.policyid));
  if (query.location_id !== undefined) matching = matching.where('devices.location_id', '=', query.location_id);
  const order = SORT.text.includes(column) ? sql`lower(${sql.ref(column)})` : sql.ref(column);
  const page = matching
    .select(['devices.id', sql<number | string>`count(*) over ()`.as('total')])
    .orderBy(order, query.sortdir)
    .orderBy('devices.id', query.sortdir)
    .limit(query.limit)
    .offset(query.offset);
  // Prepared (`prepared` of @cordon/db): one text per sort and filter shape, its plan a walk of the
  // customer's devices whatever the customer — planning was most of PostgreSQL's time on this route
  // (bench/README.md "API reads").
  const rows = await executePrepared(
    db,
    db
      .selectFrom(page.as('pg'))
      .innerJoin('devices', 'devices.id', 'pg.id')
      .leftJoin('locations', 'locations.id', 'devices.location_id')
      .leftJoin('policies as p', 'p.id', 'devices.policy_id')
      .leftJoin('device_exceptions as de', 'de.id', 'devices.device_exception_id')
      .select([...DEVICE_COLUMNS, 'pg.total'])
      .orderBy(order, query.sortdir)
      .orderBy('devices.id', query.sortdir),
  );
  let total = rows.length > 0 ? Number(rows[0]!.total) : 0;
  if (rows.length === 0 && query.offset > 0) {
    const count = await matching.select(sql<number | string>`count(*)`.as('n')).executeTakeFirstOrThrow();
    total = Number(count.n);
  }
  return { data: rows.map((r) => toDevice(r, inherited)), total };
}

/** Device `deviceId` of customer `customerId` within `scope`, or undefined. */
export async function getDevice(
  db: Kysely<Database>,
  scope: TenantScope,
  customerId: number,
  deviceId: number,
): Promise<Device | undefined> {
  const row = await deviceQuery(db, scope, customerId).where('devices.id', '=', deviceId).executeTakeFirst();
  return row ? toDevice(row, row) : undefined;
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
