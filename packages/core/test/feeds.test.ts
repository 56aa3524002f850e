import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { type Caller, type CoreDeps, feeds, OPERATOR } from '@cordon/core';
import type { ChangeFeed, ChangeTopic, DatabaseHandle } from '@cordon/db';
import { createTestDatabase, testDialects } from '@cordon/db/testing';
import { ensureRootCa, LeafMinter } from '@cordon/pki';
import { ApiError, Role } from '@cordon/shared';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';

/** What the loopback feed server answers at `/feed.txt`; a test changes it between runs. */
let served: { status: number; body: string } = { status: 200, body: '' };
let server: https.Server;
let url: string;
let ca: string;

beforeAll(async () => {
  const handle = await createTestDatabase('sqlite');
  const root = await ensureRootCa(handle, Buffer.alloc(32, 9));
  await handle.close();
  ca = root.certificatePem;
  server = https.createServer(await new LeafMinter(root).fallbackCredentials(), (_req, res) => {
    res.writeHead(served.status, { 'content-type': 'text/plain' });
    res.end(served.body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/feed.txt`;
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
});

/** Category feeds (docs/operations.md "Category feeds"): runs, failures kept apart, schedule, cleanup. */
describe.each(testDialects())('category feeds on %s', (dialect) => {
  let handle: DatabaseHandle;
  let clock = Date.UTC(2026, 10, 1, 12);
  const published: ChangeTopic[] = [];
  const changes: ChangeFeed = {
    publish: async (t) => {
      published.push(t);
    },
    subscribe: () => () => undefined,
    start: async () => undefined,
    close: async () => undefined,
  };
  let deps: CoreDeps;
  // The feed server is on loopback: the outbound guard lets it through only with this explicit allowance.
  const options = () => ({ fetch: { ca, outbound: { allow: ['127.0.0.1/32'] } } });
  const names = async (id: number) =>
    (
      await handle.db
        .selectFrom('category_domains')
        .select(['domain', 'category_id'])
        .where('source', '=', `feed:${id}`)
        .orderBy('domain')
        .execute()
    ).map((r) => `${r.domain}:${r.category_id}`);

  beforeEach(async () => {
    handle = await createTestDatabase(dialect);
    clock = Date.UTC(2026, 10, 1, 12);
    published.length = 0;
    deps = { handle, changes, now: () => clock };
  });
  afterEach(async () => {
    await handle.close();
  });

  it('fetches a hosts feed, keeps its names when a later fetch fails, and records both outcomes', async () => {
    const feed = await feeds.createFeed(deps, OPERATOR, {
      name: 'Ad servers',
      format: 'hosts',
      category_id: 20,
      url,
      interval_hours: 6,
      enabled: true,
    });
    served = { status: 200, body: '0.0.0.0 ads.example tracker.example\n127.0.0.1 localhost\nnot a hosts line\n' };
    const run = await feeds.runFeed(deps, OPERATOR, feed.id, options());
    expect(run).toMatchObject({ rows: 2, invalid_entries: 1, examples: ['not a hosts line'] });
    expect(run.feed).toMatchObject({ last_status: 'ok', last_rows: 2, last_skipped: 1, last_error: null });
    expect(await names(feed.id)).toEqual(['ads.example:20', 'tracker.example:20']);
    expect(published).toEqual(['categories']);

    served = { status: 503, body: '' };
    clock += 3_600_000;
    const failed = feeds.runFeed(deps, OPERATOR, feed.id, options());
    await expect(failed).rejects.toMatchObject({
      code: 'ERR_UNPROCESSABLE',
      message: 'The server could not be reached.',
    });
    const after = await feeds.getFeed(deps, OPERATOR, feed.id);
    expect(after).toMatchObject({
      last_status: 'error',
      last_error: 'The server could not be reached.',
      last_rows: 2,
      last_run_at: new Date(clock).toISOString(),
    });
    expect(await names(feed.id)).toEqual(['ads.example:20', 'tracker.example:20']);
    const audit = await handle.db.selectFrom('audit_log').select('action').orderBy('id').execute();
    expect(audit.map((a) => a.action)).toEqual(['feed.create', 'feed.run', 'feed.run']);
  });

  it('moves its names to a new category at once, and takes them away when deleted', async () => {
    const feed = await feeds.createFeed(deps, OPERATOR, {
      name: 'Casinos',
      format: 'domains',
      category_id: 20,
      url: null,
      interval_hours: 24,
      enabled: true,
    });
    expect(feed.interval_hours).toBe(0); // no URL: uploads only
    await expect(feeds.runFeed(deps, OPERATOR, feed.id, options())).rejects.toMatchObject({
      code: 'ERR_UNPROCESSABLE',
    });
    await feeds.uploadFeed(deps, OPERATOR, feed.id, Buffer.from('casino.example\nbet.example\n'));
    await feeds.updateFeed(deps, OPERATOR, feed.id, { category_id: 6 });
    expect(await names(feed.id)).toEqual(['bet.example:6', 'casino.example:6']);
    await expect(
      feeds.createFeed(deps, OPERATOR, {
        name: 'casinos',
        format: 'hosts',
        category_id: 6,
        url: null,
        interval_hours: 0,
        enabled: true,
      }),
    ).rejects.toMatchObject({ code: 'ERR_CONFLICT', fields: { name: 'A feed with this name already exists.' } });
    // It holds names: the delete names the feed to confirm (docs/api.md "Deletes of things in use").
    await expect(feeds.deleteFeed(deps, OPERATOR, feed.id)).rejects.toMatchObject({ code: 'ERR_IN_USE' });
    await feeds.deleteFeed(deps, OPERATOR, feed.id, { confirm_name: 'Casinos' });
    expect(await names(feed.id)).toEqual([]);
    await expect(feeds.getFeed(deps, OPERATOR, feed.id)).rejects.toMatchObject({ code: 'ERR_NOT_FOUND' });
  });

  it('runs each enabled feed with a URL when its interval has passed, and nobody but the system admin', async () => {
    served = { status: 200, body: '||ads.example^\n' };
    const make = (name: string, extra: { url: string | null; interval_hours: number; enabled: boolean }) =>
      feeds.createFeed(deps, OPERATOR, { name, format: 'adblock', category_id: 20, ...extra });
    const hourly = await make('Hourly', { url, interval_hours: 1, enabled: true });
    await make('Manual', { url, interval_hours: 0, enabled: true });
    await make('Off', { url, interval_hours: 1, enabled: false });
    await make('Upload', { url: null, interval_hours: 1, enabled: true });
    expect(await feeds.runDueFeeds(deps, OPERATOR, options())).toEqual([{ id: hourly.id, ok: true }]);
    clock += 30 * 60_000;
    expect(await feeds.runDueFeeds(deps, OPERATOR, options())).toEqual([]);
    clock += 30 * 60_000;
    expect(await feeds.runDueFeeds(deps, OPERATOR, options())).toEqual([{ id: hourly.id, ok: true }]);

    const mspAdmin: Caller = { ...OPERATOR, kind: 'admin', adminId: 5, role: Role.Msp, mspId: 1 };
    for (const call of [
      () => feeds.listFeeds(deps, mspAdmin, { limit: 10, offset: 0, sortkey: 'name', sortdir: 'asc' }),
      () => feeds.runFeed(deps, mspAdmin, hourly.id),
      () => feeds.deleteFeed(deps, mspAdmin, hourly.id),
    ]) {
      await expect(call()).rejects.toBeInstanceOf(ApiError);
      await expect(call()).rejects.toMatchObject({ code: 'ERR_FORBIDDEN' });
    }
  });
});
