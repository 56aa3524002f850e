import type { Database, DatabaseHandle } from '@cordon/db';
import { type Kysely, sql } from 'kysely';
import { PackedKeys } from './packed-keys.ts';
import { big, changedKeys, chunks, digestColumns, INCREMENTAL_LIMIT, type SnapshotPart, tableDigest } from './part.ts';

/**
 * A device's or the customer's policy choice (spec-notes §4 "Policy inheritance choices"): inherit the
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

/** One device-exception rule (spec-notes §3 "Exception rule"), as the resolver and the agent apply it. */
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

const MODES: readonly PolicyMode[] = ['default', 'group', 'policy'];

function modeCode(mode: PolicyMode): number {
  return mode === 'policy' ? 2 : mode === 'group' ? 1 : 0;
}

/**
 * The enrolled devices in columns (bench/README.md "Resolver memory"): the device keys packed in a
 * {@link PackedKeys} (one Latin-1 buffer, offsets, an open-addressing table; a key's number is its
 * row), and one `Int32Array` per id column (0: null; every id is a positive `integer` column) plus a
 * `Uint8Array` of modes, 25 B a device beside its key's ≈ (length + 12 to 20) bytes, instead of a row
 * object, a key string and a `Map` entry each. {@link DeviceTable.rowOf} finds a key without
 * allocating; {@link DeviceTable.get} and iteration build {@link DeviceRow} views (and key strings)
 * on demand; identification reads the columns by row number. Immutable once built
 * ({@link DeviceTableBuilder}).
 */
export class DeviceTable {
  /** @internal use {@link DeviceTableBuilder} or {@link DeviceTable.from} */
  constructor(
    /** @internal */
    readonly keys: PackedKeys,
    private readonly deviceIds: Int32Array,
    private readonly customerIds: Int32Array,
    private readonly mspIds: Int32Array,
    private readonly policyIds: Int32Array,
    private readonly exceptionIds: Int32Array,
    private readonly locationIds: Int32Array,
    private readonly modes: Uint8Array,
  ) {}

  /** A table of `rows` (a later row with the same key replaces an earlier one). */
  static from(rows: Iterable<DeviceRow>): DeviceTable {
    const b = new DeviceTableBuilder();
    for (const r of rows) b.add(r);
    return b.build();
  }

  /** Number of devices. */
  get size(): number {
    return this.keys.size;
  }

  /** Bytes of the typed arrays: the packed keys and the columns. */
  get byteSize(): number {
    const ids = [this.deviceIds, this.customerIds, this.mspIds, this.policyIds, this.exceptionIds, this.locationIds];
    return this.keys.byteSize + this.modes.byteLength + ids.reduce((sum, a) => sum + a.byteLength, 0);
  }

  /** True when `key` names a device. */
  has(key: string): boolean {
    return this.keys.rowOf(key) >= 0;
  }

  /** The row number of the device with `key`, or -1. Allocates nothing. */
  rowOf(key: string): number {
    return this.keys.rowOf(key);
  }

  /** The key of row `i` (a new string per call). */
  keyOf(i: number): string {
    return this.keys.keyOf(i);
  }

  /** A view of the device with `key`, or undefined (a new object per call). */
  get(key: string): DeviceRow | undefined {
    const i = this.keys.rowOf(key);
    return i < 0 ? undefined : this.view(key, i);
  }

  /** Views of every device, in load order. */
  *values(): IterableIterator<DeviceRow> {
    for (let i = 0; i < this.keys.size; i++) yield this.view(this.keys.keyOf(i), i);
  }

  /** Every device as (key, row number), in load order (row numbers are 0, 1, 2…). */
  *rows(): IterableIterator<[string, number]> {
    for (let i = 0; i < this.keys.size; i++) yield [this.keys.keyOf(i), i];
  }

  deviceId(i: number): number {
    return this.deviceIds[i]!;
  }
  customerId(i: number): number {
    return this.customerIds[i]!;
  }
  mspId(i: number): number {
    return this.mspIds[i]!;
  }
  mode(i: number): PolicyMode {
    return MODES[this.modes[i]!]!;
  }
  policyId(i: number): number | null {
    return this.policyIds[i]! || null;
  }
  exceptionId(i: number): number | null {
    return this.exceptionIds[i]! || null;
  }
  locationId(i: number): number | null {
    return this.locationIds[i]! || null;
  }

  private view(key: string, i: number): DeviceRow {
    return {
      deviceId: this.deviceId(i),
      customerId: this.customerId(i),
      mspId: this.mspId(i),
      key,
      mode: this.mode(i),
      policyId: this.policyId(i),
      exceptionId: this.exceptionId(i),
      locationId: this.locationId(i),
    };
  }
}

/**
 * Builds a {@link DeviceTable} row by row: the keys packed as they come, the columns growing by
 * doubling; `build` trims both.
 */
export class DeviceTableBuilder {
  private readonly keys: PackedKeys;
  private cols: Int32Array[];
  private modes: Uint8Array;

