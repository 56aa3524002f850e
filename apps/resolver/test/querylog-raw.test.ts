import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrateToLatest, openDatabase } from '@cordon/db';
import { createTestDatabase, testDialects } from '@cordon/db/testing';
import { sql } from 'kysely';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { QueryLogWorkerWriter } from '../src/querylog/threaded.ts';
import { insertQueryLogRaw, type QueryLogRow, QueryLogWriter } from '../src/querylog/writer.ts';
import { queryLogRow } from './helpers/query-log-rows.ts';

const row = queryLogRow;

describe.each(testDialects())(
  'the writers append raw rows on %s (the worker folds them: apps/api stats tests)',
  (dialect) => {
    /** The log holds exactly `rows`, in order, every column as pushed; no roll-up was written. */
    const check = async (handle: Awaited<ReturnType<typeof createTestDatabase>>, rows: QueryLogRow[]) => {
      const back = await handle.db
        .selectFrom('query_log')
        .select([
          'ts',
          'customer_id',
          'location_id',
          'qname',
          'action',
          'categories',
          'device_id',
          'user_name',
          'matched_name',
        ])
        .orderBy('id')
        .execute();
      expect(back.map((r) => ({ ...r, ts: Number(r.ts) }))).toEqual(
        rows.map((r) => ({
          ts: r.ts,
          customer_id: r.customer_id,
          location_id: r.location_id,
          qname: r.qname,
          action: r.action,
          categories: r.categories,
          device_id: r.device_id ?? null,
          user_name: r.user_name ?? '',
          matched_name: r.matched_name ?? '',
        })),
      );
      const rolled = await handle.db
        .selectFrom('stats_hourly')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      expect(Number(rolled.n)).toBe(0);
    };

    it('keeps every character of the text columns, the identity columns and the matched name (COPY escaping and the unnest insert on PostgreSQL)', async () => {
      const handle = await createTestDatabase(dialect);
      const odd = 'a\\b\tc\nd\re\\N.example';
      const rows = [
        row(1, {
          qname: odd,
          user_name: 'dom\\alice',
          device_id: 4,
          user_id: 5,
          group_id: 6,
          matched_name: `t.${odd}`,
        }),
        row(2, { categories: '', user_name: '', device_id: null, user_id: null, group_id: null }),
        row(3, { action: 'blocked', matched_name: 'cname-target.example' }),
        row(4, { matched_name: undefined }),
      ];
      await insertQueryLogRaw(handle, rows);
      // PostgreSQL without a pool: one INSERT from unnest of column arrays instead of COPY.
      if (dialect === 'postgres') await insertQueryLogRaw({ ...handle, pgPool: undefined }, rows);
      const back = await handle.db
        .selectFrom('query_log')
        .select(['qname', 'user_name', 'device_id', 'user_id', 'group_id', 'location_id', 'categories', 'matched_name'])
        .orderBy('id')
        .execute();
      expect(back).toEqual(
        (dialect === 'postgres' ? [...rows, ...rows] : rows).map((r) => ({
          qname: r.qname,
          matched_name: r.matched_name ?? '',
          user_name: r.user_name ?? '',
          device_id: r.device_id ?? null,
          user_id: r.user_id ?? null,
          group_id: r.group_id ?? null,
          location_id: r.location_id,
          categories: r.categories,
        })),
      );
      await handle.close();
    });

    it('stores every column of every row as given: UTF-8 text, nulls, large ids and epoch ms (COPY on PostgreSQL)', async () => {
      const handle = await createTestDatabase(dialect);
      const rows: QueryLogRow[] = [
        row(1, {
          ts: Date.UTC(2026, 10, 29, 8, 30, 0, 123),
          customer_id: 2_000_000_000,
          location_id: 2_147_483_647,
          policy_id: 7,
          client_ip: '2001:db8::1',
          qname: 'café.例え.example',
          qtype: 'HTTPS',
          protocol: 'doh',
          action: 'blocked',
          reason: 'category',
          categories: '3,17,42',
          rcode: 'NXDOMAIN',
          answer_source: 'blocked',
          latency_us: 123_456,
          device_id: 9,
          user_id: 10,
          user_name: 'Zoë 🙂',
          group_id: 11,
          matched_name: 'cdn.café.example',
        }),
        row(2, { location_id: null, policy_id: null, device_id: null, user_id: null, group_id: null, categories: '' }),
      ];
      await insertQueryLogRaw(handle, rows);
      const back = await handle.db.selectFrom('query_log').selectAll().orderBy('id').execute();
      expect(back.map(({ id: _id, ...r }) => ({ ...r, ts: Number(r.ts), customer_id: Number(r.customer_id) }))).toEqual(
        rows.map((r) => ({
          ...r,
          device_id: r.device_id ?? null,
          user_id: r.user_id ?? null,
          group_id: r.group_id ?? null,
          user_name: r.user_name ?? '',
          matched_name: r.matched_name ?? '',
        })),
      );
      await handle.close();
    });

    it('a paced insert writes its slices in one transaction: all rows, or none when a slice fails', async () => {
      const handle = await createTestDatabase(dialect);
      const rows = Array.from({ length: 45 }, (_, i) => row(i));
      let pauses = 0;
      await insertQueryLogRaw(handle, rows, {
        rows: 10,
        between: async () => {
          pauses++;
        },
      });
      // SQLite writes 10 rows at a time with a pause between slices; PostgreSQL's COPY takes the batch whole.
      expect(pauses).toBe(dialect === 'sqlite' ? 4 : 0);
      await check(handle, rows);
      if (dialect === 'sqlite') {
        await expect(
          insertQueryLogRaw(handle, [row(100), row(101), row(102)], {
            rows: 1,
            between: async () => {
              throw new Error('stopped between slices');
            },
          }),
        ).rejects.toThrow('stopped between slices');
        await check(handle, rows); // the first slice of the failed batch was rolled back
      }
      await handle.close();
    });

    it('QueryLogWriter: every pushed row is in the log after flush', async () => {
      const handle = await createTestDatabase(dialect);
      const writer = new QueryLogWriter(handle, pino({ level: 'silent' }), { batchSize: 100, flushMs: 60_000 });
      const rows = Array.from({ length: 2_345 }, (_, i) => row(i));
      for (const r of rows) writer.push(r);
      await writer.flush();
      expect(writer.stats).toMatchObject({ written: 2_345, dropped: 0 });
      await check(handle, rows);
      await writer.close();
      await handle.close();
    });

    it('the writer thread: flush writes what was pushed, and close writes the rest', async () => {
      const handle = await createTestDatabase(dialect);
      let connection: Parameters<typeof openDatabase>[0];
      let dir: string | null = null;
      if (dialect === 'postgres') {
        const schema = (await sql<{ s: string }>`select current_schema() as s`.execute(handle.db)).rows[0]!.s;
        connection = { url: process.env.CORDON_TEST_DATABASE_URL!, pgSchema: schema };
      } else {
        dir = mkdtempSync(join(tmpdir(), 'cordon-rollup-'));
        connection = { sqlitePath: join(dir, 'q.db') };
        const setup = openDatabase(connection);
        await migrateToLatest(setup);
        await setup.close();
      }
      const target = dialect === 'postgres' ? handle : openDatabase(connection);
      const writer = new QueryLogWorkerWriter(connection, pino({ level: 'silent' }), { batchSize: 200, flushMs: 50 });
      const rows = Array.from({ length: 1_500 }, (_, i) => row(i));
      for (const r of rows) writer.push(r);
      await writer.flush();
      await check(target, rows);
      const more = Array.from({ length: 100 }, (_, i) => row(i + 5_000));
      for (const r of more) writer.push(r);
      await writer.close();
      await check(target, [...rows, ...more]);
      if (target !== handle) await target.close();
      await handle.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });
  },
);

describe('the writer thread’s settings', () => {
  it('reports a CORDON_QUERYLOG_PACE it cannot use to the resolver’s log and still writes every row', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cordon-pace-'));
    const connection = { sqlitePath: join(dir, 'q.db') };
    const setup = openDatabase(connection);
    await migrateToLatest(setup);
    await setup.close();
    const warnings: string[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => void warnings.push(JSON.parse(line).msg) });
    process.env.CORDON_QUERYLOG_PACE = 'lots';
    let writer: QueryLogWorkerWriter;
    try {
      // At normal priority (pacing on by default: 100 rows a slice).
      writer = new QueryLogWorkerWriter(connection, logger, { batchSize: 100, flushMs: 50, idleWriter: false });
    } finally {
      delete process.env.CORDON_QUERYLOG_PACE;
    }
    const rows = Array.from({ length: 250 }, (_, i) => queryLogRow(i));
    for (const r of rows) writer.push(r);
    await writer.flush();
    expect(warnings).toContain('CORDON_QUERYLOG_PACE must be a whole number from 0 to 10000 (got "lots"); using 100');
    expect(writer.stats).toMatchObject({ written: 250, dropped: 0 });
    await writer.close();
    rmSync(dir, { recursive: true, force: true });
  });
});
