import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrateToLatest, openDatabase } from '@cordon/db';
import { createTestDatabase, testDialects } from '@cordon/db/testing';
import { sql } from 'kysely';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { foldRollups, RollupBuffer } from '../src/querylog/rollup.ts';
import { QueryLogWorkerWriter } from '../src/querylog/threaded.ts';
import { flushRollups, insertQueryLogBatch, type QueryLogRow, QueryLogWriter } from '../src/querylog/writer.ts';

const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 10, 22, 10);
const row = (i: number, over: Partial<QueryLogRow> = {}): QueryLogRow => ({
  ts: T0 + (i % 2) * HOUR + i,
  customer_id: 1 + (i % 3 === 0 ? 1 : 0),
  location_id: i % 5 === 0 ? null : 7,
  policy_id: 3,
  client_ip: `10.0.0.${i % 4}`,
  qname: `q${i % 10}.example`,
  qtype: 'A',
  protocol: 'udp',
  action: i % 7 === 0 ? 'blocked' : i % 11 === 0 ? 'bypassed' : 'allowed',
  reason: 'default',
  categories: i % 7 === 0 ? '6,13' : i % 13 === 0 ? '5' : '',
  rcode: 'NOERROR',
  answer_source: 'upstream',
  latency_us: 10,
  // Every third row from a device, half of those with a user and a group (migration 0029).
  device_id: i % 3 === 1 ? 40 + (i % 2) : null,
  user_id: i % 6 === 1 ? 50 : null,
  user_name: i % 6 === 1 ? 'alice' : '',
  group_id: i % 6 === 1 ? 60 : null,
  ...over,
});

/** The `user` key the roll-ups must hold (docs/decisions.md "Query log identity"). */
const userOf = (r: QueryLogRow) =>
  r.user_name ? `u:${r.user_name}` : r.device_id != null ? `d:${r.device_id}` : `ip:${r.client_ip}`;

/** What the roll-up tables must hold for `rows`, recomputed naively. */
function expected(rows: QueryLogRow[]) {
  const hourly = new Map<string, number[]>();
  const top = new Map<string, number>();
  for (const r of rows) {
    const hour = r.ts - (r.ts % HOUR);
    const act = r.action === 'blocked' || r.action === 'bypassed' ? r.action : 'allowed';
    const k = `${r.customer_id}|${r.location_id ?? 0}|${hour}`;
    const h = hourly.get(k) ?? [0, 0, 0, 0];
    h[0]! += 1;
    h[act === 'allowed' ? 1 : act === 'blocked' ? 2 : 3]! += 1;
    hourly.set(k, h);
    const bump = (dim: string, key: string) => {
      const tk = `${r.customer_id}|${r.location_id ?? 0}|${hour}|${dim}|${act}|${key}`;
      top.set(tk, (top.get(tk) ?? 0) + 1);
    };
    bump('domain', r.qname);
    bump('sourceip', r.client_ip);
    bump('user', userOf(r));
    if (r.group_id != null) bump('group', String(r.group_id));
    if (r.policy_id !== null) bump('policy', String(r.policy_id));
    const cats = r.categories ? r.categories.split(',') : [];
    for (const c of cats) bump('category', c);
    if (cats.some((c) => c === '1' || c === '6')) {
      bump('malware_domain', r.qname);
      bump('malware_sourceip', r.client_ip);
      bump('malware_user', userOf(r));
    }
    if (cats.includes('5')) {
      bump('phishing_domain', r.qname);
      bump('phishing_sourceip', r.client_ip);
      bump('phishing_user', userOf(r));
    }
  }
  return { hourly, top };
}

