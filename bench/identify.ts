/**
 * Measures identification (docs/architecture.md "Identification") at the issue-8 scale: 100,000
 * devices (key lookups, with and without a reported user), 100,000 static /32 addresses plus
 * dynamic /32s and wider prefixes (longest-prefix lookups), 1,000 roaming/virtual location keys.
 *
 *   node --expose-gc --import tsx bench/identify.ts [sqlite-file]   (CORDON_BENCH_DEVICES=1000 for a small-scale comparison)
 *
 * 1. Builds the identities in memory from synthetic snapshot parts (the relink the store runs on
 *    every change) and times it.
 * 2. Times `Identities.identify` per path over 2,000,000 lookups each.
 * 3. Writes the devices into the SQLite file (default /tmp/cordon-bench-identify.db, made once)
 *    and times the devices part's full load and an incremental load after one customer changed.
 * Numbers go in bench/README.md, never in tests.
 */
import { existsSync } from 'node:fs';
import { migrateToLatest, openDatabase } from '@cordon/db';
import { parseCidr } from '@cordon/shared';
import pino from 'pino';
import {
  type DeviceRow,
  type DevicesSnapshot,
  DeviceTable,
  devicesPart,
} from '../apps/resolver/src/snapshot/devices.ts';
import type { GroupsSnapshot, UserRow } from '../apps/resolver/src/snapshot/groups.ts';
import { Identities, type WhoAsks } from '../apps/resolver/src/snapshot/identities.ts';
import type { AddressClaim, LocationRow, LocationsSnapshot } from '../apps/resolver/src/snapshot/locations.ts';
import type { PoliciesSnapshot } from '../apps/resolver/src/snapshot/policies.ts';
import { compilePolicy } from '../packages/policy/src/compiled-policy.ts';
import { NO_LISTS } from '../packages/policy/src/domain-index.ts';

const DEVICES = Number(process.env.CORDON_BENCH_DEVICES ?? 100_000);
const CUSTOMERS = 1_000;
const STATIC = 100_000;
const N = 2_000_000;

const key = (i: number) => `device-key-${i.toString(36).padStart(8, '0')}-bench`;
const ipOf = (i: number) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;

// Policies: one default per customer and one extra.
const byId = new Map<number, ReturnType<typeof compilePolicy>>();
const defaultOf = new Map<number, number>();
for (let c = 1; c <= CUSTOMERS; c++) {
  byId.set(c * 2, compilePolicy(c * 2, c, [20], true));
  byId.set(c * 2 + 1, compilePolicy(c * 2 + 1, c, [39], true));
  defaultOf.set(c, c * 2);
}
const policies: PoliciesSnapshot = { byId, defaultOf, digests: new Map(), reloadedCustomers: CUSTOMERS };

// Locations: one static /32 each, 2,000 dynamic /32s, 500 /24s and 100 /16s (other prefix lengths
// present make the address path probe more maps), and 1,000 virtual locations with keys.
const locById = new Map<number, LocationRow>();
const claims: AddressClaim[] = [];
const keys = new Map<string, number>();
let addressId = 0;
const claim = (locationId: number, customerId: number, cidr: string) => {
  const range = parseCidr(cidr);
  if (range) claims.push({ addressId: ++addressId, ip: cidr, range, locationId, customerId });
};
for (let i = 0; i < STATIC; i++) {
  const customerId = (i % CUSTOMERS) + 1;
  locById.set(i + 1, { locationId: i + 1, customerId, mspId: 1, policyId: null });
  claim(i + 1, customerId, `${ipOf(i)}/32`);
}
for (let i = 0; i < 2_000; i++) claim(i + 1, (i % CUSTOMERS) + 1, `172.16.${i >> 8}.${i & 255}/32`);
for (let i = 0; i < 500; i++)
  claim(i + 1, (i % CUSTOMERS) + 1, `192.168.${i & 255}.0/24`.replace(/^192\.168\.(\d+)/, `100.${64 + (i >> 8)}.$1`));
