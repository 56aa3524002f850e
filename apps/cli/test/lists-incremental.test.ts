import { type Caller, lists, OPERATOR } from '@cordon/core';
import { createChangeFeed, type DatabaseHandle } from '@cordon/db';
import { createTestDatabase, testDialects } from '@cordon/db/testing';
import { ApiError } from '@cordon/shared';
import pino from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { createListsPart } from '../../resolver/src/snapshot/lists.ts';
import { SnapshotStore } from '../../resolver/src/snapshot/store.ts';
import { manualFeed, type Seeded, seedTenants } from '../../resolver/test/helpers/seed.ts';

const silent = pino({ level: 'silent' });
const entry = (domain: string, include_subdomains = true) => ({
  domain,
  include_subdomains,
  comment: '',
  log_requests: true,
});

/** Core's list service over `handle`, the operator as caller (the changes publish on a feed nobody follows). */
function core(handle: DatabaseHandle, listLimits?: lists.ListLimits) {
  const deps = { handle, changes: createChangeFeed(handle), now: () => Date.now(), listLimits };
  const as: Caller = OPERATOR;
  return {
    add: (policyId: number, domain: string, action: 'allow' | 'block' = 'block') =>
      lists.createEntry(deps, as, { policyId }, action, entry(domain)),
    addGlobal: (mspId: number | undefined, domain: string) =>
      lists.createEntry(deps, as, { global: true, mspId }, 'block', entry(domain)),
    update: (policyId: number, id: number, patch: { include_subdomains?: boolean; domain?: string }) =>
      lists.updateEntry(deps, as, { policyId }, 'block', id, patch),
    remove: (policyId: number, id: number) => lists.deleteEntry(deps, as, { policyId }, 'block', id),
    import: (policyId: number, csv: string, overwrite = false) =>
      lists.importEntries(deps, as, { policyId }, 'block', csv, overwrite),
  };
}

async function seeded(dialect: 'sqlite' | 'postgres'): Promise<{ handle: DatabaseHandle; s: Seeded; mspId: number }> {
  const handle = await createTestDatabase(dialect);
  const s = await seedTenants(handle);
  const mspId = (await handle.db.selectFrom('msps').select('id').executeTakeFirstOrThrow()).id;
  return { handle, s, mspId };
}

describe.each(testDialects())('the lists part reloads per owner on %s', (dialect) => {
  it("re-reads only the owners whose stamp changed, keeps the others' indexes, and applies each change once", async () => {
    const { handle, s, mspId } = await seeded(dialect);
    try {
      const c = core(handle);
      await c.add(s.defaultPolicyId, 'acme.example');
      await c.add(s.otherPolicyId, 'beta.example');
      await c.addGlobal(mspId, 'msp.example');
      await c.addGlobal(undefined, 'system.example');
      // The row digests' clock never moves: only the stamps can find changes here.
      const part = createListsPart({ now: () => 0, rowDigestEveryMs: 60_000 });
      const first = await part.load(handle, silent, null);
      expect(first.reloadedOwners).toBe(4);
      expect(first.system.block.lookup('a.system.example')).toBe(true);

      // No change: the same value (the store relinks nothing), however often the feed repeats itself.
      expect(await part.load(handle, silent, first)).toBe(first);

      const added = await c.add(s.otherPolicyId, 'storm.example');
      const second = await part.load(handle, silent, first);
      expect(second.reloadedOwners).toBe(1);
      expect(second.policy.get(s.otherPolicyId)?.block.lookup('x.storm.example')).toBe(true);
      // Every other owner's packed indexes are the very same objects.
      expect(second.policy.get(s.defaultPolicyId)).toBe(first.policy.get(s.defaultPolicyId));
      expect(second.msp.get(mspId)).toBe(first.msp.get(mspId));
      expect(second.system).toBe(first.system);
      // The poller's second sighting of the same change: nothing to do.
      expect(await part.load(handle, silent, second)).toBe(second);

      // An edit in place (include subdomains off) reaches the index through the stamp.
      await c.update(s.otherPolicyId, added.id, { include_subdomains: false });
      const third = await part.load(handle, silent, second);
      expect(third.reloadedOwners).toBe(1);
      expect(third.policy.get(s.otherPolicyId)?.block.lookup('x.storm.example')).toBeUndefined();
      expect(third.policy.get(s.otherPolicyId)?.block.lookup('storm.example')).toBe(true);

      // Deleting an owner's every entry drops the owner.
      const all = await handle.db
        .selectFrom('policy_domains')
        .select('id')
        .where('policy_id', '=', s.otherPolicyId)
        .execute();
      for (const r of all) await c.remove(s.otherPolicyId, r.id);
      const fourth = await part.load(handle, silent, third);
      expect(fourth.policy.has(s.otherPolicyId)).toBe(false);
      expect(fourth.policy.get(s.defaultPolicyId)).toBe(first.policy.get(s.defaultPolicyId));
    } finally {
      await handle.close();
    }
  }, 60_000);

  it('finds rows written around core by the row digests, at most every rowDigestEveryMs of its clock', async () => {
    const { handle, s } = await seeded(dialect);
    try {
      let now = 1_000_000;
      const part = createListsPart({ now: () => now, rowDigestEveryMs: 10_000 });
      const first = await part.load(handle, silent, null);
      const ts = new Date().toISOString();
      await handle.db
        .insertInto('policy_domains')
        .values({
          policy_id: s.defaultPolicyId,
          customer_id: s.customerId,
          domain: 'by-hand.example',
          action: 'block',
          include_subdomains: 1,
          comment: '',
          log_requests: 1,
          created_at: ts,
          updated_at: ts,
        })
        .execute();
      now += 9_999;
      // No stamp, and the row digests are not due yet.
      expect(await part.load(handle, silent, first)).toBe(first);
      now += 1;
      const second = await part.load(handle, silent, first);
      expect(second.reloadedOwners).toBe(1);
      expect(second.policy.get(s.defaultPolicyId)?.block.lookup('by-hand.example')).toBe(true);
      // Read again at the next due time, nothing has changed: the value stays.
      now += 10_000;
      expect(await part.load(handle, silent, second)).toBe(second);
    } finally {
      await handle.close();
    }
  }, 60_000);
});

