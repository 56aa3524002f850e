import type { Database, DatabaseHandle } from '@cordon/db';
import { type Kysely, sql } from 'kysely';
import { big, changedKeys, chunks, digestColumns, INCREMENTAL_LIMIT, type SnapshotPart } from './part.ts';

/**
 * A device's or the customer's policy choice (spec §4 "Policy inheritance choices"): inherit the
 * default policy, inherit the group or default policy, or a named policy.
 */
export type PolicyMode = 'default' | 'group' | 'policy';

/** An enrolled device as identification needs it (docs/architecture.md "Identification"). */
export interface DeviceRow {
  readonly deviceId: number;
  readonly customerId: number;
  readonly mspId: number;
  /** The device key: DoH path `/dns-query/{key}`, EDNS(0) option 65073. */
  readonly key: string;
  readonly mode: PolicyMode;
  /** The named policy when `mode` is `policy`. */
  readonly policyId: number | null;
  /** Its own device exception; null: the customer's device configuration's. */
  readonly exceptionId: number | null;
  /** The location its last heartbeat came from, for the query log; null when none matched. */
  readonly locationId: number | null;
}

/**
 * The customer-wide device configuration (`device_settings`): the policy choice of devices whose
 * own mode is `default`, and the exception of devices without one.
 */
export interface DeviceSettingsRow {
  readonly mode: PolicyMode;
  readonly policyId: number | null;
  readonly exceptionId: number | null;
}

/** One device-exception rule (spec §3 "Exception rule"), as the resolver and the agent apply it. */
export interface ExceptionRuleRow {
  readonly ruleId: number;
  /** The customer the rule (and its exception) belongs to. */
  readonly customerId: number;
  /** Normalised domain (the rule matches it and every name below it); empty: any name. */
  readonly domain: string;
  /** Source address or CIDR (canonical); empty: any source. */
  readonly ip: string;
  /** `ip` or `ip:port` of `Use Specific Resolver`; empty otherwise. */
  readonly resolver: string;
  readonly ruleType: 'ByPass OTG' | 'Use Specific Resolver';
}

/** The devices part: devices by key, the customers' device configuration, and the exception rules. */
export interface DevicesSnapshot {
  readonly byKey: ReadonlyMap<string, DeviceRow>;
  /** customer id → its device configuration (customers without a `device_settings` row are absent). */
  readonly settings: ReadonlyMap<number, DeviceSettingsRow>;
  /** device exception id → its rules in id order. */
  readonly exceptions: ReadonlyMap<number, readonly ExceptionRuleRow[]>;
  /** customer id → digest of its device rows. */
  readonly digests: ReadonlyMap<number, string>;
  /** The device configurations and exception rules as text, to tell whether a reload changed them. */
  readonly configText: string;
  /** Customers whose devices the load that built this value read (every one on a full load). */
  readonly reloadedCustomers: number;
}

const MODE_CODE = sql`case policy_mode when 'policy' then 2 when 'group' then 1 else 0 end`;

/**
 * customer id → digest of its device rows: one scan of `devices` computing four digests (mode,
 * policy, exception, location, each with the device id), joined as text.
 */
async function digests(db: Kysely<Database>): Promise<Map<number, string>> {
  const id = big(sql.ref('id'));
  const parts = [
    digestColumns(sql`${id} * 4 + ${MODE_CODE}`),
    digestColumns(sql`${id} * 1048576 + coalesce(policy_id, 0)`),
    digestColumns(sql`${id} * 1048576 + coalesce(device_exception_id, 0)`),
    digestColumns(sql`${id} * 1048576 + coalesce(location_id, 0)`),
  ];
  const rows = await db
    .selectFrom('devices')
    .select([
      sql<number>`customer_id`.as('key'),
      parts[0]!.n.as('n'),
      ...parts.flatMap((d, i) => [d.s.as(`s${i}`), d.q.as(`q${i}`)]),
    ])
    .groupBy('customer_id')
    .execute();
  const out = new Map<number, string>();
  for (const r of rows as unknown as Record<string, number | string | null>[]) {
    const text = [r.n, r.s0, r.q0, r.s1, r.q1, r.s2, r.q2, r.s3, r.q3].map((v) => v ?? 0).join('/');
    out.set(Number(r.key), text);
  }
  return out;
}

function modeOf(text: string): PolicyMode {
  return text === 'policy' || text === 'group' ? text : 'default';
}

/**
 * Rows per page when reading devices: a page's row objects die young instead of 100,000 of them
 * reaching the old generation at once (bench/README.md "Resolver memory").
 */
