import type { Database } from '@cordon/db';
import type { Dependants, DeviceException, ExceptionRule, ListQuery, RuleType } from '@cordon/shared';
import { type Kysely, sql } from 'kysely';
import { dependantsOf, kindOf } from '../dependants/index.ts';
import { containsAnyText, type ListSort, listPage } from '../paging/index.ts';
import { customerInScope, ownedInScope, type TenantScope } from '../tenancy/index.ts';

/** The device-exception list's order (docs/api.md "Conventions"). */
const SORT: ListSort<string> = {
  columns: {
    name: 'device_exceptions.name',
    description: 'device_exceptions.description',
    created_at: 'device_exceptions.created_at',
    updated_at: 'device_exceptions.updated_at',
    id: 'device_exceptions.id',
  },
  text: ['device_exceptions.name', 'device_exceptions.description'],
  tiebreak: 'device_exceptions.id',
};

/**
 * The device exceptions `scope` may see (joined to `customers`), optionally of one customer, with
 * their device count (devices naming it, plus every inheriting device when it is the customer's
 * device-configuration exception) and rule count.
 */
function exceptionQuery(db: Kysely<Database>, scope: TenantScope) {
  return db
    .selectFrom('device_exceptions')
    .innerJoin('customers', 'customers.id', 'device_exceptions.customer_id')
    .where(customerInScope(scope))
    .select((eb) => [
      'device_exceptions.id',
      'device_exceptions.customer_id',
      'device_exceptions.name',
      'device_exceptions.description',
      'device_exceptions.created_at',
      'device_exceptions.updated_at',
      eb
        .selectFrom('devices')
        .leftJoin('device_settings', 'device_settings.customer_id', 'devices.customer_id')
        .select(sql<number>`count(*)`.as('n'))
        // The exception's own customer's devices (an exception is set on its customer's devices only):
        // the customer's index, where the OR alone scanned every device of every tenant (EXPLAIN QUERY PLAN).
        .whereRef('devices.customer_id', '=', 'device_exceptions.customer_id')
        .where((w) =>
          w.or([
            w('devices.device_exception_id', '=', w.ref('device_exceptions.id')),
            w.and([
              w('devices.device_exception_id', 'is', null),
              w('device_settings.device_exception_id', '=', w.ref('device_exceptions.id')),
            ]),
          ]),
        )
        .as('devices_count'),
      eb
        .selectFrom('device_exception_rules')
        .select(sql<number>`count(*)`.as('n'))
        .whereRef('device_exception_rules.device_exception_id', '=', 'device_exceptions.id')
        .as('rules_count'),
    ]);
}

type ExceptionRow = {
  id: number;
  customer_id: number;
  name: string;
  description: string;
  created_at: string;
  updated_at: string;
  devices_count: number | string | null;
  rules_count: number | string | null;
};

function toException(r: ExceptionRow): DeviceException {
  return {
    id: r.id,
    user_id: r.customer_id,
    name: r.name,
    description: r.description,
    created_at: r.created_at,
    updated_at: r.updated_at,
    devices_count: Number(r.devices_count ?? 0),
    rules_count: Number(r.rules_count ?? 0),
  };
}

/** One page of customer `customerId`'s device exceptions within `scope`; `filter` matches name or description. */
export async function listExceptions(
  db: Kysely<Database>,
  scope: TenantScope,
  customerId: number,
  query: ListQuery,
): Promise<{ data: DeviceException[]; total: number }> {
  let base = exceptionQuery(db, scope).where('device_exceptions.customer_id', '=', customerId);
  if (query.filter)
    base = base.where(containsAnyText(['device_exceptions.name', 'device_exceptions.description'], query.filter));
  const { rows, total } = await listPage(base, query, SORT);
  return { data: rows.map(toException), total };
}

/** Device exception `id` within `scope` (any visible customer), or undefined. */
export async function getException(
  db: Kysely<Database>,
  scope: TenantScope,
  id: number,
): Promise<DeviceException | undefined> {
  const row = await exceptionQuery(db, scope).where('device_exceptions.id', '=', id).executeTakeFirst();
  return row ? toException(row) : undefined;
}