describe.each(testDialects())('the row digests over many entries on %s', (dialect) => {
  it("add up an owner's rows across the digest pass's slices, so unchanged owners are never flagged", async () => {
    const { handle, s } = await seeded(dialect);
    try {
      const ts = new Date().toISOString();
      const row = (policy_id: number, customer_id: number, domain: string) => ({
        policy_id,
        customer_id,
        domain,
        action: 'block',
        include_subdomains: 1,
        comment: '',
        log_requests: 1,
        created_at: ts,
        updated_at: ts,
      });
      // 12,000 entries of the later policy: more than two of SQLite's 5,000-entry digest slices.
      for (let i = 0; i < 12_000; i += 1_000) {
        await handle.db
          .insertInto('policy_domains')
          .values(Array.from({ length: 1_000 }, (_, j) => row(s.otherPolicyId, s.otherCustomerId, `n${i + j}.example`)))
          .execute();
      }
      let now = 0;
      const part = createListsPart({ now: () => now, rowDigestEveryMs: 1 });
      const first = await part.load(handle, silent, null);
      expect(first.policy.get(s.otherPolicyId)?.block.size).toBe(12_000);
      // A row by hand for the earlier policy shifts every slice boundary inside the later one's rows.
      await handle.db
        .insertInto('policy_domains')
        .values(row(s.defaultPolicyId, s.customerId, 'hand.example'))
        .execute();
      now += 1;
      const second = await part.load(handle, silent, first);
      expect(second.reloadedOwners).toBe(1);
      expect(second.policy.get(s.defaultPolicyId)?.block.lookup('hand.example')).toBe(true);
      expect(second.policy.get(s.otherPolicyId)).toBe(first.policy.get(s.otherPolicyId));
      // A change through core, the clock still: found by its stamp, its owner's digest read for it alone…
      await core(handle).add(s.defaultPolicyId, 'core.example');
      const third = await part.load(handle, silent, second);
      expect(third.reloadedOwners).toBe(1);
      expect(third.policy.get(s.defaultPolicyId)?.block.lookup('core.example')).toBe(true);
      // …equals the next full pass's, which so finds nothing to do.
      now += 1;
      expect(await part.load(handle, silent, third)).toBe(third);
    } finally {
      await handle.close();
    }
  }, 60_000);
});