describe('roll-up folding', () => {
  it('folds a batch into hourly counts and per-dimension counts, keys sorted', () => {
    const rows = Array.from({ length: 500 }, (_, i) => row(i));
    const d = foldRollups(rows);
    const want = expected(rows);
    expect(d.hourly.reduce((s, h) => s + h.requests, 0)).toBe(500);
    expect(d.hourly).toHaveLength(want.hourly.size);
    expect(d.top).toHaveLength(want.top.size);
    for (const t of d.top) {
      expect(t.count, `${t.dim} ${t.key}`).toBe(
        want.top.get(`${t.customer_id}|${t.location_id}|${t.hour}|${t.dim}|${t.action}|${t.key}`),
      );
    }
    // Primary-key order (customer, dim, hour, action, key, location): writers upsert in one order.
    const pk = (t: (typeof d.top)[number]) =>
      [t.customer_id, t.dim, t.hour, t.action, t.key, t.location_id] as Array<number | string>;
    const cmp = (a: Array<number | string>, b: Array<number | string>) => {
      for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
      return 0;
    };
    for (let i = 1; i < d.top.length; i++) expect(cmp(pk(d.top[i - 1]!), pk(d.top[i]!))).toBe(-1);
    const hk = (h: (typeof d.hourly)[number]) => [h.customer_id, h.hour, h.location_id];
    for (let i = 1; i < d.hourly.length; i++) expect(cmp(hk(d.hourly[i - 1]!), hk(d.hourly[i]!))).toBe(-1);
    expect(d.top.some((t) => t.dim === 'user' && t.key === 'u:alice')).toBe(true);
    expect(d.top.some((t) => t.dim === 'user' && t.key === 'd:40')).toBe(true);
    expect(d.top.some((t) => t.dim === 'group' && t.key === '60')).toBe(true);
  });

  it('gathers batches in a RollupBuffer: repeated keys collapse, counts add up', () => {
    const buffer = new RollupBuffer(1_000, 60_000);
    const rows = Array.from({ length: 300 }, (_, i) => row(i));
    buffer.add(rows.slice(0, 150));
    expect(buffer.due()).toBe(false);
    buffer.add(rows.slice(150));
    const d = buffer.take();
    const want = expected(rows);
    expect(d.top).toHaveLength(want.top.size);
    expect(d.hourly.map((h) => h.requests).reduce((a, b) => a + b, 0)).toBe(300);
    expect(buffer.pending).toBe(false);
    buffer.add(Array.from({ length: 1_000 }, (_, i) => row(i)));
    expect(buffer.due()).toBe(true);
  });

  it('a RollupBuffer is full once it holds maxKeys roll-up rows, whatever the rows', () => {
    const rows = Array.from({ length: 300 }, (_, i) => row(i));
    const keys = (rs: QueryLogRow[]) => {
      const want = expected(rs);
      return want.hourly.size + want.top.size;
    };
    const n = keys(rows);
    const atBound = new RollupBuffer(Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY, n);
    atBound.add(rows);
    expect(atBound.full).toBe(true);
    const above = new RollupBuffer(Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY, n + 1);
    above.add(rows);
    expect(above.full).toBe(false);
    // Repeated rows add no key.
    above.add(rows);
    expect(above.full).toBe(false);
    expect(above.rowCount).toBe(600);
    const d = above.take();
    expect(d.hourly.length + d.top.length).toBe(n);
    expect(d.hourly.reduce((s, h) => s + h.requests, 0)).toBe(600);
    expect(above.pending).toBe(false);
    // take() starts the key count again.
    above.add(rows.slice(0, 10));
    expect(above.full).toBe(false);
  });
});

