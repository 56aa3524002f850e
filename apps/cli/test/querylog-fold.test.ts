import { rollups } from '@cordon/core';
import type { DatabaseHandle, QueryLogRow } from '@cordon/db';
import { createTestDatabase, testDialects } from '@cordon/db/testing';
import { insertQueryLogRaw } from '@cordon/resolver';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { HOUR, queryLogRow } from '../../resolver/test/helpers/query-log-rows.ts';

/*
 * The roll-up fold (docs/architecture.md "Statistics"): the writers append raw rows, the worker folds
 * them into the hourly roll-ups past a watermark, exactly once. The contract of two roles — the
 * resolver's insert (`insertQueryLogRaw`) and the worker's fold (`rollups` of @cordon/core) — so it is
 * tested here, where the roles are composed (docs/decisions.md "Apps import no app").
 */

const row = queryLogRow;

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
    const d = rollups.foldRollups(rows);
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

  it('sums the per-MSP deltas over customers and locations, leaves out unknown customers, in key order', () => {
    const rows = Array.from({ length: 2_000 }, (_, i) =>
      row(i, { customer_id: 1 + (i % 5), qname: `q${i % 37}.example` }),
    );
    const top = rollups.foldRollups(rows).top;
    // Customers 1 and 3 of MSP 7, 2 and 4 of MSP 8; customer 5 gone meanwhile.
    const mspOf = new Map([
      [1, 7],
      [2, 8],
      [3, 7],
      [4, 8],
    ]);
    const want = new Map<string, number>();
    for (const t of top) {
      const msp = mspOf.get(t.customer_id);
      if (msp === undefined) continue;
      const id = `${msp}|${t.dim}|${t.hour}|${t.action}|${t.key}`;
      want.set(id, (want.get(id) ?? 0) + t.count);
    }
    const got = rollups.mspTopDeltas(top, mspOf);
    expect(got).toHaveLength(want.size);
    for (const m of got) expect(m.count).toBe(want.get(`${m.msp_id}|${m.dim}|${m.hour}|${m.action}|${m.key}`));
    expect(got.reduce((s, m) => s + m.count, 0)).toBe(
      top.filter((t) => mspOf.has(t.customer_id)).reduce((s, t) => s + t.count, 0),
    );
    const pk = (m: (typeof got)[number]) => [m.msp_id, m.dim, m.hour, m.action, m.key] as Array<number | string>;
    for (let i = 1; i < got.length; i++) {
      const [a, b] = [pk(got[i - 1]!), pk(got[i]!)];
      const k = a.findIndex((v, j) => v !== b[j]);
      expect(k, 'keys unique').toBeGreaterThanOrEqual(0);
      expect(a[k]! < b[k]!, `${a} before ${b}`).toBe(true);
    }
  });
});

/** An MSP (9) with customers 1 and 2, for the per-MSP roll-ups. */
async function seedTenants(handle: DatabaseHandle): Promise<void> {
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
}

/** The roll-up tables hold exactly what `rows` make, per customer and per MSP. */
async function check(handle: DatabaseHandle, rows: QueryLogRow[]): Promise<void> {
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
  const mspWant = new Map<string, number>();
  for (const [k, n] of want.top) {
    const [, , hour, dim, action, key] = k.split('|');
    const mk = `${hour}|${dim}|${action}|${key}`;
    mspWant.set(mk, (mspWant.get(mk) ?? 0) + n);
  }
  const msp = await handle.db.selectFrom('stats_hourly_msp_top').selectAll().execute();
  expect(msp).toHaveLength(mspWant.size);
  for (const m of msp) expect(Number(m.count)).toBe(mspWant.get(`${m.hour}|${m.dim}|${m.action}|${m.key}`));
}

const watermark = async (handle: DatabaseHandle) =>
  Number((await handle.db.selectFrom('query_log_fold').select('last_id').executeTakeFirstOrThrow()).last_id);

