import { describe, expect, it } from 'vitest';
import { CHANGE_CHANNEL, CHANGE_TOPICS, createChangeFeed } from '../src/changes.ts';
import { openDatabase } from '../src/connection.ts';
import { createTestDatabase, testDialects } from '../src/testing.ts';

describe.each(testDialects())('change feed on %s', (dialect) => {
  it('notifies local subscribers at once and other feeds on the same database by polling', async () => {
    const handle = await createTestDatabase(dialect);
    const api = createChangeFeed(handle, 20);
    const resolver = createChangeFeed(handle, 20);
    try {
      await api.start();
      await resolver.start();
      const local: string[] = [];
      const remote: string[] = [];
      api.subscribe((t) => local.push(t));
      resolver.subscribe((t) => remote.push(t));
      await api.publish('policies');
      expect(local).toEqual(['policies']);
      await expect.poll(() => remote, { timeout: 2000 }).toEqual(['policies']);
      // The publisher does not hear its own change twice through polling.
      await new Promise((r) => setTimeout(r, 100));
      expect(local).toEqual(['policies']);
    } finally {
      await api.close();
      await resolver.close();
      await handle.close();
    }
  });

  it('starts against an unreachable database and reports every topic once it can read', async () => {
    const handle = await createTestDatabase(dialect);
    let reachable = false;
    const unreachable: Record<string, unknown> = new Proxy(
      {},
      {
        get: (_t, p) => (p === 'execute' ? () => Promise.reject(new Error('ECONNREFUSED')) : () => unreachable),
      },
    );
    // A handle whose reads fail until `reachable`: the feed must neither reject nor miss the outage.
    const flaky = {
      ...handle,
      db: new Proxy(handle.db, {
        get(target, prop) {
          if (prop === 'selectFrom' && !reachable) return () => unreachable;
          const value = Reflect.get(target, prop, target);
          return typeof value === 'function' ? value.bind(target) : value;
        },
      }),
    };
    const feed = createChangeFeed(flaky, 20);
    try {
      const heard: string[] = [];
      feed.subscribe((t) => heard.push(t));
      await feed.start();
      await new Promise((r) => setTimeout(r, 60));
      expect(heard).toEqual([]);
      reachable = true;
      await expect.poll(() => heard.length, { timeout: 2000 }).toBe(CHANGE_TOPICS.length);
      expect([...heard].sort()).toEqual([...CHANGE_TOPICS].sort());
    } finally {
      await feed.close();
      await handle.close();
    }
  });
});

describe.runIf(process.env.CORDON_TEST_DATABASE_URL)('change feed on postgres: LISTEN/NOTIFY', () => {
  it('another handle hears a change in under a second with the poll out of the way', async () => {
    const handle = await createTestDatabase('postgres');
    // A second pool on the same schema, as another process would have.
    const schema = /search_path=(\S+)/.exec(String(handle.pgPool?.options.options))?.[1];
    expect(schema).toBeTruthy();
    const other = openDatabase({ url: process.env.CORDON_TEST_DATABASE_URL, pgSchema: schema!, pgPoolSize: 1 });
    const api = createChangeFeed(handle, 600_000);
    const resolver = createChangeFeed(other, 600_000);
    try {
      await api.start();
      await resolver.start();
      const heard: string[] = [];
      resolver.subscribe((t) => heard.push(t));
      const t0 = Date.now();
      await api.publish('lists');
      await expect.poll(() => heard, { timeout: 1000, interval: 5 }).toEqual(['lists']);
      expect(Date.now() - t0).toBeLessThan(1000);
      // One notification, one report: the version read after it is not reported again.
      await api.publish('locations');
      await expect.poll(() => heard, { timeout: 1000, interval: 5 }).toEqual(['lists', 'locations']);
    } finally {
      await api.close();
      await resolver.close();
      await other.close();
      await handle.close();
    }
  });

  it('reconnects its LISTEN connection after the server ends it, and resyncs every topic', async () => {
    const handle = await createTestDatabase('postgres');
    const schema = /search_path=(\S+)/.exec(String(handle.pgPool?.options.options))?.[1];
    const other = openDatabase({ url: process.env.CORDON_TEST_DATABASE_URL, pgSchema: schema!, pgPoolSize: 1 });
    const api = createChangeFeed(handle, 600_000);
    const resolver = createChangeFeed(other, 600_000);
    try {
      const listening = async () =>
        new Set(
          (
            await handle.pgPool!.query<{ pid: number }>(
              `select pid from pg_stat_activity where query = 'LISTEN ${CHANGE_CHANNEL}'`,
            )
          ).rows.map((r) => r.pid),
        );
      await api.start();
      const before = await listening();
      await resolver.start();
      // The resolver feed's dedicated connection: the one that appeared with it (other test files may listen too).
      const ours = [...(await listening())].filter((pid) => !before.has(pid));
      expect(ours.length).toBeGreaterThan(0);
      const heard: string[] = [];
      resolver.subscribe((t) => heard.push(t));
      await handle.pgPool!.query('select pg_terminate_backend(pid) from unnest($1::int[]) as pid', [ours]);
      // Reconnected after the first backoff step, it reports every topic: notifications were missed
      // meanwhile (docs/operations.md "When the database goes away").
      await expect.poll(() => [...heard].sort(), { timeout: 3000, interval: 5 }).toEqual([...CHANGE_TOPICS].sort());
      heard.length = 0;
      // Then it hears the next change without the poll.
      await api.publish('groups');
      await expect.poll(() => heard, { timeout: 1000, interval: 5 }).toEqual(['groups']);
    } finally {
      await api.close();
      await resolver.close();
      await other.close();
      await handle.close();
    }
  });
});
