import { type CoreDeps, worker } from '@cordon/core';
import { type ChangeFeed, type DatabaseHandle, openDatabase } from '@cordon/db';
import { createTestDatabase, testDialects } from '@cordon/db/testing';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const NO_FEED: ChangeFeed = {
  publish: async () => undefined,
  subscribe: () => () => undefined,
  start: async () => undefined,
  close: async () => undefined,
};

/** The worker role (docs/architecture.md "Worker"): due jobs, the ledger, exactly one runner. */
describe.each(testDialects())('worker on %s', (dialect) => {
  let handle: DatabaseHandle;
  let second: DatabaseHandle;
  let clock = Date.UTC(2026, 2, 1, 12);
  const depsOf = (h: DatabaseHandle): CoreDeps => ({ handle: h, changes: NO_FEED, now: () => clock });

  beforeEach(async () => {
    clock = Date.UTC(2026, 2, 1, 12);
    handle = await createTestDatabase(dialect);
    if (dialect === 'postgres') {
      // A second worker process: its own pool on the same schema.
      const schema = (await sql<{ s: string }>`select current_schema() as s`.execute(handle.db)).rows[0]!.s;
      second = openDatabase({ url: process.env.CORDON_TEST_DATABASE_URL!, pgSchema: schema, pgPoolSize: 2 });
    } else {
      second = handle;
    }
  });
  afterEach(async () => {
    if (second !== handle) await second.close();
    await handle.close();
  });

  it('runs a due job once per interval and records it in worker_jobs', async () => {
    const runs: Array<number | null> = [];
    const job: worker.WorkerJob = {
      name: 'test.tick',
      intervalMs: 60_000,
      run: async ({ lastStartedAt }) => {
        runs.push(lastStartedAt);
      },
    };
    const w = worker.startWorker(depsOf(handle), [job], { tickMs: 0 });
    expect(await w.runDue()).toEqual(['test.tick']);
    expect(await w.runDue()).toEqual([]);
    clock += 59_999;
    expect(await w.runDue()).toEqual([]);
    clock += 1;
    expect(await w.runDue()).toEqual(['test.tick']);
    expect(runs).toEqual([null, Date.UTC(2026, 2, 1, 12)]);
    const row = await handle.db.selectFrom('worker_jobs').selectAll().executeTakeFirstOrThrow();
    expect(row).toMatchObject({ name: 'test.tick', runs: 2, last_error: null });
    await w.close();
  });

  it('records a failure and still runs the other jobs', async () => {
    let ok = 0;
    const jobs: worker.WorkerJob[] = [
      { name: 'test.fails', intervalMs: 1000, run: async () => Promise.reject(new Error('boom')) },
      { name: 'test.ok', intervalMs: 1000, run: async () => void ok++ },
    ];
    const w = worker.startWorker(depsOf(handle), jobs, { tickMs: 0 });
    expect((await w.runDue()).sort()).toEqual(['test.fails', 'test.ok']);
    expect(ok).toBe(1);
    const failed = await handle.db
      .selectFrom('worker_jobs')
      .select('last_error')
      .where('name', '=', 'test.fails')
      .executeTakeFirstOrThrow();
    expect(failed.last_error).toBe('boom');
    await w.close();
  });

  it('refuses two jobs with one name', () => {
    const job: worker.WorkerJob = { name: 'dup', intervalMs: 1, run: async () => undefined };
    expect(() => worker.startWorker(depsOf(handle), [job, job], { tickMs: 0 })).toThrow(/registered twice/);
  });

  it('runs a job on exactly one of two workers started at once', async () => {
    let runs = 0;
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const job: worker.WorkerJob = {
      name: 'test.once',
      intervalMs: 3_600_000,
      run: async () => {
        runs++;
        await gate;
      },
    };
    const a = worker.startWorker(depsOf(handle), [job], { tickMs: 0 });
    const b = worker.startWorker(depsOf(second), [job], { tickMs: 0 });
    const first = a.runDue();
    const other = b.runDue();
    // The loser returns while the winner is still inside run().
    const [lost] = await Promise.race([other.then((r) => [r]), first.then(() => [['first finished']])]);
    release();
    const won = await first;
    expect(won).toEqual(['test.once']);
    expect(lost).toEqual([]);
    expect(await b.runDue()).toEqual([]);
    expect(runs).toBe(1);
    if (dialect === 'postgres') {
      // The advisory lock is released after the run: the other worker can take it now.
      const key = worker.jobLockKey('test.once');
      const got = await sql<{ ok: boolean }>`select pg_try_advisory_lock(${0x77726b72}, ${key}) as ok`.execute(
        second.db,
      );
      expect(got.rows[0]?.ok).toBe(true);
    }
    await a.close();
    await b.close();
  });
});
