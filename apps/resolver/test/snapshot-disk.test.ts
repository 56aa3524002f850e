import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DatabaseHandle } from '@cordon/db';
import { createTestDatabase, testDialects } from '@cordon/db/testing';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { partFile, readPartFile, replayHandle } from '../src/snapshot/disk.ts';
import { SnapshotStore } from '../src/snapshot/store.ts';
import { addStaticLocation, manualFeed, type Seeded, seedTenants } from './helpers/seed.ts';

const silent = pino({ level: 'silent' });

/**
 * `handle` behind a switch: while `down`, every statement fails as on a database that does not
 * answer (a replay of nothing rejects every statement).
 */
function switchable(handle: DatabaseHandle): DatabaseHandle & { down: boolean } {
  const dead = replayHandle(handle.dialect, [], 'unreachable');
  return {
    down: true,
    dialect: handle.dialect,
    location: handle.location,
    get db() {
      return this.down ? dead.db : handle.db;
    },
    close: async () => undefined,
  };
}

const policyOf = (store: SnapshotStore, ip: string) => {
  const who = store.identify(ip);
  return who.kind === 'ok' ? who.policy?.id : null;
};

describe.each(testDialects())('snapshot kept on disk (%s)', (dialect) => {
  let handle: DatabaseHandle;
  let seeded: Seeded;
  let dir: string;
  const stores: SnapshotStore[] = [];
  const store = (h: DatabaseHandle, extra: Partial<ConstructorParameters<typeof SnapshotStore>[2]> = {}) => {
    const s = new SnapshotStore(h, silent, { resyncMs: 0, snapshotDir: dir, retryMs: [20, 100], ...extra });
    stores.push(s);
    return s;
  };

  beforeEach(async () => {
    handle = await createTestDatabase(dialect);
    seeded = await seedTenants(handle);
    dir = await mkdtemp(join(tmpdir(), 'cordon-snapshot-'));
  });
  afterEach(async () => {
    for (const s of stores.splice(0)) s.close();
    await handle.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('writes one file per part after a load, and a resolver started with the database down serves it', async () => {
    const first = store(handle);
    expect(await first.start()).toBe('database');
    await first.flushed();
    const files = (await readdir(dir)).sort();
    expect(files).toContain('categories.snap');
    expect(files).toContain('locations.snap');
    expect(files.filter((f) => f.endsWith('.tmp'))).toEqual([]);
    expect(first.stats.diskWrites).toBe(files.length);

    const offline = switchable(handle);
    const second = store(offline);
    expect(await second.start()).toBe('disk');
    expect(second.stats.servingFromDisk).toBe(true);
    expect(policyOf(second, '127.0.0.1')).toBe(seeded.defaultPolicyId);
    expect(policyOf(second, '127.0.0.3')).toBe(seeded.otherPolicyId);
    expect([...second.categories.categoriesOf('mixed.example')].sort()).toEqual([20, 39]);
    expect(second.identify('127.0.0.9').kind).toBe('unknown');

    // Meanwhile a new location is added; when the database answers again the resolver catches up.
    await addStaticLocation(handle, seeded.customerId, 'Annex', '127.0.0.9/32');
    await new Promise((r) => setTimeout(r, 100));
    expect(second.identify('127.0.0.9').kind).toBe('unknown'); // still down: the disk snapshot stays
    offline.down = false;
    await expect.poll(() => second.stats.servingFromDisk, { timeout: 5000 }).toBe(false);
    expect(policyOf(second, '127.0.0.9')).toBe(seeded.defaultPolicyId);
  });

  it('rewrites an incrementally reloaded part after the debounce, so the next start sees the change', async () => {
    const feed = manualFeed();
    const first = store(handle, { snapshotDebounceMs: 20 });
    await first.start();
    first.follow(feed);
    await first.flushed();
    const before = await readFile(partFile(dir, 'policies'));
    await handle.db
      .updateTable('policies')
      .set({ allow_unclassified: 0 })
      .where('id', '=', seeded.defaultPolicyId)
      .execute();
    feed.emit('policies');
    await expect
      .poll(async () => (await readFile(partFile(dir, 'policies'))).equals(before), { timeout: 5000 })
      .toBe(false);
    await first.flushed();

    const second = store(switchable(handle));
    expect(await second.start()).toBe('disk');
    const who = second.identify('127.0.0.1');
    expect(who.kind === 'ok' && who.policy?.allowUnclassified).toBe(false);
  });

  it('leaves the files of unchanged parts alone on a full resync, and rewrites a part after its change', async () => {
    const feed = manualFeed();
    const first = store(handle);
    await first.start();
    first.follow(feed);
    await first.flushed();
    const writes = first.stats.diskWrites;
    await first.load(); // what the periodic resync runs
    await first.flushed();
    expect(first.stats.diskWrites).toBe(writes);
    await handle.db
      .insertInto('category_domains')
      .values({ domain: 'casino.example', category_id: 20, source: 'test' })
      .execute();
    feed.emit('categories');
    await expect.poll(() => first.stats.diskWrites, { timeout: 5000 }).toBe(writes + 1);
    const second = store(switchable(handle));
    expect(await second.start()).toBe('disk');
    expect(second.categories.categoriesOf('casino.example')).toEqual([20]);
  });

  it('a resync writes no file when nothing changed, and rewrites the file of a part changed unannounced', async () => {
    const first = store(handle);
    await first.start();
    first.follow(manualFeed());
    await first.flushed();
    const writes = first.stats.diskWrites;
    expect((await first.resync()).rebuilt).toEqual([]);
    await first.flushed();
    expect(first.stats.diskWrites).toBe(writes);
    const now = new Date().toISOString();
    await handle.db
      .insertInto('static_routes')
      .values({
        customer_id: seeded.customerId,
        domain: 'corp.internal',
        resolver_ip: '10.0.0.53',
        resolver_port: 53,
        description: '',
        created_at: now,
        updated_at: now,
      })
      .execute();
    expect((await first.resync()).rebuilt).toEqual(['static-routes']);
    await first.flushed();
    expect(first.stats.diskWrites).toBe(writes + 1);
    const second = store(switchable(handle));
    expect(await second.start()).toBe('disk');
    expect(second.staticRoutes.get(seeded.customerId)).toBeDefined();
  });

  it('fails to start when the database is down and a part has no file, or a file is truncated', async () => {
    await expect(store(switchable(handle)).start()).rejects.toThrow(/no rows/);
    const first = store(handle);
    await first.start();
    await first.flushed();
    const file = partFile(dir, 'locations');
    const data = await readFile(file);
    await writeFile(file, data.subarray(0, data.length - 5));
    await expect(readPartFile(dir, 'locations')).rejects.toThrow(/truncated/);
    await expect(store(switchable(handle)).start()).rejects.toThrow(/no rows/);
    await rm(file);
    await expect(store(switchable(handle)).start()).rejects.toThrow(/no rows/);
  });

  it('refuses a file whose SQL its loader no longer asks (an upgrade changed the loader)', async () => {
    const first = store(handle);
    await first.start();
    await first.flushed();
    const file = await readPartFile(dir, 'bypasses');
    expect(file?.header.part).toBe('bypasses');
    const replay = replayHandle(dialect, file!.queries, dir);
    await expect(replay.db.selectFrom('msps').selectAll().execute()).rejects.toThrow(/no rows/);
  });
});