for (let i = 0; i < 100; i++) claim(i + 1, (i % CUSTOMERS) + 1, `11.${i}.0.0/16`);
for (let i = 0; i < 1_000; i++) {
  const id = STATIC + i + 1;
  locById.set(id, { locationId: id, customerId: (i % CUSTOMERS) + 1, mspId: 1, policyId: null });
  keys.set(`virtual-key-${i}-bench`, id);
}
const locations: LocationsSnapshot = { byId: locById, claims, digests: new Map(), keys, reloadedCustomers: CUSTOMERS };

// Devices, and 10 users per customer, half of them in a group.
const byKey = new Map<string, DeviceRow>();
for (let i = 0; i < DEVICES; i++) {
  const customerId = (i % CUSTOMERS) + 1;
  byKey.set(key(i), {
    deviceId: i + 1,
    customerId,
    mspId: 1,
    key: key(i),
    mode: i % 3 === 0 ? 'policy' : i % 3 === 1 ? 'group' : 'default',
    policyId: customerId * 2 + 1,
    exceptionId: null,
    locationId: null,
  });
}
// Each device may assert one user (docs/security.md "Identity claims"): user<i % 10> of its customer.
const bindings = new Map<number, Map<number, number[]>>();
for (let i = 0; i < DEVICES; i++) {
  const customerId = (i % CUSTOMERS) + 1;
  const m = bindings.get(customerId) ?? new Map<number, number[]>();
  bindings.set(customerId, m);
  m.set(i + 1, [customerId * 10 + (i % 10)]);
}
const devices: DevicesSnapshot = {
  byKey: DeviceTable.from(byKey.values()),
  bindings,
  settings: new Map(),
  exceptions: new Map(),
  digests: new Map(),
  configText: '',
  reloadedCustomers: CUSTOMERS,
};
const users = new Map<number, Map<string, UserRow>>();
for (let c = 1; c <= CUSTOMERS; c++) {
  const m = new Map<string, UserRow>();
  for (let u = 0; u < 10; u++) {
    m.set(`user${u}`, {
      userId: c * 10 + u,
      customerId: c,
      name: `user${u}`,
      policyId: null,
      groupId: u % 2 === 0 ? c : null,
      groupPolicyId: u % 2 === 0 ? c * 2 + 1 : null,
    });
  }
  users.set(c, m);
}
const groups: GroupsSnapshot = { users, size: CUSTOMERS * 10 };

const lists = {
  policy: new Map(),
  msp: new Map(),
  system: NO_LISTS,
  digests: { stamps: new Map(), policy: new Map(), global: new Map(), at: 0 },
  reloadedOwners: 0,
};
global.gc?.();
const heapBefore = process.memoryUsage().heapUsed;
let t0 = performance.now();
const ids = Identities.build({ locations, policies, lists, devices, groups });
const buildMs = performance.now() - t0;
global.gc?.();
console.log(
  `build: ${DEVICES} devices, ${claims.length} address claims, ${keys.size} location keys in ${buildMs.toFixed(0)} ms; heap +${((process.memoryUsage().heapUsed - heapBefore) / 1048576).toFixed(1)} MB`,
);

t0 = performance.now();
Identities.build({ locations, policies, lists, devices, groups }, undefined, { previous: ids, keep: 'devices' });
const placesMs = performance.now() - t0;
t0 = performance.now();
Identities.build({ locations, policies, lists, devices, groups }, undefined, { previous: ids, keep: 'places' });
const devicesMs = performance.now() - t0;
console.log(
  `relink after a locations change (devices kept): ${placesMs.toFixed(0)} ms; after a devices/groups change (places kept): ${devicesMs.toFixed(0)} ms`,
);

