import type { DatabaseHandle } from '@cordon/db';
import { createTestDatabase, testDialects } from '@cordon/db/testing';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SnapshotStore } from '../src/snapshot/store.ts';
import { manualFeed, type Seeded, seedTenants } from './helpers/seed.ts';

const settle = async (store: SnapshotStore, key: keyof SnapshotStore['stats'], from: number) => {
  for (let i = 0; i < 100 && store.stats[key] === from; i++) await new Promise((r) => setTimeout(r, 10));
};

describe.each(testDialects())('snapshot store in parts (%s)', (dialect) => {
  let handle: DatabaseHandle;
  let seeded: Seeded;
  let store: SnapshotStore;
  const feed = manualFeed();

  beforeAll(async () => {
    handle = await createTestDatabase(dialect);
    seeded = await seedTenants(handle);
    store = new SnapshotStore(handle, pino({ level: 'silent' }), { resyncMs: 0 });
    await store.load();
    store.follow(feed);
  });
  afterAll(async () => {
    store.close();
    await handle.close();
  });

  it('identifies a client with its compiled effective policy, in any address spelling', () => {
    const who = store.identify('::ffff:127.0.0.1');
    expect(who.kind).toBe('ok');
    if (who.kind !== 'ok') return;
    expect(who.policy?.id).toBe(seeded.defaultPolicyId);
    expect(store.identify('127.0.0.1')).toBe(who); // built once, shared by every query
    expect(store.identify('127.0.0.2').kind).toBe('unknown');
  });

  it('re-reads only the changed customer on a policies change, and not the other parts', async () => {
    const categoryReloads = store.stats.categoryReloads;
    const before = store.stats.tenantReloads;
    await handle.db
      .updateTable('policies')
      .set({ allow_unclassified: 0 })
      .where('id', '=', seeded.defaultPolicyId)
      .execute();
    feed.emit('policies');
    await settle(store, 'tenantReloads', before);
    expect(store.stats.lastPolicyCustomers).toBe(1);
    const who = store.identify('127.0.0.1');
    expect(who.kind === 'ok' && who.policy?.allowUnclassified).toBe(false);
    // The other customer's compiled policy object is kept as it was.
    expect(store.stats.categoryReloads).toBe(categoryReloads);
  });

  it('picks up a deleted blocked category (no updated_at bump) and a new location incrementally', async () => {
    const before = store.stats.tenantReloads;
    await handle.db.deleteFrom('policy_categories').where('policy_id', '=', seeded.defaultPolicyId).execute();
    feed.emit('policies');
    await settle(store, 'tenantReloads', before);
    const who = store.identify('127.0.0.1');
    expect(who.kind === 'ok' && who.policy?.blocked[20]).toBe(0);

    const now = new Date().toISOString();
    const loc = await handle.db
      .insertInto('locations')
      .values({
        customer_id: seeded.otherCustomerId,
        type: 'staticip',
        name: 'Annex',
        policy_id: null,
        key: null,
        created_at: now,
        updated_at: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const { addressClaimColumns } = await import('@cordon/db');
    await handle.db
      .insertInto('location_addresses')
      .values({
        location_id: loc.id,
        customer_id: seeded.otherCustomerId,
        ...addressClaimColumns('127.0.0.9/32'),
        created_at: now,
      })
      .execute();
    const reloads = store.stats.tenantReloads;
    feed.emit('locations');
    await settle(store, 'tenantReloads', reloads);
    expect(store.stats.lastLocationCustomers).toBe(1);
    const annex = store.identify('127.0.0.9');
    expect(annex.kind === 'ok' && annex.locationId).toBe(loc.id);
    expect(annex.kind === 'ok' && annex.policy?.id).toBe(seeded.otherPolicyId);
  });

  it('keeps the last snapshot when the database cannot be read', async () => {
    const failing = new SnapshotStore(handle, pino({ level: 'silent' }), { resyncMs: 0 });
    await failing.load();
    const f = manualFeed();
    failing.follow(f);
    const who = failing.identify('127.0.0.1');
    const broken = {
      ...handle,
      db: {
        transaction: () => {
          throw new Error('down');
        },
      },
    } as unknown as DatabaseHandle;
    (failing as unknown as { handle: DatabaseHandle }).handle = broken;
    f.emit('policies');
    await settle(failing, 'reloadFailures', 0);
    expect(failing.stats.reloadFailures).toBeGreaterThan(0);
    expect(failing.identify('127.0.0.1')).toBe(who);
    failing.close();
  });
});