  /** @param capacity devices expected (the builder grows past it) */
  constructor(capacity = 1024) {
    const c = Math.max(16, capacity);
    this.keys = new PackedKeys(c);
    this.cols = Array.from({ length: 6 }, () => new Int32Array(c));
    this.modes = new Uint8Array(c);
  }

  /** Adds `row`; a key already added is overwritten in place. */
  add(row: DeviceRow): void {
    this.set(
      this.keys.intern(row.key),
      row.deviceId,
      row.customerId,
      row.mspId,
      modeCode(row.mode),
      row.policyId,
      row.exceptionId,
      row.locationId,
    );
  }

  /** Adds row `i` of `table`, whose key is `key`. */
  copy(table: DeviceTable, key: string, i: number): void {
    this.copyAt(this.keys.intern(key), table, i);
  }

  /** Adds row `i` of `table`, copying its key's bytes (no key string made). */
  copyRow(table: DeviceTable, i: number): void {
    this.copyAt(this.keys.internFrom(table.keys, i), table, i);
  }

  /** @internal */
  put(
    key: string,
    deviceId: number,
    customerId: number,
    mspId: number,
    mode: number,
    policyId: number | null,
    exceptionId: number | null,
    locationId: number | null,
  ): void {
    this.set(this.keys.intern(key), deviceId, customerId, mspId, mode, policyId, exceptionId, locationId);
  }

  /** The table; the builder must not be used afterwards. */
  build(): DeviceTable {
    const n = this.keys.size;
    const [d, c, m, p, e, l] = this.cols.map((a) => a.slice(0, n)) as [
      Int32Array,
      Int32Array,
      Int32Array,
      Int32Array,
      Int32Array,
      Int32Array,
    ];
    return new DeviceTable(this.keys.trim(), d, c, m, p, e, l, this.modes.slice(0, n));
  }

  private copyAt(at: number, table: DeviceTable, i: number): void {
    this.set(
      at,
      table.deviceId(i),
      table.customerId(i),
      table.mspId(i),
      modeCode(table.mode(i)),
      table.policyId(i),
      table.exceptionId(i),
      table.locationId(i),
    );
  }

  /** Writes row `i` (a key's number: the next row when the key is new). */
  private set(
    i: number,
    deviceId: number,
    customerId: number,
    mspId: number,
    mode: number,
    policyId: number | null,
    exceptionId: number | null,
    locationId: number | null,
  ): void {
    if (i === this.modes.length) this.grow();
    const c = this.cols;
    c[0]![i] = deviceId;
    c[1]![i] = customerId;
    c[2]![i] = mspId;
    c[3]![i] = policyId ?? 0;
    c[4]![i] = exceptionId ?? 0;
    c[5]![i] = locationId ?? 0;
    this.modes[i] = mode;
  }

  private grow(): void {
    const size = this.modes.length * 2;
    this.cols = this.cols.map((a) => {
      const b = new Int32Array(size);
      b.set(a);
      return b;
    });
    const modes = new Uint8Array(size);
    modes.set(this.modes);
    this.modes = modes;
  }
}

/** The devices part: devices by key, the customers' device configuration, and the exception rules. */
export interface DevicesSnapshot {
  /** The devices by key, in columns. */
  readonly byKey: DeviceTable;
  /** customer id → its device configuration (customers without a `device_settings` row are absent). */
  readonly settings: ReadonlyMap<number, DeviceSettingsRow>;
  /** device exception id → its rules in id order. */
  readonly exceptions: ReadonlyMap<number, readonly ExceptionRuleRow[]>;
  /**
   * customer id → device id → the ids of the internal users the device may assert (table
   * `device_users`: bound by an admin or reported by its agent within the cap; docs/security.md
   * "Identity claims"). Devices without bindings are absent.
   */
  readonly bindings: ReadonlyMap<number, ReadonlyMap<number, readonly number[]>>;
  /** customer id → digest of its device rows (and of its device-user bindings). */
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
  // The bindings' digest joins the customer's: a binding change reloads that customer alone.
  const bound = digestColumns(sql`${big(sql.ref('device_id'))} * 1048576 + user_id`);
  const brows = await db
    .selectFrom('device_users')
    .select([sql<number>`customer_id`.as('key'), bound.n.as('n'), bound.s.as('s'), bound.q.as('q')])
    .groupBy('customer_id')
    .execute();
  for (const r of brows) {
    const key = Number(r.key);
    out.set(key, `${out.get(key) ?? '0'}|u${r.n}/${r.s ?? 0}/${r.q ?? 0}`);
  }
  return out;
}

/** Reads the device-user bindings of `customers` (null: all) into `into` (customer → device → user ids). */
async function readBindings(
  db: Kysely<Database>,
  customers: number[] | null,
  into: Map<number, Map<number, number[]>>,
): Promise<void> {
  for (const ids of customers === null ? [null] : chunks(customers)) {
    let q = db.selectFrom('device_users').select(['customer_id', 'device_id', 'user_id']);
    if (ids !== null) q = q.where('customer_id', 'in', ids);
    for (const r of await q.execute()) {
      let byDevice = into.get(r.customer_id);
      if (byDevice === undefined) {
        byDevice = new Map();
        into.set(r.customer_id, byDevice);
      }
      const users = byDevice.get(r.device_id);
      if (users === undefined) byDevice.set(r.device_id, [r.user_id]);
      else users.push(r.user_id);
    }
  }
}

