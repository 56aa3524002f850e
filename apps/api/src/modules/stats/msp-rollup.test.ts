import { rollups } from '@cordon/core';
import type { QueryLogRow } from '@cordon/db';
import { testDialects } from '@cordon/db/testing';
import { type Kysely, sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { up as upMspHourly } from '../../../../../packages/db/src/migrations/0033_hourly_msp_rollups.ts';
import { call, createTenant, createTestApp, type TenantFixture, type TestApp } from '../../../test/helpers.ts';
import { insertQueryLogRows } from '../../../test/query-log.ts';

const HOUR = 3_600_000;
const DOMAINS = ['a.example', 'b.example', 'c.example', 'd.example'];

/** Rows of `customerId` over 2025-06-10T00Z … 2025-06-15T11Z, one every 5 hours plus `shift`. */
function rowsOf(customerId: number, shift: number): QueryLogRow[] {
  const out: QueryLogRow[] = [];
  for (let i = 0; shift + i * 5 < 5 * 24 + 12; i++) {
    const n = i + customerId;
    out.push({
      ts: Date.UTC(2025, 5, 10) + (shift + i * 5) * HOUR + 60_000,
      customer_id: customerId,
      location_id: null,
      policy_id: null,
      client_ip: `10.0.0.${n % 3}`,
      qname: DOMAINS[n % DOMAINS.length]!,
      qtype: 'A',
      protocol: 'udp',
      action: n % 3 === 0 ? 'blocked' : n % 7 === 0 ? 'bypassed' : 'allowed',
      reason: 'default',
      categories: n % 3 === 0 ? '2' : n % 2 === 0 ? '1' : '',
      rcode: 'NOERROR',
      answer_source: 'upstream',
      latency_us: 10,
    });
  }
  return out;
}

/** The stats of `rows` within `[from, to)` as the API answers them (overview, blocked and allowed domains). */
function expected(rows: QueryLogRow[], from: number, to: number) {
  const r = rows.filter((x) => x.ts >= from && x.ts < to);
  const tops = (blocked: boolean) => {
    const m = new Map<string, number>();
    for (const x of r) if ((x.action === 'blocked') === blocked) m.set(x.qname, (m.get(x.qname) ?? 0) + 1);
    return [...m]
      .sort((p, q) => q[1] - p[1] || (p[0] < q[0] ? -1 : 1))
      .map(([key, count]) => ({ key, name: key, count }));
  };
  const blocked = r.filter((x) => x.action === 'blocked').length;
  return {
    overview: {
      requests: r.length,
      unique_domains: new Set(r.map((x) => x.qname)).size,
      allowed: r.length - blocked,
      blocked,
    },
    blocked: tops(true),
    allowed: tops(false),
  };
}

/**
 * MSP and system stats read `stats_hourly_msp_top` (migration 0033): the writer fills it with the
 * per-customer rows summed per MSP, the daily job folds it, and the answers equal the sums over the
 * customers' rows, before and after compaction, and after the migration's backfill.
 */
describe.each(testDialects())('per-MSP hourly roll-ups on %s', (dialect) => {
  let t: TestApp;
  let a: TenantFixture;
  let b: TenantFixture;
  let a2: number;
  const logged: QueryLogRow[] = [];
  const get = async (token: string, path: string) => {
    const res = await call(t.app, token, 'GET', `/restapi${path}`);
    expect(res.statusCode, `${path}: ${res.body}`).toBe(200);
    return res.json();
  };
  /** The per-customer rows summed per the customer's MSP, as sorted JSON lines. */
  const sumOverCustomers = async () =>
    (
      await sql<Record<string, unknown>>`select c.msp_id, t.hour, t.dim, t.action, t.key, sum(t.count) as count
        from stats_hourly_top t join customers c on c.id = t.customer_id
        group by c.msp_id, t.hour, t.dim, t.action, t.key`.execute(t.handle.db)
    ).rows
      .map((r) => JSON.stringify([r.msp_id, r.hour, r.dim, r.action, r.key, r.count].map(String)))
      .sort();
  const mspTable = async () =>
    (await t.handle.db.selectFrom('stats_hourly_msp_top').selectAll().execute())
      .map((r) => JSON.stringify([r.msp_id, r.hour, r.dim, r.action, r.key, r.count].map(String)))
      .sort();

  beforeEach(async () => {
    // The clock is 2025-06-15T12:00Z; MSP and system days are UTC days.
    t = await createTestApp(dialect);
    a = await createTenant(t, 1);
    b = await createTenant(t, 2);
    const second = await call(t.app, t.rootToken, 'POST', '/restapi/users/', {
      accountName: 'Customer 1b',
      msp_id: a.mspId,
      timezone: 'Europe/Berlin',
    });
    expect(second.statusCode, second.body).toBe(201);
    a2 = second.json().id;
    logged.length = 0;
    for (const [id, shift] of [
      [a.customerId, 0],
      [a2, 2],
      [b.customerId, 3],
    ] as const) {
      const rows = rowsOf(id, shift);
      // Two batches: the second adds to the rows the first wrote.
      await insertQueryLogRows(t.handle, rows.slice(0, 10));
      await insertQueryLogRows(t.handle, rows.slice(10));
      logged.push(...rows);
    }
  });
  afterEach(async () => {
    await t.close();
  });

  it('writes the per-MSP sums of the per-customer rows', async () => {
    const want = await sumOverCustomers();
    expect(want.length).toBeGreaterThan(0);
    expect(await mspTable()).toEqual(want);
    // The migration's backfill of existing hours gives the same rows.
    await sql`drop table stats_hourly_msp_top`.execute(t.handle.db);
    await upMspHourly(t.handle.db as unknown as Kysely<unknown>, dialect);
    expect(await mspTable()).toEqual(want);
  });

  it('answers MSP and system stats as the sums over customers, before and after compaction', async () => {
    const ofMsp = (mspId: number) =>
      logged.filter((r) => (mspId === a.mspId ? [a.customerId, a2] : [b.customerId]).includes(r.customer_id));
    const today = [Date.UTC(2025, 5, 15), Date.UTC(2025, 5, 16)] as const;
    const week = [Date.UTC(2025, 5, 9), Date.UTC(2025, 5, 16)] as const;
    const month = [Date.UTC(2025, 4, 17), Date.UTC(2025, 5, 16)] as const;
    const read = async () => {
      const out: Record<string, unknown> = {};
      for (const [name, token, base] of [
        ['mspA', a.mspToken, `/msp/${a.mspId}/stats`],
        ['mspB', b.mspToken, `/msp/${b.mspId}/stats`],
        ['system', t.rootToken, '/stats'],
      ] as const) {
        for (const period of ['today', '7days', '30days'] as const) {
          out[`${name} ${period}`] = {
            overview: await get(token, `${base}/${period}`),
            blocked: (await get(token, `${base}/domains/blocked/${period}`)).data,
            allowed: (await get(token, `${base}/domains/allowed/${period}`)).data,
          };
        }
      }
      return out;
    };
    const want: Record<string, unknown> = {};
    for (const [name, rows] of [
      ['mspA', ofMsp(a.mspId)],
      ['mspB', ofMsp(b.mspId)],
      ['system', logged],
    ] as const) {
      want[`${name} today`] = expected(rows, ...today);
      want[`${name} 7days`] = expected(rows, ...week);
      want[`${name} 30days`] = expected(rows, ...month);
    }
    expect(await read()).toEqual(want);
    const deps = { handle: t.handle, changes: t.changes, now: () => t.clock.now, secrets: t.secrets };
    // The ended hours of the last 48 summarized per MSP (migration 0034): the same answers.
    expect(await rollups.summarizeMspPeriods(deps)).toHaveLength(48);
    expect(await t.handle.db.selectFrom('stats_msp_summary').select('msp_id').distinct().execute()).not.toEqual([]);
    expect(await read()).toEqual(want);
    expect(await rollups.compactDays(deps)).toHaveLength(5);
    // The compacted days are summarized with them; their hours' summaries go: today's 00–10 h stay
    // (11 h ended less than 5 minutes before the clock's 12:00).
    expect(
      await t.handle.db.selectFrom('stats_msp_summary_done').select('start').where('hours', '=', 1).execute(),
    ).toHaveLength(11);
    expect(await read()).toEqual(want);
    // Summaries of days compacted before migration 0034 are written by the job.
    await t.handle.db.deleteFrom('stats_msp_summary_done').where('hours', '=', 24).execute();
    expect((await rollups.summarizeMspPeriods(deps)).filter((p) => p.hours === 24)).toHaveLength(5);
    // The daily MSP rows are the per-MSP hours folded: remove the compacted hours, the answers stay.
    const cut = Date.UTC(2025, 5, 15);
    await t.handle.db.deleteFrom('stats_hourly_top').where('hour', '<', cut).execute();
    await t.handle.db.deleteFrom('stats_hourly_msp_top').where('hour', '<', cut).execute();
    expect(await read()).toEqual(want);
    // Retention removes the per-MSP hours with the others.
    await rollups.applyRetention(
      { ...deps, now: () => Date.UTC(2026, 8, 1) },
      { logRetentionDays: 30, rollupRetentionMonths: 1 },
    );
    expect(await mspTable()).toEqual([]);
    expect(await t.handle.db.selectFrom('stats_msp_summary').selectAll().execute()).toEqual([]);
    expect(await t.handle.db.selectFrom('stats_msp_rank').selectAll().execute()).toEqual([]);
  });

  it('ranks many keys exactly from the per-MSP summaries and estimates unique domains within 3 %', async () => {
    // MSP A: per hour of 06-12 … 06-15T11, 300 Zipf-skewed allowed domains (more than the 200 kept
    // per period), one domain that is first on 06-13 only and last elsewhere (absent from most
    // periods' top keys), and 250 blocked domains of equal counts (no bound separates them).
    const rows: Array<{ msp_id: number; hour: number; dim: string; action: string; key: string; count: number }> = [];
    for (let hour = Date.UTC(2025, 5, 12); hour < Date.UTC(2025, 5, 15, 12); hour += HOUR) {
      const spike = hour >= Date.UTC(2025, 5, 13) && hour < Date.UTC(2025, 5, 14);
      for (let i = 0; i < 300; i++) {
        rows.push({
          msp_id: a.mspId,
          hour,
          dim: 'domain',
          action: 'allowed',
          key: `k${i}.example`,
          count: Math.floor(1000 / (i + 1)),
        });
      }
      rows.push({
        msp_id: a.mspId,
        hour,
        dim: 'domain',
        action: 'bypassed',
        key: 'spike.example',
        count: spike ? 5000 : 1,
      });
      for (let i = 0; i < 250; i++) {
        rows.push({ msp_id: a.mspId, hour, dim: 'domain', action: 'blocked', key: `b${i}.example`, count: 1 });
      }
    }
    for (let i = 0; i < rows.length; i += 1000) {
      await t.handle.db
        .insertInto('stats_hourly_msp_top')
        .values(rows.slice(i, i + 1000))
        .execute();
    }
    /** The exact answer: the per-MSP hourly rows of `[from, to)` summed, as MSP A's or the system's. */
    const truth = async (mspId: number | null, from: number, to: number) => {
      let q = t.handle.db
        .selectFrom('stats_hourly_msp_top')
        .select(['key', 'action', 'count'])
        .where('dim', '=', 'domain')
        .where('hour', '>=', from)
        .where('hour', '<', to);
      if (mspId !== null) q = q.where('msp_id', '=', mspId);
      const all = await q.execute();
      const tops = (blocked: boolean) => {
        const m = new Map<string, number>();
        for (const r of all)
          if ((r.action === 'blocked') === blocked) m.set(r.key, (m.get(r.key) ?? 0) + Number(r.count));
        return [...m]
          .sort((p, q) => q[1] - p[1] || (p[0] < q[0] ? -1 : 1))
          .slice(0, 100)
          .map(([key, count]) => ({ key, name: key, count }));
      };
      return { unique: new Set(all.map((r) => r.key)).size, allowed: tops(false), blocked: tops(true) };
    };
    const periods = {
      today: [Date.UTC(2025, 5, 15), Date.UTC(2025, 5, 16)],
      '7days': [Date.UTC(2025, 5, 9), Date.UTC(2025, 5, 16)],
      '30days': [Date.UTC(2025, 4, 17), Date.UTC(2025, 5, 16)],
    } as const;
    const want: Record<string, Awaited<ReturnType<typeof truth>>> = {};
    for (const [period, [from, to]] of Object.entries(periods)) {
      want[`msp ${period}`] = await truth(a.mspId, from, to);
      want[`system ${period}`] = await truth(null, from, to);
    }
    expect(want['msp 7days']!.allowed[0]).toEqual({
      key: 'spike.example',
      name: 'spike.example',
      count: 24 * 5000 + 60,
    });
    const check = async (estimated: boolean) => {
      for (const [name, token, base] of [
        ['msp', a.mspToken, `/msp/${a.mspId}/stats`],
        ['system', t.rootToken, '/stats'],
      ] as const) {
        for (const period of Object.keys(periods)) {
          const w = want[`${name} ${period}`]!;
          const label = `${name} ${period}`;
          expect((await get(token, `${base}/domains/allowed/${period}?limit=100`)).data, label).toEqual(w.allowed);
          expect((await get(token, `${base}/domains/blocked/${period}?limit=100`)).data, label).toEqual(w.blocked);
          const unique = (await get(token, `${base}/${period}`)).unique_domains;
          if (estimated)
            expect(Math.abs(unique - w.unique), `${label}: ${unique} vs ${w.unique}`).toBeLessThanOrEqual(
              w.unique * 0.03,
            );
          else expect(unique, label).toBe(w.unique);
        }
      }
    };
    await check(false);
    const deps = { handle: t.handle, changes: t.changes, now: () => t.clock.now, secrets: t.secrets };
    await rollups.summarizeMspPeriods(deps);
    await check(true);
    await rollups.compactDays(deps);
    await rollups.summarizeMspPeriods(deps);
    expect(
      await t.handle.db.selectFrom('stats_msp_rank').select('hours').where('hours', '=', 24).execute(),
    ).not.toEqual([]);
    await check(true);
    // Tenancy: MSP B sees none of MSP A's keys, nor MSP A's stats.
    const other = (await get(b.mspToken, `/msp/${b.mspId}/stats/domains/allowed/7days?limit=100`)).data;
    expect(
      other.map((r: { key: string }) => r.key).filter((k: string) => k.startsWith('k') || k === 'spike.example'),
    ).toEqual([]);
    const denied = await call(t.app, b.mspToken, 'GET', `/restapi/msp/${a.mspId}/stats/7days`);
    expect(denied.statusCode).toBe(404);
  });
});
