/**
 * The resolver's 5-minute safety-net resync (issue 27; docs/architecture.md "Data plane"): what a
 * resync costs when nothing changed, before (every part read and rebuilt: `store.load()`, what the
 * timer ran) and after (every part's digest, nothing rebuilt: `store.resync()`), and a resync after
 * one unannounced list entry (the lists part alone rebuilt); then each part's digest alone.
 *
 *   node --import tsx bench/resolver-resync.ts [sqlite-file | postgres://…]
 *
 * The data is bench/resolver-memory.ts's, synthetic: 1,000,000 categorised domains, 100 customers of
 * one MSP, each with a default policy holding 1,000 list entries, a location and 1,000 devices. A
 * SQLite file (default resync.sqlite in the OS temp folder) is built once and reused; a PostgreSQL
 * database is filled when it holds no customer. Figures go to bench/README.md, never into tests.
 */
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { addressClaimColumns, type DatabaseHandle, migrateToLatest, openDatabase } from '@cordon/db';
import { CATEGORIES } from '@cordon/shared';
import { sql } from 'kysely';
import pino from 'pino';
import { brandingPart as branding } from '../apps/resolver/src/snapshot/branding.ts';
import { bypassesPart as bypasses } from '../apps/resolver/src/snapshot/bypasses.ts';
import { categoriesPart as categories } from '../apps/resolver/src/snapshot/categories.ts';
import { devicesPart as devices } from '../apps/resolver/src/snapshot/devices.ts';
import { groupsPart as groups } from '../apps/resolver/src/snapshot/groups.ts';
import { listsPart as lists } from '../apps/resolver/src/snapshot/lists.ts';
import { locationsPart as locations } from '../apps/resolver/src/snapshot/locations.ts';
import { overridesPart as overrides } from '../apps/resolver/src/snapshot/overrides.ts';
import { policiesPart as policies } from '../apps/resolver/src/snapshot/policies.ts';
import { staticRoutesPart as routes } from '../apps/resolver/src/snapshot/static-routes.ts';
import { SnapshotStore } from '../apps/resolver/src/snapshot/store.ts';

const DOMAINS = 1_000_000;
const CUSTOMERS = 100;
const PER_CUSTOMER = 1_000;

const target = process.argv[2] ?? join(tmpdir(), 'resync.sqlite');
const handle = target.startsWith('postgres') ? openDatabase({ url: target }) : openDatabase({ sqlitePath: target });
await migrateToLatest(handle);
await build(handle);

