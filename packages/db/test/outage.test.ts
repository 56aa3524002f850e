/**
 * A pool, and the change feed's LISTEN connection, survive losing PostgreSQL (issue 30;
 * docs/operations.md "When the database goes away"): the server terminating their connections
 * (`pg_terminate_backend`, what a restart or failover does) and the network cutting them (a loopback
 * proxy the test closes and reopens). Before, the pool's unhandled `error` event ended the process.
 */
import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CHANGE_TOPICS, createChangeFeed } from '../src/changes.ts';
import { type DatabaseHandle, openDatabase } from '../src/connection.ts';
import { createTestDatabase } from '../src/testing.ts';
import { isDatabaseUnreachable } from '../src/unreachable.ts';
import { type PgProxy, pgTarget, startPgProxy, throughProxy } from './helpers/pg-proxy.ts';

const PG = process.env.CORDON_TEST_DATABASE_URL;

describe('isDatabaseUnreachable', () => {
  it('tells a lost or refused connection from a refusal of the SQL', () => {
    const withCode = (code: string, message = 'x') => Object.assign(new Error(message), { code });
    for (const err of [
      withCode('ECONNREFUSED'),
      withCode('ECONNRESET'),
      withCode('57P01', 'terminating connection due to administrator command'),
      withCode('57P03', 'the database system is starting up'),
      withCode('08006'),
      new Error('Connection terminated unexpectedly'),
      new Error('timeout exceeded when trying to connect'),
      new Error('Client has encountered a connection error and is not queryable'),
      new AggregateError([withCode('ECONNREFUSED')], 'connect failed'),
      new Error('wrapped', { cause: withCode('ETIMEDOUT') }),
    ]) {
      expect({ err: String(err), unreachable: isDatabaseUnreachable(err) }).toEqual({
        err: String(err),
        unreachable: true,
      });
    }
    for (const err of [
      withCode('23505', 'duplicate key value violates unique constraint'),
      withCode('42P01', 'relation "x" does not exist'),
      withCode('SQLITE_BUSY', 'database is locked'),
      new Error('boom'),
      null,
      'ECONNREFUSED',
    ]) {
      expect(isDatabaseUnreachable(err)).toBe(false);
    }
  });
});

describe.runIf(PG)('a PostgreSQL pool losing its server', () => {
  let base: DatabaseHandle;
  let schema = '';
  let proxy: PgProxy;
  const app = `cordon_outage_${randomBytes(4).toString('hex')}`;
  const opened: DatabaseHandle[] = [];
  /** A handle on the test's schema through the proxy, its connections named `app`. */
  const open = (poolSize = 2) => {
    const h = openDatabase({ url: throughProxy(PG!, proxy, app), pgSchema: schema, pgPoolSize: poolSize });
    opened.push(h);
    return h;
  };
  /** Terminates every connection named `app` (only this test's); @returns how many. */
  const terminate = async () =>
    (
      await base.pgPool!.query<{ n: number }>(
        'select count(pg_terminate_backend(pid))::int as n from pg_stat_activity where application_name = $1',
        [app],
      )
    ).rows[0]!.n;

  beforeEach(async () => {
    base = await createTestDatabase('postgres');
    schema = /search_path=(\S+)/.exec(String(base.pgPool?.options.options))![1]!;
    proxy = await startPgProxy(pgTarget(PG!));
  });
  afterEach(async () => {
    for (const h of opened.splice(0)) await h.close().catch(() => undefined);
    await proxy.close();
    await base.close();
  });

  it('survives pg_terminate_backend of idle and busy connections and answers again', async () => {
    const handle = open(2);
    await Promise.all([handle.pgPool!.query('select 1'), handle.pgPool!.query('select 1')]);
    expect(handle.pgPool!.idleCount).toBe(2);
    // Busy: the waiting query gets the error as its rejection. The handler is attached at once: the
    // rejection may arrive before the poll below returns, and an unhandled one fails the run.
    const busy = handle.pgPool!.query('select pg_sleep(10)').then(
      () => null,
      (e: unknown) => e,
    );
    await expect.poll(terminate, { timeout: 5000 }).toBeGreaterThan(0);
    const err = await busy;
    expect(isDatabaseUnreachable(err)).toBe(true);
    // The idle one's error arrives as an event: the pool discards it, the process lives on.
    await expect.poll(() => handle.pgPool!.totalCount, { timeout: 5000 }).toBe(0);
    expect((await handle.pgPool!.query<{ n: number }>('select 2 as n')).rows[0]!.n).toBe(2);
  });

  it('fails queries fast while the network is cut and reconnects by itself when it returns', async () => {
    const handle = open(2);
    await handle.pgPool!.query('select 1');
    await proxy.cut();
    const err = await handle.db
      .selectFrom('settings')
      .selectAll()
      .execute()
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(isDatabaseUnreachable(err)).toBe(true);
    await proxy.restore();
    expect(await handle.db.selectFrom('settings').select('key').limit(1).execute()).toBeInstanceOf(Array);
  });

  it('the change feed resyncs every topic after its connections were cut, then hears changes again', async () => {
    const handle = open(2);
    // The poll out of the way: what reports the topics is the LISTEN connection coming back.
    const feed = createChangeFeed(handle, 600_000);
    const publisher = createChangeFeed(base, 600_000);
    try {
      await feed.start();
      const heard: string[] = [];
      feed.subscribe((t) => heard.push(t));
      await proxy.cut();
      // A change while the feed cannot hear it.
      await publisher.publish('lists');
      await proxy.restore();
      // The LISTEN connection comes back (backoff from 250 ms) and reports everything.
      await expect
        .poll(() => [...new Set(heard)].sort(), { timeout: 5000, interval: 10 })
        .toEqual([...CHANGE_TOPICS].sort());
      heard.length = 0;
      await publisher.publish('groups');
      await expect.poll(() => heard, { timeout: 2000, interval: 5 }).toEqual(['groups']);
    } finally {
      await feed.close();
      await publisher.close();
    }
  });
});
