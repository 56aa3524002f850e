import { bumpCategoryStamp, type DatabaseHandle } from '@cordon/db';
import { createTestDatabase, testDialects } from '@cordon/db/testing';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { DIGEST_SLICE_ROWS, tableDigest } from '../src/snapshot/part.ts';
import { staticRoutesPart } from '../src/snapshot/static-routes.ts';
import { SnapshotStore } from '../src/snapshot/store.ts';
import { manualFeed, type Seeded, seedTenants } from './helpers/seed.ts';

const silent = pino({ level: 'silent' });
const PARTS = [
  'locations',
  'policies',
  'categories',
  'category_overrides',
  'lists',
  'static-routes',
  'devices',
  'groups',
  'bypasses',
  'branding',
];
const others = (...changed: string[]) => PARTS.filter((p) => !changed.includes(p)).sort();
const iso = () => new Date().toISOString();

// The safety-net resync (docs/architecture.md "Data plane"): changes nobody announced, the feed
// followed but silent (a notification lost), and `resync()` called as the `resyncMs` timer would.
describe.each(testDialects())('the snapshot resync rebuilds only the parts whose digest changed (%s)', (dialect) => {
  let handle: DatabaseHandle;
  let seeded: Seeded;
  let store: SnapshotStore;
  const feed = manualFeed();
  let clock = 1_000;

  beforeAll(async () => {
    handle = await createTestDatabase(dialect);
    seeded = await seedTenants(handle);
    store = new SnapshotStore(handle, silent, { resyncMs: 0, settleMs: 0, now: () => clock });
    await store.load();
    store.follow(feed);
  });
  afterAll(async () => {
    store.close();
    await handle.close();
  });

  it('rebuilds nothing when nothing changed, and counts every part skipped', async () => {
    const loads = Object.fromEntries(Object.entries(store.stats.parts).map(([k, r]) => [k, r.loads]));
    clock = 2_000;
    const out = await store.resync();
    expect(out).toEqual({ rebuilt: [], skipped: PARTS, failed: [] });
    expect(store.stats.resyncs).toBe(1);
    expect(store.stats.resyncSkipped).toBe(PARTS.length);
    expect(store.stats.resyncRebuilt).toBe(0);
    for (const [name, r] of Object.entries(store.stats.parts)) {
      expect(r.loads).toBe(loads[name]); // nothing but the digest was read
      expect(r.resyncSkipped).toBe(1);
      expect(r.loadedAt).toBe(2_000); // known current: its age stays under one resync period
    }
  });

  it('picks up an unannounced policy change at the next resync, rebuilding the policies part alone', async () => {
    await handle.db
      .updateTable('policies')
      .set({ allow_unclassified: 0 })
      .where('id', '=', seeded.defaultPolicyId)
      .execute();
    const who = store.identify('127.0.0.1');
    expect(who.kind === 'ok' && who.policy?.allowUnclassified).toBe(true); // not announced: not seen yet
    const out = await store.resync();
    expect(out.rebuilt).toEqual(['policies']);
    expect(out.skipped.sort()).toEqual(others('policies'));
    const after = store.identify('127.0.0.1');
    expect(after.kind === 'ok' && after.policy?.allowUnclassified).toBe(false);
    expect(store.stats.parts.policies!.resyncRebuilt).toBe(1);
    // Recorded: the next resync finds nothing.
    expect((await store.resync()).rebuilt).toEqual([]);
  });

  it('picks up a category change (its writer bumped the stamp) and rebuilds the category index alone', async () => {
    const reloads = store.stats.categoryReloads;
    await handle.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('category_domains')
        .values({ domain: 'resync.example', category_id: 20, source: 't' })
        .execute();
      await bumpCategoryStamp(trx);
    });
    expect(store.categories.categoriesOf('resync.example')).toEqual([]);
    const out = await store.resync();
    expect(out.rebuilt).toEqual(['categories']);
    expect(store.categories.categoriesOf('resync.example')).toEqual([20]);
    expect(store.stats.categoryReloads).toBe(reloads + 1);
  });

  it('picks up a list entry, a static route, a block page and an override, each rebuilding its part alone', async () => {
    const now = { created_at: iso(), updated_at: iso() };
    await handle.db
      .insertInto('policy_domains')
      .values({
        policy_id: seeded.defaultPolicyId,
        customer_id: seeded.customerId,
        domain: 'listed.example',
        action: 'block',
        include_subdomains: 1,
        comment: '',
        log_requests: 1,
        ...now,
      })
      .execute();
    expect((await store.resync()).rebuilt).toEqual(['lists']);
    const who = store.identify('127.0.0.1');
    expect(who.kind === 'ok' && who.policy?.block?.lookup('www.listed.example')).toBe(true);

    await handle.db
      .insertInto('static_routes')
      .values({
        customer_id: seeded.customerId,
        domain: 'corp.internal',
        resolver_ip: '10.0.0.53',
        resolver_port: 53,
        description: '',
        ...now,
      })
      .execute();
    expect((await store.resync()).rebuilt).toEqual(['static-routes']);
    expect(store.staticRoutes.get(seeded.customerId)).toBeDefined();

    await handle.db
      .insertInto('blockpages')
      .values({
        customer_id: seeded.customerId,
        msp_id: null,
        title: 'Stop',
        message: '',
        footer: '',
        support_contact: '',
        ...now,
      })
      .execute();
    expect((await store.resync()).rebuilt).toEqual(['branding']);
    expect(store.branding.customer.get(seeded.customerId)?.title).toBe('Stop');

    await handle.db
      .insertInto('category_overrides')
      .values({ domain: 'news.example', category_id: 20, request_id: null, created_at: iso() })
      .execute();
    expect((await store.resync()).rebuilt).toEqual(['category_overrides']);
    expect(store.categories.categoriesOf('news.example')).toEqual([20]);
  });

  it("picks up a device enrolled and a heartbeat's new location (no updated_at), rebuilding the devices part alone", async () => {
    const device = await handle.db
      .insertInto('devices')
      .values({
        customer_id: seeded.customerId,
        key: 'resync-device-key-0123456789',
        name: 'laptop',
        last_contact_at: null,
        location_id: null,
        policy_id: null,
        device_exception_id: null,
        advanced_config: null,
        created_at: iso(),
        updated_at: iso(),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    expect(store.knowsKey('resync-device-key-0123456789')).toBe(false);
    expect((await store.resync()).rebuilt).toEqual(['devices']);
    expect(store.knowsKey('resync-device-key-0123456789')).toBe(true);

    // As a heartbeat writes it: location_id alone.
    await handle.db
      .updateTable('devices')
      .set({ location_id: seeded.locationId })
      .where('id', '=', device.id)
      .execute();
    expect((await store.resync()).rebuilt).toEqual(['devices']);
  });

  it('after a change applied incrementally, rebuilds that part once in full (verifying it), then skips it', async () => {
    await handle.db
      .updateTable('policies')
      .set({ safe_search: 1, updated_at: iso() })
      .where('id', '=', seeded.otherPolicyId)
      .execute();
    const loads = store.stats.parts.policies!.loads;
    feed.emit('policies');
    await vi.waitFor(() => expect(store.stats.parts.policies!.loads).toBe(loads + 1));
    expect(store.stats.lastPolicyCustomers).toBe(1); // incremental
    expect((await store.resync()).rebuilt).toEqual(['policies']);
    expect(store.stats.lastPolicyCustomers).toBe(2); // in full
    expect((await store.resync()).rebuilt).toEqual([]);
  });

  it('a part that cannot be read fails alone: the others are still checked, the value kept', async () => {
    const broken = new SnapshotStore(handle, silent, { resyncMs: 0 });
    await broken.load();
    await handle.db.schema.alterTable('bypasses').renameTo('bypasses_away').execute();
    try {
      const failures = broken.stats.reloadFailures;
      const out = await broken.resync();
      expect(out.failed).toEqual(['bypasses']);
      expect(out.skipped.sort()).toEqual(others('bypasses'));
      expect(broken.stats.reloadFailures).toBe(failures + 1);
    } finally {
      await handle.db.schema.alterTable('bypasses_away').renameTo('bypasses').execute();
      broken.close();
    }
  });
});