async function build(h: DatabaseHandle): Promise<void> {
  const db = h.db;
  const have = await db.selectFrom('category_domains').select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow();
  const ids = CATEGORIES.filter((c) => c.id > 0).map((c) => c.id);
  for (let start = Number(have.n); start < DOMAINS; start += 10_000) {
    const rows = [];
    for (let i = start; i < Math.min(DOMAINS, start + 10_000); i++) {
      rows.push({ domain: `s${i}.synthetic-${i % 997}.example`, category_id: ids[i % ids.length]!, source: 'bench' });
    }
    await db
      .insertInto('category_domains')
      .values(rows)
      .onConflict((oc) => oc.doNothing())
      .execute();
  }
  if ((await db.selectFrom('customers').select('id').limit(1).execute()).length > 0) return;
  const now = new Date().toISOString();
  const ts = { created_at: now, updated_at: now };
  const msp = await db
    .insertInto('msps')
    .values({ name: 'Resync', company_name: 'Resync', license: '', timezone: 'UTC', ...ts })
    .returning('id')
    .executeTakeFirstOrThrow();
  for (let c = 0; c < CUSTOMERS; c++) {
    await db.transaction().execute(async (trx) => {
      const customer = await trx
        .insertInto('customers')
        .values({ msp_id: msp.id, account_name: `Resync ${c}`, uuid_str: `resync-${c}`, timezone: 'UTC', ...ts })
        .returning('id')
        .executeTakeFirstOrThrow();
      const policy = await trx
        .insertInto('policies')
        .values({
          customer_id: customer.id,
          name: 'Default',
          description: '',
          level: 'medium',
          is_default: 1,
          allow_unclassified: 1,
          ...ts,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      const location = await trx
        .insertInto('locations')
        .values({ customer_id: customer.id, type: 'static', name: 'HQ', policy_id: null, key: null, ...ts })
        .returning('id')
        .executeTakeFirstOrThrow();
      await trx
        .insertInto('location_addresses')
        .values({
          location_id: location.id,
          customer_id: customer.id,
          ...addressClaimColumns(`10.${c}.0.0/16`),
          created_at: now,
        })
        .execute();
      for (let i = 0; i < PER_CUSTOMER; i += 500) {
        const entries = [];
        const keys = [];
        for (let j = i; j < i + 500; j++) {
          entries.push({
            policy_id: policy.id,
            customer_id: customer.id,
            domain: `listed-${j}.customer-${c}.example`,
            action: j % 2 === 0 ? 'block' : 'allow',
            include_subdomains: 1,
            comment: '',
            log_requests: 1,
            ...ts,
          });
          keys.push({
            customer_id: customer.id,
            key: randomBytes(24).toString('base64url'),
            name: `laptop-${c}-${j}`,
            last_contact_at: null,
            location_id: null,
            policy_id: null,
            device_exception_id: null,
            advanced_config: null,
            ...ts,
          });
        }
        await trx.insertInto('policy_domains').values(entries).execute();
        await trx.insertInto('devices').values(keys).execute();
      }
    });
  }
}

/**
 * Median, min and max of `n` runs of `f`, ms, and the longest the event loop waited meanwhile (the
 * longest stretch the answering thread could not answer: one synchronous SQLite call).
 */
async function time(n: number, f: () => Promise<unknown>): Promise<string> {
  const ms: number[] = [];
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await f();
    ms.push(performance.now() - t0);
  }
  delay.disable();
  ms.sort((a, b) => a - b);
  const held = (delay.max / 1e6).toFixed(0);
  return `median ${ms[Math.floor(n / 2)]!.toFixed(1)} ms (min ${ms[0]!.toFixed(1)}, max ${ms[n - 1]!.toFixed(1)}, ${n} runs; event loop held at most ${held} ms)`;
}

const store = new SnapshotStore(handle, pino({ level: 'silent' }), { resyncMs: 0 });
await store.load();
console.log(`${handle.dialect}: ${store.stats.categoryDomains} categorised domains, ${store.stats.devices} devices`);
console.log(`before, a resync read and rebuilt every part (store.load()): ${await time(3, () => store.load())}`);
console.log(`after, a resync with nothing changed (store.resync()): ${await time(5, () => store.resync())}`);
const policy = await handle.db.selectFrom('policies').select(['id', 'customer_id']).executeTakeFirstOrThrow();
let n = 0;
console.log(
  `after, a resync finding one unannounced list entry: ${await time(3, async () => {
    const now = new Date().toISOString();
    await handle.db
      .insertInto('policy_domains')
      .values({
        policy_id: policy.id,
        customer_id: policy.customer_id,
        domain: `resync-${Date.now()}-${n++}.example`,
        action: 'block',
        include_subdomains: 1,
        comment: '',
        log_requests: 1,
        created_at: now,
        updated_at: now,
      })
      .execute();
    const out = await store.resync();
    if (out.rebuilt.join() !== 'lists') throw new Error(`rebuilt ${out.rebuilt.join()}`);
  })}`,
);
for (const [name, part] of Object.entries({
  categories,
  lists,
  devices,
  locations,
  policies,
  groups,
  overrides,
  routes,
  bypasses,
  branding,
})) {
  console.log(`  digest of ${name}: ${await time(5, () => part.digest!(handle))}`);
}
store.close();
await handle.close();