describe.each(testDialects())('the writers keep the roll-ups on %s', (dialect) => {
  const check = async (handle: Awaited<ReturnType<typeof createTestDatabase>>, rows: QueryLogRow[]) => {
    const want = expected(rows);
    const hourly = await handle.db.selectFrom('stats_hourly').selectAll().execute();
    expect(hourly).toHaveLength(want.hourly.size);
    for (const h of hourly) {
      expect([h.requests, h.allowed, h.blocked, h.bypassed].map(Number)).toEqual(
        want.hourly.get(`${h.customer_id}|${h.location_id}|${h.hour}`),
      );
    }
    const top = await handle.db.selectFrom('stats_hourly_top').selectAll().execute();
    expect(top).toHaveLength(want.top.size);
    for (const t of top) {
      expect(Number(t.count)).toBe(
        want.top.get(`${t.customer_id}|${t.location_id}|${t.hour}|${t.dim}|${t.action}|${t.key}`),
      );
    }
  };

  it('keeps every character of the text columns and the identity columns (COPY escaping on PostgreSQL)', async () => {
    const handle = await createTestDatabase(dialect);
    const odd = 'a\\b\tc\nd\re\\N.example';
    const rows = [
      row(1, { qname: odd, user_name: 'dom\\alice', device_id: 4, user_id: 5, group_id: 6 }),
      row(2, { categories: '', user_name: '', device_id: null, user_id: null, group_id: null }),
      row(3),
    ];
    await insertQueryLogBatch(handle, rows, new RollupBuffer());
    const back = await handle.db
      .selectFrom('query_log')
      .select(['qname', 'user_name', 'device_id', 'user_id', 'group_id', 'location_id', 'categories'])
      .orderBy('id')
      .execute();
    expect(back).toEqual(
      rows.map((r) => ({
        qname: r.qname,
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

  it('roll-ups flushed every batch (in the background on PostgreSQL) equal the raw rows, per customer and per MSP', async () => {
    const handle = await createTestDatabase(dialect);
    const now = new Date().toISOString();
    await handle.db
      .insertInto('msps')
      .values({ id: 9, name: 'm', company_name: 'M', license: '', timezone: 'UTC', created_at: now, updated_at: now })
      .execute();
    for (const id of [1, 2])
      await handle.db
        .insertInto('customers')
        .values({
          id,
          msp_id: 9,
          account_name: `c${id}`,
          uuid_str: `c${id}`,
          timezone: 'UTC',
          created_at: now,
          updated_at: now,
        })
        .execute();
    const buffer = new RollupBuffer(100, 60_000);
    const rows = Array.from({ length: 2_000 }, (_, i) => row(i));
    for (let i = 0; i < rows.length; i += 50) await insertQueryLogBatch(handle, rows.slice(i, i + 50), buffer);
    await flushRollups(handle, buffer);
    expect(buffer.pending).toBe(false);
    await check(handle, rows);
    const want = new Map<string, number>();
    for (const [k, n] of expected(rows).top) {
      const [, , hour, dim, action, key] = k.split('|');
      const mk = `${hour}|${dim}|${action}|${key}`;
      want.set(mk, (want.get(mk) ?? 0) + n);
    }
    const msp = await handle.db.selectFrom('stats_hourly_msp_top').selectAll().execute();
    expect(msp).toHaveLength(want.size);
    for (const m of msp) {
      expect(m.msp_id).toBe(9);
      expect(Number(m.count)).toBe(want.get(`${m.hour}|${m.dim}|${m.action}|${m.key}`));
    }
    await handle.close();
  });

  it('a failed roll-up flush keeps the batch and is reported by the next flushRollups', async () => {
    const handle = await createTestDatabase(dialect);
    const buffer = new RollupBuffer(10, 60_000);
    const first = Array.from({ length: 10 }, (_, i) => row(i));
    await insertQueryLogBatch(handle, first, buffer);
    await flushRollups(handle, buffer);
    await sql`alter table stats_hourly rename to stats_hourly_away`.execute(handle.db);
    const lost = Array.from({ length: 10 }, (_, i) => row(i + 10));
    await insertQueryLogBatch(handle, lost, buffer); // the raw rows are written; the roll-ups fail
    expect(buffer.pending).toBe(true); // the failure (or, on PostgreSQL, the flush still running)
    await expect(flushRollups(handle, buffer)).rejects.toThrow(/stats_hourly/);
    expect(buffer.pending).toBe(false);
    await sql`alter table stats_hourly_away rename to stats_hourly`.execute(handle.db);
    const count = await handle.db
      .selectFrom('query_log')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(20);
    // The next rows roll up again; the failed flush's deltas are lost (the raw rows stay).
    const later = Array.from({ length: 10 }, (_, i) => row(i + 20));
    await insertQueryLogBatch(handle, later, buffer);
    await flushRollups(handle, buffer);
    await check(handle, [...first, ...later]);
    await handle.close();
  });

  it('QueryLogWriter: raw rows and roll-ups agree after flush', async () => {
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

  it('the writer thread: roll-ups are written by flush, and close writes the rest', async () => {
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
});