describe.each(testDialects())('core list changes on %s', (dialect) => {
  it('lets the unique index refuse a listed domain and skip it on import, and refuses lists above the limit', async () => {
    const { handle, s } = await seeded(dialect);
    try {
      const c = core(handle, { maxEntries: 3 });
      const a = await c.add(s.defaultPolicyId, 'one.example');
      await expect(c.add(s.defaultPolicyId, 'one.example')).rejects.toMatchObject({
        code: 'ERR_CONFLICT',
        status: 409,
      });
      // Another list of the same policy, or another policy, is another list.
      await c.add(s.defaultPolicyId, 'one.example', 'allow');
      // Renaming onto a listed domain: the index refuses it too.
      const b = await c.add(s.defaultPolicyId, 'two.example');
      await expect(c.update(s.defaultPolicyId, b.id, { domain: 'one.example' })).rejects.toMatchObject({
        code: 'ERR_CONFLICT',
      });
      // Import: a listed name is skipped by the index, counted as such (the file's repeats are its parser's).
      expect(await c.import(s.defaultPolicyId, 'one.example\nthree.example\nthree.example')).toEqual({
        imported: 1,
        skipped: 1,
        removed: 0,
      });
      // Full at 3: one more entry is refused with the limit named, and nothing is written.
      const full = await c.add(s.defaultPolicyId, 'four.example').catch((e: unknown) => e);
      expect(full).toBeInstanceOf(ApiError);
      expect(full).toMatchObject({
        code: 'ERR_LIST_FULL',
        status: 422,
        message: 'This list is full: it may hold at most 3 entries.',
      });
      const tooMany = await c.import(s.defaultPolicyId, 'five.example\nsix.example').catch((e: unknown) => e);
      expect(tooMany).toMatchObject({ code: 'ERR_LIST_FULL', fields: { csv: expect.stringContaining('at most 3') } });
      const names = await handle.db
        .selectFrom('policy_domains')
        .select('domain')
        .where('policy_id', '=', s.defaultPolicyId)
        .where('action', '=', 'block')
        .orderBy('domain')
        .execute();
      expect(names.map((r) => r.domain)).toEqual(['one.example', 'three.example', 'two.example']);
      // An overwrite that fits is allowed; room frees when entries go.
      expect(await c.import(s.defaultPolicyId, 'five.example\nsix.example', true)).toMatchObject({
        imported: 2,
        removed: 3,
      });
      await c.remove(s.defaultPolicyId, a.id).catch(() => undefined);
      await c.add(s.defaultPolicyId, 'seven.example');
    } finally {
      await handle.close();
    }
  }, 60_000);
});

describe('the store coalesces list changes', () => {
  it('makes one reload of a burst of changes within the settle window, and relinks only when an owner changed', async () => {
    const handle = await createTestDatabase('sqlite');
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const s = await seedTenants(handle);
      const c = core(handle);
      const feed = manualFeed();
      const store = new SnapshotStore(handle, silent, { resyncMs: 0, settleMs: 100 });
      await store.load();
      store.follow(feed);
      const loaded = store.stats.listReloads;
      for (let i = 0; i < 50; i++) {
        await c.add(s.otherPolicyId, `burst-${i}.example`);
        feed.emit('lists');
      }
      // Nothing reloaded yet; from here on, every transaction is a load of the lists part.
      expect(store.stats.listReloads).toBe(loaded);
      const loads = vi.spyOn(handle.db, 'transaction');
      await vi.advanceTimersByTimeAsync(100);
      await vi.waitFor(() => expect(store.stats.listReloads).toBe(loaded + 1), { timeout: 5_000 });
      expect(loads).toHaveBeenCalledTimes(1);
      expect(store.stats.lastListOwners).toBe(1);
      const beta = store.identify('127.0.0.3');
      expect(beta.kind === 'ok' && beta.policy?.block?.lookup('burst-49.example')).toBe(true);
      // The same topic again (the poller after the relay): read, found unchanged, not relinked.
      feed.emit('lists');
      await vi.advanceTimersByTimeAsync(100);
      await vi.waitFor(() => expect(loads).toHaveBeenCalledTimes(2), { timeout: 5_000 });
      expect(store.stats.listReloads).toBe(loaded + 1);
      expect(store.identify('127.0.0.3')).toBe(beta);
      store.close();
    } finally {
      vi.useRealTimers();
      await handle.close();
    }
  }, 60_000);
});
