/**
 * The query-log writer thread while PostgreSQL is away (issue 30; docs/operations.md "When the
 * database goes away"; docs/decisions.md "Query-log spool"): its connection cut by a loopback proxy,
 * or terminated by the server, the thread neither dies nor drops rows: it retries with backoff, the
 * backlog beyond memory goes to the spool, and every row is written once the database is back.
 * Closing during an outage keeps the rows for the next start.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DatabaseHandle } from '@cordon/db';
import { createTestDatabase } from '@cordon/db/testing';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type PgProxy, pgTarget, startPgProxy, throughProxy } from '../../../packages/db/test/helpers/pg-proxy.ts';
import { QueryLogWorkerWriter } from '../src/querylog/threaded.ts';
import { queryLogRow } from './helpers/query-log-rows.ts';

const PG = process.env.CORDON_TEST_DATABASE_URL;

describe.runIf(PG)('the query-log writer thread losing PostgreSQL', () => {
  let db: DatabaseHandle;
  let proxy: PgProxy;
  let spoolDir = '';
  const app = `cordon_qlog_${randomBytes(4).toString('hex')}`;
  const writers: QueryLogWorkerWriter[] = [];

  /** A writer on the test schema through the proxy: batches of 100, 1,000 rows in memory at most, a spool. */
  const writer = () => {
    const schema = /search_path=(\S+)/.exec(String(db.pgPool?.options.options))![1]!;
    const w = new QueryLogWorkerWriter(
      { url: throughProxy(PG!, proxy, app), pgSchema: schema },
      pino({ level: 'silent' }),
      { batchSize: 100, flushMs: 20, maxBuffer: 1000, spoolDir, idleWriter: false },
    );
    writers.push(w);
    return w;
  };
  const count = async () =>
    Number(
      (
        await db.db
          .selectFrom('query_log')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  /** Pushes rows `from`…`to − 1`, a batch at a time with a pause, as traffic would. */
  const pushRows = async (w: QueryLogWorkerWriter, from: number, to: number) => {
    for (let i = from; i < to; i++) {
      expect(w.push(queryLogRow(i))).toBe(true);
      if (i % 100 === 99) await new Promise((r) => setTimeout(r, 2));
    }
  };

  beforeEach(async () => {
    db = await createTestDatabase('postgres');
    proxy = await startPgProxy(pgTarget(PG!));
    spoolDir = mkdtempSync(join(tmpdir(), 'cordon-qlog-outage-'));
  });
  afterEach(async () => {
    for (const w of writers.splice(0)) await w.close();
    await proxy.close();
    await db.close();
    rmSync(spoolDir, { recursive: true, force: true });
  });

  it('spools the backlog while the connection is cut and writes every row once it returns', async () => {
    const w = writer();
    await pushRows(w, 0, 200);
    await w.flush();
    expect(await count()).toBe(200);
    await proxy.cut();
    await pushRows(w, 200, 3200);
    // Memory holds 1,000 rows; the rest went to the spool, none dropped, none counted as failed.
    await expect.poll(() => w.stats.spooled, { timeout: 20_000 }).toBeGreaterThanOrEqual(2000);
    expect(w.stats).toMatchObject({ dropped: 0, failedBatches: 0 });
    await proxy.restore();
    await w.flush();
    expect(await count()).toBe(3200);
    expect(w.stats).toMatchObject({ written: 3200, dropped: 0, failedBatches: 0 });
  }, 90_000);

  it('survives pg_terminate_backend of its connection and writes every row', async () => {
    const w = writer();
    await pushRows(w, 0, 300);
    await w.flush();
    const terminate = async () =>
      (
        await db.pgPool!.query<{ n: number }>(
          'select count(pg_terminate_backend(pid))::int as n from pg_stat_activity where application_name = $1',
          [app],
        )
      ).rows[0]!.n;
    expect(await terminate()).toBe(1);
    await pushRows(w, 300, 1300);
    await terminate();
    await pushRows(w, 1300, 2000);
    await w.flush();
    expect(await count()).toBe(2000);
    expect(w.stats).toMatchObject({ written: 2000, dropped: 0, failedBatches: 0 });
  }, 90_000);

  it('closed while the database is away, keeps the rows in the spool and the next start writes them', async () => {
    const first = writer();
    await proxy.cut();
    await pushRows(first, 0, 1500);
    await first.close();
    writers.splice(writers.indexOf(first), 1);
    expect(await count()).toBe(0);
    expect(readdirSync(spoolDir).some((f) => f.endsWith('.spool'))).toBe(true);
    await proxy.restore();
    const next = writer();
    await expect.poll(count, { timeout: 30_000, interval: 100 }).toBe(1500);
    await next.flush();
    await expect.poll(() => readdirSync(spoolDir).filter((f) => f.endsWith('.spool')), { timeout: 5000 }).toEqual([]);
  }, 90_000);
});