/** Device exception `id` of customer `customerId` within `scope` (`{ id, name }`), or undefined. */
export async function exceptionOfCustomer(
  db: Kysely<Database>,
  scope: TenantScope,
  customerId: number,
  id: number,
): Promise<{ id: number; name: string } | undefined> {
  return db
    .selectFrom('device_exceptions')
    .innerJoin('customers', 'customers.id', 'device_exceptions.customer_id')
    .where(customerInScope(scope))
    .where('device_exceptions.customer_id', '=', customerId)
    .where('device_exceptions.id', '=', id)
    .select(['device_exceptions.id', 'device_exceptions.name'])
    .executeTakeFirst();
}

/** Inserts a device exception of customer `customerId` (already checked in scope); returns its id. */
export async function insertException(
  db: Kysely<Database>,
  customerId: number,
  values: { name: string; description: string },
  at: string,
): Promise<number> {
  const row = await db
    .insertInto('device_exceptions')
    .values({ customer_id: customerId, ...values, created_at: at, updated_at: at })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** Updates device exception `id` within `scope`; false when not visible. */
export async function updateException(
  db: Kysely<Database>,
  scope: TenantScope,
  id: number,
  patch: Partial<{ name: string; description: string }>,
  at: string,
): Promise<boolean> {
  const result = await db
    .updateTable('device_exceptions')
    .set({ ...patch, updated_at: at })
    .where('id', '=', id)
    .where(ownedInScope('device_exceptions.customer_id', scope))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Deletes device exception `id` within `scope` (rules by cascade; devices fall back by set null); false when not visible. */
export async function deleteException(db: Kysely<Database>, scope: TenantScope, id: number): Promise<boolean> {
  const result = await db
    .deleteFrom('device_exceptions')
    .where('id', '=', id)
    .where(ownedInScope('device_exceptions.customer_id', scope))
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** True when another exception of the customer (not `exceptId`) has this name (case-insensitive). */
export async function exceptionNameTaken(
  db: Kysely<Database>,
  customerId: number,
  name: string,
  exceptId?: number,
): Promise<boolean> {
  let q = db
    .selectFrom('device_exceptions')
    .select('id')
    .where('customer_id', '=', customerId)
    .where(sql`lower(name)`, '=', name.toLowerCase());
  if (exceptId !== undefined) q = q.where('id', '!=', exceptId);
  return (await q.executeTakeFirst()) !== undefined;
}

const RULE_COLUMNS = [
  'device_exception_rules.id',
  'device_exception_rules.domain',
  'device_exception_rules.ip',
  'device_exception_rules.resolver',
  'device_exception_rules.rule_type',
  'device_exception_rules.description',
  'device_exception_rules.created_at',
  'device_exception_rules.updated_at',
] as const;

type RuleRow = {
  id: number;
  domain: string;
  ip: string;
  resolver: string;
  rule_type: string;
  description: string;
  created_at: string;
  updated_at: string;
};

function toRule(r: RuleRow): ExceptionRule {
  return { ...r, rule_type: r.rule_type as RuleType };
}

/** The rules of device exception `exceptionId` within `scope`, by id. */
export async function listRules(
  db: Kysely<Database>,
  scope: TenantScope,
  exceptionId: number,
): Promise<ExceptionRule[]> {
  const rows = await db
    .selectFrom('device_exception_rules')
    .select(RULE_COLUMNS)
    .where('device_exception_rules.device_exception_id', '=', exceptionId)
    .where(ownedInScope('device_exception_rules.customer_id', scope))
    .orderBy('device_exception_rules.id')
    .execute();
  return rows.map(toRule);
}

/** Rule `ruleId` of exception `exceptionId` within `scope`, or undefined. */
export async function getRule(
  db: Kysely<Database>,
  scope: TenantScope,
  exceptionId: number,
  ruleId: number,
): Promise<ExceptionRule | undefined> {
  const row = await db
    .selectFrom('device_exception_rules')
    .select(RULE_COLUMNS)
    .where('device_exception_rules.id', '=', ruleId)
    .where('device_exception_rules.device_exception_id', '=', exceptionId)
    .where(ownedInScope('device_exception_rules.customer_id', scope))
    .executeTakeFirst();
  return row ? toRule(row) : undefined;
}

/** The rule values of the API (normalised by the body schema). */
export interface RuleValues {
  domain: string;
  ip: string;
  resolver: string;
  rule_type: RuleType;
  description: string;
}

/** Inserts a rule of exception `exceptionId` of customer `customerId` (already checked in scope); returns its id. */
export async function insertRule(
  db: Kysely<Database>,
  customerId: number,
  exceptionId: number,
  values: RuleValues,
  at: string,
): Promise<number> {
  const row = await db
    .insertInto('device_exception_rules')
    .values({ customer_id: customerId, device_exception_id: exceptionId, ...values, created_at: at, updated_at: at })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** Replaces rule `ruleId`'s values within `scope`; false when not visible. */
export async function updateRule(
  db: Kysely<Database>,
  scope: TenantScope,
  exceptionId: number,
  ruleId: number,
  values: RuleValues,
  at: string,
): Promise<boolean> {
  const result = await db
    .updateTable('device_exception_rules')
    .set({ ...values, updated_at: at })
    .where('id', '=', ruleId)
    .where('device_exception_id', '=', exceptionId)
    .where(ownedInScope('device_exception_rules.customer_id', scope))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Deletes rule `ruleId` within `scope`; false when not visible. */
export async function deleteRule(
  db: Kysely<Database>,
  scope: TenantScope,
  exceptionId: number,
  ruleId: number,
): Promise<boolean> {
  const result = await db
    .deleteFrom('device_exception_rules')
    .where('id', '=', ruleId)
    .where('device_exception_id', '=', exceptionId)
    .where(ownedInScope('device_exception_rules.customer_id', scope))
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** The rules of exception `exceptionId` for an agent (no tenant scope: the caller holds a device key of its customer). */
export async function rulesForAgent(db: Kysely<Database>, customerId: number, exceptionId: number) {
  const rows = await db
    .selectFrom('device_exception_rules')
    .select(['id', 'domain', 'ip', 'resolver', 'rule_type'])
    .where('device_exception_id', '=', exceptionId)
    .where('customer_id', '=', customerId)
    .orderBy('id')
    .execute();
  return rows.map((r) => ({ ...r, rule_type: r.rule_type as RuleType }));
}

/** True when exception `id` is its customer's device-configuration exception (in use by every inheriting device). */
export async function isCustomerDefault(db: Kysely<Database>, id: number): Promise<boolean> {
  const row = await db
    .selectFrom('device_settings')
    .select('customer_id')
    .where('device_exception_id', '=', id)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * What names device exception `id` of customer `customerId` (docs/api.md "Deletes of things in
 * use"): `devices` with it and `device_settings` (the customer's device configuration), tenant-scoped.
 */
export async function exceptionDependants(
  db: Kysely<Database>,
  scope: TenantScope,
  customerId: number,
  id: number,
): Promise<Dependants> {
  const devices = await kindOf(
    db
      .selectFrom('devices')
      .where('devices.customer_id', '=', customerId)
      .where('devices.device_exception_id', '=', id)
      .where(ownedInScope('devices.customer_id', scope)),
    'devices.name',
  );
  const settings = await db
    .selectFrom('device_settings')
    .select('device_settings.customer_id')
    .where('device_settings.customer_id', '=', customerId)
    .where('device_settings.device_exception_id', '=', id)
    .where(ownedInScope('device_settings.customer_id', scope))
    .executeTakeFirst();
  return dependantsOf({ devices, device_settings: { count: settings ? 1 : 0, names: [] } });
}

/**
 * Points the devices and device configuration naming exception `fromId` at `toId` (null: none), both
 * of customer `customerId` and already checked in scope. @returns the rows changed by kind
 */
export async function moveExceptionDependants(
  db: Kysely<Database>,
  scope: TenantScope,
  customerId: number,
  fromId: number,
  toId: number | null,
): Promise<Record<string, number>> {
  const devices = await db
    .updateTable('devices')
    .set({ device_exception_id: toId })
    .where('devices.customer_id', '=', customerId)
    .where('devices.device_exception_id', '=', fromId)
    .where(ownedInScope('devices.customer_id', scope))
    .executeTakeFirst();
  const settings = await db
    .updateTable('device_settings')
    .set({ device_exception_id: toId })
    .where('device_settings.customer_id', '=', customerId)
    .where('device_settings.device_exception_id', '=', fromId)
    .where(ownedInScope('device_settings.customer_id', scope))
    .executeTakeFirst();
  return { devices: Number(devices.numUpdatedRows), device_settings: Number(settings.numUpdatedRows) };
}