function time(label: string, make: (i: number) => WhoAsks): void {
  // Inputs made first, so only identify is timed.
  const inputs = Array.from({ length: 4096 }, (_, i) => make(i * 24 + 7));
  let ok = 0;
  for (let i = 0; i < 200_000; i++) if (ids.identify(inputs[i & 4095]!).kind === 'ok') ok++; // warm-up
  ok = 0;
  const start = performance.now();
  for (let i = 0; i < N; i++) if (ids.identify(inputs[i & 4095]!).kind === 'ok') ok++;
  const ns = ((performance.now() - start) * 1e6) / N;
  console.log(
    `${label.padEnd(34)} ${ns.toFixed(0).padStart(5)} ns/lookup  (${(1e9 / ns / 1e6).toFixed(1)} M/s; ${((ok / N) * 100).toFixed(0)}% known)`,
  );
}
const none = { pathKey: null, deviceKey: null, user: null };
time('device key (EDNS 65073)', (i) => ({ ...none, clientIp: '198.51.100.1', deviceKey: key(i % DEVICES) }));
time('device key + user (65074)', (i) => ({
  ...none,
  clientIp: '198.51.100.1',
  deviceKey: key(i % DEVICES),
  user: `user${i % 10}`,
}));
time('DoH path key, device', (i) => ({ ...none, clientIp: '198.51.100.1', pathKey: key(i % DEVICES) }));
time('DoH path key, virtual location', (i) => ({
  ...none,
  clientIp: '198.51.100.1',
  pathKey: `virtual-key-${i % 1000}-bench`,
}));
time('address, /32 of 100,000', (i) => ({ ...none, clientIp: ipOf(i % STATIC) }));
time('address, inside a /16', (i) => ({ ...none, clientIp: `11.${i % 100}.3.4` }));
time('address, unknown (all lengths probed)', (i) => ({ ...none, clientIp: `203.0.${(i >> 8) & 255}.${i & 255}` }));
time('address, IPv6 unknown', (i) => ({ ...none, clientIp: `2001:db8::${(i & 0xffff).toString(16)}` }));

// The devices part from SQLite.
const file = process.argv[2] ?? '/tmp/cordon-bench-identify.db';
const fresh = !existsSync(file);
const handle = openDatabase({ sqlitePath: file });
await migrateToLatest(handle);
if (fresh) {
  const now = new Date().toISOString();
  const msp = await handle.db
    .insertInto('msps')
    .values({ name: 'B', company_name: 'B', license: '', timezone: 'UTC', created_at: now, updated_at: now })
    .returning('id')
    .executeTakeFirstOrThrow();
  for (let c = 0; c < CUSTOMERS; c += 100) {
    await handle.db
      .insertInto('customers')
      .values(
        Array.from({ length: 100 }, (_, j) => ({
          msp_id: msp.id,
          account_name: `c${c + j}`,
          uuid_str: `u${c + j}`,
          timezone: 'UTC',
          created_at: now,
          updated_at: now,
        })),
      )
      .execute();
  }
  const first = (await handle.db.selectFrom('customers').select('id').orderBy('id').executeTakeFirstOrThrow()).id;
  for (let i = 0; i < DEVICES; i += 500) {
    await handle.db
      .insertInto('devices')
      .values(
        Array.from({ length: 500 }, (_, j) => ({
          customer_id: first + ((i + j) % CUSTOMERS),
          key: key(i + j),
          name: `d${i + j}`,
          created_at: now,
          updated_at: now,
        })),
      )
      .execute();
  }
}
const logger = pino({ level: 'silent' });
t0 = performance.now();
const full = await devicesPart.load(handle, logger, null);
const fullMs = performance.now() - t0;
t0 = performance.now();
const same = await devicesPart.load(handle, logger, full);
const sameMs = performance.now() - t0;
await handle.db.updateTable('devices').set({ policy_mode: 'group' }).where('id', '=', 1).execute();
t0 = performance.now();
const one = await devicesPart.load(handle, logger, same);
const oneMs = performance.now() - t0;
await handle.db.updateTable('devices').set({ policy_mode: 'default' }).where('id', '=', 1).execute();
console.log(
  `devices part (SQLite): full load of ${full.byKey.size} in ${fullMs.toFixed(0)} ms; unchanged reload ${sameMs.toFixed(0)} ms; one customer changed ${oneMs.toFixed(0)} ms (re-read ${one.reloadedCustomers} customer)`,
);
await handle.close();