const DEVICE_PAGE = 10_000;

async function readDevices(db: Kysely<Database>, customers: number[] | null): Promise<DeviceRow[]> {
  const rows: DeviceRow[] = [];
  for (const ids of customers === null ? [null] : chunks(customers)) {
    // Keyset pages in id order.
    for (let after = 0; ; ) {
      const page = await devicePage(db, ids, after);
      for (const d of page) {
        rows.push({
          deviceId: d.id,
          customerId: d.customer_id,
          mspId: d.msp_id,
          key: d.key,
          mode: modeOf(d.policy_mode),
          policyId: d.policy_id,
          exceptionId: d.device_exception_id,
          locationId: d.location_id,
        });
      }
      if (page.length < DEVICE_PAGE) break;
      after = page[page.length - 1]!.id;
    }
  }
  return rows;
}

/** Up to {@link DEVICE_PAGE} devices with an id above `after`, of `customers` (null: all). */
function devicePage(db: Kysely<Database>, customers: number[] | null, after: number) {
  let q = db
    .selectFrom('devices')
    .innerJoin('customers', 'customers.id', 'devices.customer_id')
    .select([
      'devices.id',
      'devices.customer_id',
      'customers.msp_id',
      'devices.key',
      'devices.policy_mode',
      'devices.policy_id',
      'devices.device_exception_id',
      'devices.location_id',
    ])
    .where('devices.id', '>', after)
    .orderBy('devices.id')
    .limit(DEVICE_PAGE);
  if (customers !== null) q = q.where('devices.customer_id', 'in', customers);
  return q.execute();
}

/**
 * The devices part (topics `devices`, `tenants`), for identification by key (docs/architecture.md
 * "Identification"). The devices table is the large one (100,000 devices is a planned size): a
 * digest row per customer finds the customers whose devices changed and only theirs are read
 * again, like the locations part. The customers' device configuration and the exception rules are
 * small and read whole on every load. A heartbeat publishes nothing, so it costs the resolver nothing.
 */
export const devicesPart: SnapshotPart<DevicesSnapshot> = {
  name: 'devices',
  incremental: true,
  topics: ['devices', 'tenants'],
  empty: () => ({
    byKey: new Map(),
    settings: new Map(),
    exceptions: new Map(),
    digests: new Map(),
    configText: '',
    reloadedCustomers: 0,
  }),
  load: (handle: DatabaseHandle, _logger, previous) =>
    handle.db.transaction().execute(async (trx) => {
      const now = await digests(trx);
      const changed = previous ? changedKeys(previous.digests, now) : null;
      const partial = previous !== null && changed !== null && changed.size <= INCREMENTAL_LIMIT;
      const fresh = partial && changed.size === 0 ? [] : await readDevices(trx, partial ? [...changed] : null);
      const byKey = new Map<string, DeviceRow>();
      if (partial) for (const [k, d] of previous.byKey) if (!changed.has(d.customerId)) byKey.set(k, d);
      for (const d of fresh) byKey.set(d.key, d);

      const settings = new Map<number, DeviceSettingsRow>();
      for (const s of await trx
        .selectFrom('device_settings')
        .select(['customer_id', 'policy_mode', 'policy_id', 'device_exception_id'])
        .execute()) {
        settings.set(s.customer_id, {
          mode: modeOf(s.policy_mode),
          policyId: s.policy_id,
          exceptionId: s.device_exception_id,
        });
      }
      const exceptions = new Map<number, ExceptionRuleRow[]>();
      for (const r of await trx
        .selectFrom('device_exception_rules')
        .select(['id', 'device_exception_id', 'customer_id', 'domain', 'ip', 'resolver', 'rule_type'])
        .orderBy('id')
        .execute()) {
        let list = exceptions.get(r.device_exception_id);
        if (!list) {
          list = [];
          exceptions.set(r.device_exception_id, list);
        }
        list.push({
          ruleId: r.id,
          customerId: r.customer_id,
          domain: r.domain,
          ip: r.ip,
          resolver: r.resolver,
          ruleType: r.rule_type === 'Use Specific Resolver' ? 'Use Specific Resolver' : 'ByPass OTG',
        });
      }
      const configText = JSON.stringify([[...settings], [...exceptions]]);
      // Nothing changed: the same value, so the store does not rebuild 100,000 device identities.
      if (partial && changed.size === 0 && configText === previous.configText) return previous;
      return {
        byKey,
        settings,
        exceptions,
        digests: now,
        configText,
        reloadedCustomers: partial ? changed.size : now.size,
      };
    }),
};