describe.each(testDialects())('the worker folds the query log on %s', (dialect) => {
  it('folds every row once, in transactions of maxRows, and moves the watermark to the last id', async () => {
    const handle = await createTestDatabase(dialect);
    await seedTenants(handle);
    const rows = Array.from({ length: 2_000 }, (_, i) => row(i));
    for (let i = 0; i < rows.length; i += 250) await insertQueryLogRaw(handle, rows.slice(i, i + 250));
    expect(await watermark(handle)).toBe(0);
    expect(await rollups.foldedThrough(handle, Date.now())).toBe(rows[0]!.ts);
    const calls: number[] = [];
    for (;;) {
      const r = await rollups.foldQueryLog(handle, { maxRows: 700 });
      if (r.rows === 0) break;
      calls.push(r.rows);
    }
    expect(calls).toEqual([700, 700, 600]);
    const maxId = await handle.db
      .selectFrom('query_log')
      .select((eb) => eb.fn.max('id').as('m'))
      .executeTakeFirstOrThrow();
    expect(await watermark(handle)).toBe(Number(maxId.m));
    expect(await rollups.foldedThrough(handle, 123)).toBe(123);
    await check(handle, rows);
    // Nothing waits: another fold changes nothing.
    expect(await rollups.foldQueryLog(handle)).toMatchObject({ rows: 0 });
    await check(handle, rows);
    await handle.close();
  });

  it('folds started at once count each row once', async () => {
    const handle = await createTestDatabase(dialect);
    await seedTenants(handle);
    const rows = Array.from({ length: 3_000 }, (_, i) => row(i));
    for (let i = 0; i < rows.length; i += 500) await insertQueryLogRaw(handle, rows.slice(i, i + 500));
    const folded = await Promise.all([0, 1, 2, 3].map(() => rollups.foldQueryLogAll(handle)));
    expect(folded.reduce((a, b) => a + b, 0)).toBe(3_000);
    await check(handle, rows);
    await handle.close();
  });

  // Small windows, so each pass reads a window ahead while it writes the one before (PostgreSQL) and
  // the passes' windows overlap: a window read ahead is written only if the watermark is still where
  // it starts.
  it('passes started at once, each reading a window ahead, count each row once', async () => {
    const handle = await createTestDatabase(dialect);
    await seedTenants(handle);
    const rows = Array.from({ length: 3_000 }, (_, i) => row(i));
    for (let i = 0; i < rows.length; i += 500) await insertQueryLogRaw(handle, rows.slice(i, i + 500));
    const folded = await Promise.all([0, 1, 2, 3].map(() => rollups.foldQueryLogAll(handle, { maxRows: 150 })));
    expect(folded.reduce((a, b) => a + b, 0)).toBe(3_000);
    expect(folded.every((n) => n % 150 === 0)).toBe(true);
    await check(handle, rows);
    await handle.close();
  });

  it.each([
    ['one fold', (h: DatabaseHandle) => rollups.foldQueryLog(h, { maxRows: 50 })],
    // On PostgreSQL the pass's first window fails to write while it reads the next one ahead.
    ['a pass reading a window ahead', (h: DatabaseHandle) => rollups.foldQueryLogAll(h, { maxRows: 50 })],
  ])('%s that fails keeps nothing and moves no watermark; the next one counts every row', async (_, fold) => {
    const handle = await createTestDatabase(dialect);
    await seedTenants(handle);
    const rows = Array.from({ length: 400 }, (_, i) => row(i));
    await insertQueryLogRaw(handle, rows.slice(0, 100));
    expect(await rollups.foldQueryLogAll(handle, { maxRows: 50 })).toBe(100);
    const mark = await watermark(handle);
    await insertQueryLogRaw(handle, rows.slice(100));
    await sql`alter table stats_hourly_msp_top rename to stats_hourly_msp_top_away`.execute(handle.db);
    await expect(fold(handle)).rejects.toThrow(/stats_hourly_msp_top/);
    expect(await watermark(handle)).toBe(mark);
    await sql`alter table stats_hourly_msp_top_away rename to stats_hourly_msp_top`.execute(handle.db);
    expect(await rollups.foldQueryLogAll(handle, { maxRows: 50 })).toBe(300);
    await check(handle, rows);
    await handle.close();
  });

  it('the fold loop folds on its timer and on foldNow, then stops on close', async () => {
    const handle = await createTestDatabase(dialect);
    await seedTenants(handle);
    const folder = rollups.startQueryLogFolder(handle, { intervalMs: 50 });
    const rows = Array.from({ length: 300 }, (_, i) => row(i));
    await insertQueryLogRaw(handle, rows.slice(0, 100));
    await expect.poll(() => watermark(handle), { timeout: 5_000 }).toBeGreaterThan(0);
    await insertQueryLogRaw(handle, rows.slice(100));
    await folder.foldNow();
    await check(handle, rows);
    await folder.close();
    await handle.close();
  });

  // PostgreSQL only: SQLite assigns ids inside its one write transaction at a time.
  if (dialect === 'postgres')
    it('never folds past an insert still in flight: the write lock orders ids (PostgreSQL)', async () => {
      const handle = await createTestDatabase(dialect);
      await seedTenants(handle);
      const pool = handle.pgPool!;
      const anonymous = { device_id: null, user_id: null, user_name: '', group_id: null };
      const rows = Array.from({ length: 60 }, (_, i) => row(i, anonymous));
      // A writer's transaction takes the lower ids and stays open …
      const slow = await pool.connect();
      await slow.query('begin');
      await slow.query('select pg_advisory_xact_lock_shared($1, $2)', [0x716c6f67, 1]);
      for (const r of rows.slice(0, 20)) {
        await slow.query(
          `insert into query_log (ts, customer_id, location_id, policy_id, client_ip, qname, qtype, protocol, action,
            reason, categories, rcode, answer_source, latency_us, user_name)
           values ($1, $2, $3, $4, $5, $6, 'A', 'udp', $7, 'default', $8, 'NOERROR', 'upstream', 1, '')`,
          [r.ts, r.customer_id, r.location_id, r.policy_id, r.client_ip, r.qname, r.action, r.categories],
        );
      }
      // … while another writer commits higher ids.
      await insertQueryLogRaw(handle, rows.slice(20));
      let foldDone = false;
      const fold = rollups.foldQueryLogAll(handle).then((n) => {
        foldDone = true;
        return n;
      });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(foldDone).toBe(false); // waiting for the exclusive hold of the lock
      await slow.query('commit');
      slow.release();
      expect(await fold).toBe(60);
      await check(handle, rows);
      await handle.close();
    });
});