describe.each(testDialects())('a table digest (%s)', (dialect) => {
  it('counts a table larger than a slice (SQLite walks it in rowid ranges) and sees a change in any slice', async () => {
    const handle = await createTestDatabase(dialect);
    try {
      const { customerId } = await seedTenants(handle);
      const rows = Array.from({ length: DIGEST_SLICE_ROWS * 2 + 500 }, (_, i) => ({
        customer_id: customerId,
        domain: `r${i}.internal`,
        resolver_ip: '10.0.0.53',
        resolver_port: 53,
        description: '',
        created_at: '2026-01-01T00:00:00.000Z',
        updated_at: '2026-01-01T00:00:00.000Z',
      }));
      for (let i = 0; i < rows.length; i += 500)
        await handle.db
          .insertInto('static_routes')
          .values(rows.slice(i, i + 500))
          .execute();
      const digest = () => staticRoutesPart.digest!(handle);
      const first = await digest();
      expect(first).toMatch(new RegExp(`^static_routes:${rows.length}/`));
      expect(await digest()).toBe(first);
      const ids = (await handle.db.selectFrom('static_routes').select('id').orderBy('id').execute()).map((r) => r.id);
      // A port changed in the second slice, no stamp: the encoding sees it.
      await handle.db
        .updateTable('static_routes')
        .set({ resolver_port: 5353 })
        .where('id', '=', ids[DIGEST_SLICE_ROWS + 10]!)
        .execute();
      const second = await digest();
      expect(second).not.toBe(first);
      // A text of the same length edited in the last slice with its updated_at: the stamp sees it.
      await handle.db
        .updateTable('static_routes')
        .set({ resolver_ip: '10.0.0.54', updated_at: '2026-02-01T00:00:00.000Z' })
        .where('id', '=', ids[ids.length - 1]!)
        .execute();
      expect(await digest()).not.toBe(second);
      // A row removed from the first slice.
      const third = await digest();
      await handle.db.deleteFrom('static_routes').where('id', '=', ids[3]!).execute();
      expect(await digest()).toMatch(new RegExp(`^static_routes:${rows.length - 1}/`));
      expect(await digest()).not.toBe(third);
      expect(await tableDigest(handle, [{ table: 'bypasses', rows: [] }])).toBe('bypasses:0');
    } finally {
      await handle.close();
    }
  });
});

describe.each(testDialects())('the resync timer (%s)', (dialect) => {
  let handle: DatabaseHandle;
  afterEach(async () => {
    vi.useRealTimers();
    await handle?.close();
  });

  it('runs a resync every resyncMs (the interval faked, not waited for)', async () => {
    handle = await createTestDatabase(dialect);
    await seedTenants(handle);
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const store = new SnapshotStore(handle, silent, { resyncMs: 300_000 });
    try {
      await store.load();
      store.follow(manualFeed());
      vi.advanceTimersByTime(299_999);
      expect(store.stats.resyncs).toBe(0);
      vi.advanceTimersByTime(1);
      expect(store.stats.resyncs).toBe(1);
      await vi.waitFor(() => expect(store.stats.resyncSkipped).toBe(PARTS.length));
      expect(store.stats.resyncRebuilt).toBe(0);
    } finally {
      store.close();
    }
  });
});
