import { type CoreDeps, feeds, OPERATOR, recategorize } from '@cordon/core';
import { CATEGORY_STAMP_KEY, type ChangeFeed, type DatabaseHandle } from '@cordon/db';
import { createTestDatabase, testDialects } from '@cordon/db/testing';
import { replaceSourceRows } from '@cordon/feeds';
import { startResolver } from '@cordon/resolver';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SnapshotStore } from '../../resolver/src/snapshot/store.ts';
import { startFakeUpstream } from '../../resolver/test/helpers/fake-upstream.ts';
import { seedTenants } from '../../resolver/test/helpers/seed.ts';
import { createMetrics } from '../src/ops/metrics.ts';

/** A change feed that drops every notification: only the resolver's resync can see a change. */
const lost: ChangeFeed = {
  publish: async () => undefined,
  subscribe: () => () => undefined,
  start: async () => undefined,
  close: async () => undefined,
};

// Every writer of category_domains bumps the category stamp in its transaction, so the resync sees
// the change it was never told about and rebuilds the category index alone (docs/architecture.md
// "Data plane").
describe.each(testDialects())('the category writers bump the stamp the resync compares (%s)', (dialect) => {
  let handle: DatabaseHandle;
  let store: SnapshotStore;
  let deps: CoreDeps;
  const stamp = async () =>
    (await handle.db.selectFrom('settings').select('value').where('key', '=', CATEGORY_STAMP_KEY).executeTakeFirst())
      ?.value ?? null;
  /** The writer `write` moved the stamp, and the next resync rebuilt exactly `parts`. */
  const caught = async (write: () => Promise<unknown>, parts = ['categories']) => {
    const before = await stamp();
    await write();
    expect(await stamp()).not.toBe(before);
    expect((await store.resync()).rebuilt.sort()).toEqual(parts);
  };

  beforeEach(async () => {
    handle = await createTestDatabase(dialect);
    await seedTenants(handle);
    deps = { handle, changes: lost, now: () => Date.now() };
    store = new SnapshotStore(handle, pino({ level: 'silent' }), { resyncMs: 0 });
    await store.load();
    store.follow(lost);
  });
  afterEach(async () => {
    store.close();
    await handle.close();
  });

  it('the importer and a feed upload (replaceSourceRows), a feed moved to another category, a feed deleted', async () => {
    await caught(() =>
      replaceSourceRows(handle, 'ut1', async (add) => {
        await add('imported.example', [20]);
      }),
    );
    expect(store.categories.categoriesOf('www.imported.example')).toEqual([20]);

    const feed = await feeds.createFeed(deps, OPERATOR, {
      name: 'Casinos',
      format: 'domains',
      category_id: 20,
      url: null,
      interval_hours: 0,
      enabled: true,
    });
    await caught(() => feeds.uploadFeed(deps, OPERATOR, feed.id, Buffer.from('casino.example\n')));
    expect(store.categories.categoriesOf('casino.example')).toEqual([20]);

    await caught(() => feeds.updateFeed(deps, OPERATOR, feed.id, { category_id: 6 }));
    expect(store.categories.categoriesOf('casino.example')).toEqual([6]);

    await caught(() => feeds.deleteFeed(deps, OPERATOR, feed.id, { confirm_name: 'Casinos' }));
    expect(store.categories.categoriesOf('casino.example')).toEqual([]);
    // Nothing else happened: nothing is rebuilt.
    expect((await store.resync()).rebuilt).toEqual([]);
  });

  it('a missed recategorisation is caught: the index and its override layer rebuilt, nothing else', async () => {
    expect(store.categories.categoriesOf('news.example')).toEqual([39]);
    const asked = await recategorize.requestRecategorization(deps, OPERATOR, {
      domain: 'news.example',
      category_id: 20,
      comment: '',
    });
    await caught(
      () => recategorize.reviewRecategorization(deps, OPERATOR, asked.id, { action: 'approve' }),
      ['categories', 'category_overrides'],
    );
    expect(store.categories.categoriesOf('news.example')).toEqual([20]);
    expect(store.categoryIndex.categoriesOf('news.example')).toEqual([20]);
  });
});

describe('the resync counters in the Prometheus exposition', () => {
  it('names each part with its outcome (bounded labels: part names), and the last resync duration', async () => {
    const handle = await createTestDatabase('sqlite');
    await seedTenants(handle);
    const upstream = await startFakeUpstream();
    const resolver = await startResolver({
      db: handle,
      changes: lost,
      logger: pino({ level: 'silent' }),
      dns: { host: '127.0.0.1', port: 0 },
      upstreams: [{ host: '127.0.0.1', port: upstream.port }],
      blockAddresses: { ipv4: '192.0.2.1', ipv6: '::1' },
      queryLog: { flushMs: 50 },
    });
    try {
      await handle.db
        .insertInto('category_overrides')
        .values({ domain: 'news.example', category_id: 20, request_id: null, created_at: new Date().toISOString() })
        .execute();
      expect((await resolver.snapshot.resync()).rebuilt).toEqual(['category_overrides']);
      const metrics = createMetrics({
        version: 'test',
        roles: ['resolver'],
        resolverMetrics: async () => resolver.metrics,
      });
      const text = await metrics.render();
      expect(text).toContain('cordon_dns_snapshot_resync_parts_total{part="category_overrides",outcome="rebuilt"} 1');
      expect(text).toContain('cordon_dns_snapshot_resync_parts_total{part="categories",outcome="skipped"} 1');
      expect(text).not.toContain('cordon_dns_snapshot_resync_parts_total{part="categories",outcome="rebuilt"}');
      expect(text).toMatch(/cordon_dns_snapshot_load_seconds\{step="resync"\} \d/);
    } finally {
      await resolver.close();
      await upstream.close();
      await handle.close();
    }
  });
});
