import { rollups } from '@cordon/core';
import type { QueryLogRow } from '@cordon/db';
import { testDialects } from '@cordon/db/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { call, createTenant, createTestApp, type TenantFixture, type TestApp } from '../../../test/helpers.ts';
import { insertQueryLogRows } from '../../../test/query-log.ts';

interface Row {
  iso: string;
  qname: string;
  action: string;
  ip?: string;
  categories?: string;
  location?: number | null;
}

/** Logs rows as the resolver's writer does: raw rows plus the hourly roll-ups, one transaction. */
async function logQueries(t: TestApp, customerId: number, rows: Row[]) {
  const out: QueryLogRow[] = rows.map((r) => ({
    ts: Date.parse(r.iso),
    customer_id: customerId,
    location_id: r.location ?? null,
    policy_id: null,
    client_ip: r.ip ?? '10.1.0.1',
    qname: r.qname,
    qtype: 'A',
    protocol: 'udp',
    action: r.action,
    reason: r.action === 'blocked' ? 'category' : 'default',
    categories: r.categories ?? '',
    rcode: 'NOERROR',
    answer_source: 'upstream',
    latency_us: 100,
  }));
  await insertQueryLogRows(t.handle, out);
}

type Point = { time: string; allowed: number; blocked: number };

describe.each(testDialects())('stats on %s', (dialect) => {
  let t: TestApp;
  let a: TenantFixture;
  let b: TenantFixture;
  const get = async (token: string, path: string) => {
    const res = await call(t.app, token, 'GET', `/restapi${path}`);
    expect(res.statusCode, `${path}: ${res.body}`).toBe(200);
    return res.json();
  };
  beforeEach(async () => {
    // The clock is 2025-06-15T12:00Z; the fixture's customers are in Europe/Berlin (UTC+2 in June),
    // so "today" there is [2025-06-14T22:00Z, 2025-06-15T22:00Z).
    t = await createTestApp(dialect);
    a = await createTenant(t, 1);
    b = await createTenant(t, 2);
    await logQueries(t, a.customerId, [
      { iso: '2025-06-14T21:59:59.999Z', qname: 'late.example', action: 'allowed' }, // yesterday
      { iso: '2025-06-14T22:00:00.000Z', qname: 'a.example', action: 'allowed', categories: '1' },
      { iso: '2025-06-15T10:30:00.000Z', qname: 'bad.example', action: 'blocked', categories: '1,2', ip: '10.1.0.9' },
      { iso: '2025-06-15T10:45:00.000Z', qname: 'bad.example', action: 'bypassed', categories: '1' },
      { iso: '2025-06-15T21:59:59.999Z', qname: 'a.example', action: 'allowed', location: a.locationId },
      { iso: '2025-06-15T22:00:00.000Z', qname: 'tomorrow.example', action: 'allowed' }, // tomorrow
    ]);
    await logQueries(t, b.customerId, [{ iso: '2025-06-15T11:00:00.000Z', qname: 'other.example', action: 'blocked' }]);
  });
  afterEach(async () => {
    await t.close();
  });

  const overview = (date: string) => get(a.customerToken, `/users/${a.customerId}/stats/${date}`);

  it('counts requests, unique domains, allowed (bypassed included) and blocked in the customer time zone', async () => {
    expect(await overview('today')).toEqual({ requests: 4, unique_domains: 2, allowed: 3, blocked: 1 });
    expect(await overview('yesterday')).toEqual({ requests: 1, unique_domains: 1, allowed: 1, blocked: 0 });
    expect(await overview('2025-06-14')).toEqual(await overview('yesterday'));
    expect(await overview('7days')).toEqual({ requests: 5, unique_domains: 3, allowed: 4, blocked: 1 });
    expect(await overview('2025-06-16')).toEqual({ requests: 1, unique_domains: 1, allowed: 1, blocked: 0 });
  });

  it('reads the roll-ups, not the raw rows', async () => {
    await t.handle.db.deleteFrom('query_log').execute();
    expect(await overview('today')).toEqual({ requests: 4, unique_domains: 2, allowed: 3, blocked: 1 });
  });

  it('answers an overview read again with the queries folded since (the fold moves the cache on)', async () => {
    expect(await overview('today')).toEqual({ requests: 4, unique_domains: 2, allowed: 3, blocked: 1 });
    await logQueries(t, a.customerId, [
      { iso: '2025-06-15T11:00:00.000Z', qname: 'new.example', action: 'blocked' },
      { iso: '2025-06-15T11:01:00.000Z', qname: 'a.example', action: 'allowed' },
    ]);
    expect(await overview('today')).toEqual({ requests: 6, unique_domains: 3, allowed: 4, blocked: 2 });
    // Another customer's queries move the same watermark: a's figures are read again, unchanged.
    await logQueries(t, b.customerId, [{ iso: '2025-06-15T11:02:00.000Z', qname: 'b.example', action: 'allowed' }]);
    expect(await overview('today')).toEqual({ requests: 6, unique_domains: 3, allowed: 4, blocked: 2 });
    expect(await get(b.customerToken, `/users/${b.customerId}/stats/today`)).toEqual({
      requests: 2,
      unique_domains: 2,
      allowed: 1,
      blocked: 1,
    });
  });

  it('follows a change of the customer time zone', async () => {
    await call(t.app, t.rootToken, 'POST', `/restapi/users/${a.customerId}`, { timezone: '' });
    // UTC today is [2025-06-15T00:00Z, 2025-06-16T00:00Z).
    expect(await overview('today')).toEqual({ requests: 4, unique_domains: 3, allowed: 3, blocked: 1 });
  });

  it('answers 24 hourly traffic points for a day, zeros included', async () => {
    const { data } = await get(a.mspToken, `/users/${a.customerId}/stats/traffic/today`);
    expect(data).toHaveLength(24);
    expect(data[0]).toEqual({ time: '2025-06-14T22:00:00.000Z', allowed: 1, blocked: 0 });
    expect(data[12]).toEqual({ time: '2025-06-15T10:00:00.000Z', allowed: 1, blocked: 1 });
    expect(data[23]).toEqual({ time: '2025-06-15T21:00:00.000Z', allowed: 1, blocked: 0 });
    expect(data.reduce((s: number, p: Point) => s + p.allowed + p.blocked, 0)).toBe(4);
  });

  it('counts across DST changes in two time zones (23- and 25-hour days)', async () => {
    // Berlin springs forward on 2025-03-30 (local midnight 2025-03-29T23:00Z, next 2025-03-30T22:00Z)
    // and falls back on 2024-10-27 (2024-10-26T22:00Z to 2024-10-27T23:00Z).
    await logQueries(t, a.customerId, [
      { iso: '2025-03-29T22:59:00Z', qname: 'before.example', action: 'allowed' },
      { iso: '2025-03-29T23:00:00Z', qname: 'first.example', action: 'allowed' },
      { iso: '2025-03-30T01:30:00Z', qname: 'cest.example', action: 'blocked' }, // 03:30 CEST
      { iso: '2025-03-30T21:59:00Z', qname: 'last.example', action: 'allowed' },
      { iso: '2025-03-30T22:00:00Z', qname: 'after.example', action: 'allowed' },
      { iso: '2024-10-26T22:00:00Z', qname: 'first.example', action: 'allowed' },
      { iso: '2024-10-27T00:30:00Z', qname: 'twice.example', action: 'allowed' }, // 02:30 CEST
      { iso: '2024-10-27T01:30:00Z', qname: 'twice.example', action: 'blocked' }, // 02:30 CET
      { iso: '2024-10-27T22:59:00Z', qname: 'last.example', action: 'allowed' },
    ]);
    const spring = await get(a.customerToken, `/users/${a.customerId}/stats/traffic/2025-03-30`);
    expect(spring.data).toHaveLength(23);
    expect(spring.data[0]).toEqual({ time: '2025-03-29T23:00:00.000Z', allowed: 1, blocked: 0 });
    expect(spring.data[2]).toEqual({ time: '2025-03-30T01:00:00.000Z', allowed: 0, blocked: 1 });
    expect(spring.data[22]).toEqual({ time: '2025-03-30T21:00:00.000Z', allowed: 1, blocked: 0 });
    expect(await overview('2025-03-30')).toEqual({ requests: 3, unique_domains: 3, allowed: 2, blocked: 1 });
    const autumn = await get(a.customerToken, `/users/${a.customerId}/stats/traffic/2024-10-27`);
    expect(autumn.data).toHaveLength(25);
    expect(autumn.data[2]).toEqual({ time: '2024-10-27T00:00:00.000Z', allowed: 1, blocked: 0 });
    expect(autumn.data[3]).toEqual({ time: '2024-10-27T01:00:00.000Z', allowed: 0, blocked: 1 });
    expect(await overview('2024-10-27')).toEqual({ requests: 4, unique_domains: 3, allowed: 3, blocked: 1 });

    // New York springs forward on 2025-03-09: [2025-03-09T05:00Z, 2025-03-10T04:00Z).
    const tz = await call(t.app, t.rootToken, 'POST', `/restapi/users/${b.customerId}`, {
      timezone: 'America/New_York',
    });
    expect(tz.statusCode, tz.body).toBe(200);
    await logQueries(t, b.customerId, [
      { iso: '2025-03-09T04:59:00Z', qname: 'before.example', action: 'allowed' },
      { iso: '2025-03-09T05:00:00Z', qname: 'first.example', action: 'blocked' },
      { iso: '2025-03-10T03:59:00Z', qname: 'last.example', action: 'allowed' },
      { iso: '2025-03-10T04:00:00Z', qname: 'after.example', action: 'allowed' },
    ]);
    const ny = await get(b.customerToken, `/users/${b.customerId}/stats/traffic/2025-03-09`);
    expect(ny.data).toHaveLength(23);
    expect(ny.data[0]).toEqual({ time: '2025-03-09T05:00:00.000Z', allowed: 0, blocked: 1 });
    expect(ny.data[22]).toEqual({ time: '2025-03-10T03:00:00.000Z', allowed: 1, blocked: 0 });
    expect(await get(b.customerToken, `/users/${b.customerId}/stats/2025-03-09`)).toEqual({
      requests: 2,
      unique_domains: 2,
      allowed: 1,
      blocked: 1,
    });
  });

  it('lists the top categories, domains and users by action', async () => {
    const top = (dim: string, action: string) =>
      get(a.customerToken, `/users/${a.customerId}/stats/${dim}/${action}/today`);
    const cats = await t.handle.db.selectFrom('categories').select(['id', 'name']).where('id', 'in', [1, 2]).execute();
    const name = (id: number) => cats.find((c) => c.id === id)?.name ?? String(id);
    expect(await top('categories', 'allowed')).toEqual({ data: [{ key: '1', name: name(1), count: 2 }] });
    expect(await top('categories', 'blocked')).toEqual({
      data: [
        { key: '1', name: name(1), count: 1 },
        { key: '2', name: name(2), count: 1 },
      ],
    });
    expect(await top('domains', 'allowed')).toEqual({
      data: [
        { key: 'a.example', name: 'a.example', count: 2 },
        { key: 'bad.example', name: 'bad.example', count: 1 },
      ],
    });
    expect(await top('users', 'blocked')).toEqual({ data: [{ key: 'ip:10.1.0.9', name: '10.1.0.9', count: 1 }] });
    const limited = await get(a.customerToken, `/users/${a.customerId}/stats/domains/allowed/today?limit=1`);
    expect(limited.data).toHaveLength(1);
    for (const bad of [
      '/stats/hosts/allowed/today',
      '/stats/domains/denied/today',
      '/stats/domains/allowed/today?limit=0',
    ]) {
      const res = await call(t.app, a.customerToken, 'GET', `/restapi/users/${a.customerId}${bad}`);
      expect(res.statusCode, bad).toBe(400);
    }
  });

  it('answers the last {days} days in the customer time zone, today last', async () => {
    const { data } = await get(a.customerToken, `/users/${a.customerId}/stats/history/5`);
    expect(data.map((d: { date: string }) => d.date)).toEqual([
      '2025-06-11',
      '2025-06-12',
      '2025-06-13',
      '2025-06-14',
      '2025-06-15',
    ]);
    expect(data[3]).toEqual({ date: '2025-06-14', requests: 1, allowed: 1, blocked: 0 });
    expect(data[4]).toEqual({ date: '2025-06-15', requests: 4, allowed: 3, blocked: 1 });
    for (const days of ['0', '32', 'x']) {
      const res = await call(t.app, a.customerToken, 'GET', `/restapi/users/${a.customerId}/stats/history/${days}`);
      expect(res.statusCode, days).toBe(400);
    }
  });

  it('sums an MSP over its customers and the system over every MSP', async () => {
    // The MSP has no time zone: its days are UTC days, [2025-06-15T00:00Z, 2025-06-16T00:00Z).
    expect(await get(a.mspToken, `/msp/${a.mspId}/stats/today`)).toEqual({
      requests: 4,
      unique_domains: 3,
      allowed: 3,
      blocked: 1,
    });
    const second = await call(t.app, t.rootToken, 'POST', '/restapi/users/', {
      accountName: 'Customer 1b',
      msp_id: a.mspId,
      timezone: 'Europe/Berlin',
    });
    expect(second.statusCode, second.body).toBe(201);
    await logQueries(t, second.json().id, [{ iso: '2025-06-15T09:00:00Z', qname: 'a.example', action: 'blocked' }]);
    expect(await get(a.mspToken, `/msp/${a.mspId}/stats/today`)).toEqual({
      requests: 5,
      unique_domains: 3,
      allowed: 3,
      blocked: 2,
    });
    const mspTop = await get(a.mspToken, `/msp/${a.mspId}/stats/domains/blocked/today`);
    expect(mspTop.data).toEqual([
      { key: 'a.example', name: 'a.example', count: 1 },
      { key: 'bad.example', name: 'bad.example', count: 1 },
    ]);
    // The system reads UTC days: 2025-06-15T00:00Z to 2025-06-16T00:00Z.
    expect(await get(t.rootToken, '/stats/today')).toEqual({ requests: 6, unique_domains: 4, allowed: 3, blocked: 3 });
    const sys = await get(t.rootToken, '/stats/traffic/today');
    expect(sys.data).toHaveLength(24);
    expect(sys.data[11]).toEqual({ time: '2025-06-15T11:00:00.000Z', allowed: 0, blocked: 1 });
    const hist = await get(t.rootToken, '/stats/history/2');
    expect(hist.data[1]).toEqual({ date: '2025-06-15', requests: 6, allowed: 3, blocked: 3 });
    expect((await get(t.rootToken, '/stats/users/blocked/today')).data).toHaveLength(2);
    // An MSP admin sees its own MSP only; the system routes are the system's.
    expect((await call(t.app, a.mspToken, 'GET', `/restapi/msp/${b.mspId}/stats/today`)).statusCode).toBe(404);
    expect((await call(t.app, a.mspToken, 'GET', '/restapi/stats/today')).statusCode).toBe(403);
  });

  it('answers a location between start and end', async () => {
    const path = `/users/${a.customerId}/locations/${a.locationId}/stats`;
    expect(await get(a.customerToken, path)).toEqual({ requests: 1, unique_domains: 1, allowed: 1, blocked: 0 });
    expect(await get(a.customerToken, `${path}?start=2025-06-01&end=2025-06-14`)).toEqual({
      requests: 0,
      unique_domains: 0,
      allowed: 0,
      blocked: 0,
    });
    expect(await get(a.customerToken, `${path}/domains/allowed?start=2025-06-14&end=2025-06-15`)).toEqual({
      data: [{ key: 'a.example', name: 'a.example', count: 1 }],
    });
    const bad = await call(t.app, a.customerToken, 'GET', `/restapi${path}?start=2025-06-15&end=2025-06-01`);
    expect(bad.statusCode).toBe(400);
    expect(bad.json().fields).toHaveProperty('start');
    const foreign = await call(
      t.app,
      a.customerToken,
      'GET',
      `/restapi/users/${a.customerId}/locations/${b.locationId}/stats`,
    );
    expect(foreign.statusCode).toBe(404);
  });

  it('reads whole past days from the daily roll-ups once compacted, with the same answers', async () => {
    await logQueries(t, a.customerId, [
      { iso: '2025-06-10T09:00:00Z', qname: 'a.example', action: 'allowed', categories: '1' },
      { iso: '2025-06-11T09:00:00Z', qname: 'old.example', action: 'blocked', categories: '2', ip: '10.1.0.9' },
      { iso: '2025-06-12T23:30:00Z', qname: 'old.example', action: 'allowed' },
    ]);
    const read = async () => ({
      overview: await overview('7days'),
      domains: await get(a.customerToken, `/users/${a.customerId}/stats/domains/allowed/7days`),
      blocked: await get(a.customerToken, `/users/${a.customerId}/stats/categories/blocked/7days`),
      msp: await get(a.mspToken, `/msp/${a.mspId}/stats/domains/blocked/30days`),
      mspOverview: await get(a.mspToken, `/msp/${a.mspId}/stats/7days`),
      system: await get(t.rootToken, '/stats/domains/allowed/7days'),
      systemOverview: await get(t.rootToken, '/stats/30days'),
    });
    const before = await read();
    expect(before.overview).toEqual({ requests: 8, unique_domains: 4, allowed: 6, blocked: 2 });
    expect(before.systemOverview).toEqual({ requests: 10, unique_domains: 6, allowed: 7, blocked: 3 });
    const days = await rollups.compactDays({
      handle: t.handle,
      changes: t.changes,
      now: () => t.clock.now,
      secrets: t.secrets,
    });
    // Every UTC day from 2025-06-10 to 2025-06-14 (the 15th has not ended).
    expect(days.map((d) => new Date(d).toISOString().slice(0, 10))).toEqual([
      '2025-06-10',
      '2025-06-11',
      '2025-06-12',
      '2025-06-13',
      '2025-06-14',
    ]);
    expect(
      await rollups.compactDays({ handle: t.handle, changes: t.changes, now: () => t.clock.now, secrets: t.secrets }),
    ).toEqual([]);
    // Only MSP 1 has traffic on the compacted days (MSP 2's one query is today's).
    expect(await t.handle.db.selectFrom('stats_daily_msp_top').select('msp_id').distinct().execute()).toEqual([
      { msp_id: a.mspId },
    ]);
    // The hourly rows of the compacted days are no longer read: remove them, the answers stay.
    await t.handle.db.deleteFrom('stats_hourly_top').where('hour', '<', Date.parse('2025-06-15T00:00:00Z')).execute();
    expect(await read()).toEqual(before);
  });

  it('refuses an impossible or unknown date with 400', async () => {
    for (const date of ['2025-02-30', 'tomorrow', '2025-06-17']) {
      const res = await call(t.app, a.customerToken, 'GET', `/restapi/users/${a.customerId}/stats/${date}`);
      expect(res.statusCode, date).toBe(400);
      expect(res.json().fields).toHaveProperty('date');
    }
  });
});