function modeOf(text: string): PolicyMode {
  return text === 'policy' || text === 'group' ? text : 'default';
}

/**
 * Rows per page when reading devices: a page's row objects die young instead of 100,000 of them
 * reaching the old generation at once (bench/README.md "Resolver memory").
 */
const DEVICE_PAGE = 10_000;

/** Reads the devices of `customers` (null: all) into `into`. */
async function readDevices(db: Kysely<Database>, customers: number[] | null, into: DeviceTableBuilder): Promise<void> {
  for (const ids of customers === null ? [null] : chunks(customers)) {
    // Keyset pages in id order.
    for (let after = 0; ; ) {
      const page = await devicePage(db, ids, after);
      for (const d of page) {
        into.put(
          d.key,
          d.id,
          d.customer_id,
          d.msp_id,
          modeCode(modeOf(d.policy_mode)),
          d.policy_id,
          d.device_exception_id,
          d.location_id,
        );
      }
      if (page.length < DEVICE_PAGE) break;
      after = page[page.length - 1]!.id;
    }
  }
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
 * "Identification"), with the users each device may assert (`device_users`). The devices table is the large one (100,000 devices is a planned size): a
 * digest row per customer finds the customers whose devices changed and only theirs are read
 * again, like the locations part. The customers' device configuration and the exception rules are
 * small and read whole on every load. A heartbeat publishes nothing, so it costs the resolver nothing.
 */
export const devicesPart: SnapshotPart<DevicesSnapshot> = {
  name: 'devices',
  incremental: true,
  topics: ['devices', 'tenants'],
  empty: () => ({
    byKey: new DeviceTableBuilder(0).build(),
    bindings: new Map(),
    settings: new Map(),
    exceptions: new Map(),
    digests: new Map(),
    configText: '',
    reloadedCustomers: 0,
  }),
  load: (handle: DatabaseHandle, _logger, previous) =>
    handle.db
      .transaction()
      .setAccessMode('read only')
      .execute(async (trx) => {
        const now = await digests(trx);
        const changed = previous ? changedKeys(previous.digests, now) : null;
        const partial = previous !== null && changed !== null && changed.size <= INCREMENTAL_LIMIT;
        let byKey: DeviceTable;
        if (partial && changed.size === 0) byKey = previous.byKey;
        else {
          let count = 0;
          for (const text of now.values()) count += Number.parseInt(text, 10);
          const builder = new DeviceTableBuilder(count);
          if (partial) {
            const before = previous.byKey;
            // Key bytes copied from the previous table: no key string is made.
            for (let i = 0; i < before.size; i++) if (!changed.has(before.customerId(i))) builder.copyRow(before, i);
          }
          await readDevices(trx, partial ? [...changed] : null, builder);
          byKey = builder.build();
        }
        let bindings: ReadonlyMap<number, ReadonlyMap<number, readonly number[]>>;
        if (partial && changed.size === 0) bindings = previous.bindings;
        else {
          const fresh = new Map<number, Map<number, number[]>>();
          await readBindings(trx, partial ? [...changed] : null, fresh);
          const all = new Map<number, ReadonlyMap<number, readonly number[]>>(fresh);
          if (partial) for (const [c, m] of previous.bindings) if (!changed.has(c)) all.set(c, m);
          bindings = all;
        }

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
          bindings,
          settings,
          exceptions,
          digests: now,
          configText,
          reloadedCustomers: partial ? changed.size : now.size,
        };
      }),
  // A heartbeat moves a device's location_id without updated_at: the encodings see it.
  digest: (handle) => {
    const id = big(sql.ref('id'));
    return tableDigest(handle, [
      { table: 'customers', rows: [sql`${big(sql.ref('id'))} * 1048576 + msp_id`] },
      {
        table: 'devices',
        rows: [
          sql`${id} * 4 + ${MODE_CODE}`,
          sql`${id} * 1048576 + coalesce(policy_id, 0)`,
          sql`${id} * 1048576 + coalesce(device_exception_id, 0)`,
          sql`${id} * 1048576 + coalesce(location_id, 0)`,
          sql`${id} * 1024 + length(key)`,
        ],
        stamps: ['updated_at'],
      },
      { table: 'device_users', rows: [sql`${big(sql.ref('device_id'))} * 1048576 + user_id`] },
      {
        table: 'device_settings',
        rows: [
          sql`(${big(sql.ref('customer_id'))} * 4 + ${MODE_CODE}) * 1048576 + coalesce(policy_id, 0)`,
          sql`${big(sql.ref('customer_id'))} * 1048576 + coalesce(device_exception_id, 0)`,
        ],
        stamps: ['updated_at'],
      },
      {
        table: 'device_exception_rules',
        rows: [sql`${big(sql.ref('id'))} * 1048576 + device_exception_id`],
        stamps: ['updated_at'],
      },
    ]);
  },
};
