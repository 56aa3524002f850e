import { testDialects } from '@cordon/db/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { call, createTenant, createTestApp, type TenantFixture, type TestApp } from '../../../test/helpers.ts';

/** Inserts one query-log row for a customer at an ISO instant. */
async function logQuery(t: TestApp, customerId: number, iso: string, qname: string, action: string) {
  await t.handle.db
    .insertInto('query_log')
    .values({
      ts: Date.parse(iso),
      customer_id: customerId,
      location_id: null,
      policy_id: null,
      client_ip: '10.1.0.1',
      qname,
      qtype: 'A',
      protocol: 'udp',
      action,
      reason: action === 'blocked' ? 'category' : 'default',
      categories: '',
      rcode: 'NOERROR',
      answer_source: 'upstream',
      latency_us: 100,
    })
    .execute();
}

describe.each(testDialects())('customer stats on %s', (dialect) => {
  let t: TestApp;
  let a: TenantFixture;
  let b: TenantFixture;
  beforeEach(async () => {
    // The clock is 2025-06-15T12:00Z; the fixture's customers are in Europe/Berlin (UTC+2 in June),
    // so "today" there is [2025-06-14T22:00Z, 2025-06-15T22:00Z).
    t = await createTestApp(dialect);
    a = await createTenant(t, 1);
    b = await createTenant(t, 2);
    await logQuery(t, a.customerId, '2025-06-14T21:59:59.999Z', 'late.example', 'allowed'); // yesterday
    await logQuery(t, a.customerId, '2025-06-14T22:00:00.000Z', 'a.example', 'allowed');
    await logQuery(t, a.customerId, '2025-06-15T10:30:00.000Z', 'bad.example', 'blocked');
    await logQuery(t, a.customerId, '2025-06-15T10:45:00.000Z', 'bad.example', 'bypassed');
    await logQuery(t, a.customerId, '2025-06-15T21:59:59.999Z', 'a.example', 'allowed');
    await logQuery(t, a.customerId, '2025-06-15T22:00:00.000Z', 'tomorrow.example', 'allowed'); // tomorrow
    await logQuery(t, b.customerId, '2025-06-15T11:00:00.000Z', 'other.example', 'blocked'); // another tenant
  });
  afterEach(async () => {
    await t.close();
  });

  const overview = async (date: string) => {
    const res = await call(t.app, a.customerToken, 'GET', `/restapi/users/${a.customerId}/stats/${date}`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };

  it('counts requests, unique domains, allowed (bypassed included) and blocked in the customer time zone', async () => {
    expect(await overview('today')).toEqual({ requests: 4, unique_domains: 2, allowed: 3, blocked: 1 });
    expect(await overview('yesterday')).toEqual({ requests: 1, unique_domains: 1, allowed: 1, blocked: 0 });
    expect(await overview('2025-06-14')).toEqual(await overview('yesterday'));
    expect(await overview('7days')).toEqual({ requests: 5, unique_domains: 3, allowed: 4, blocked: 1 });
    expect(await overview('2025-06-16')).toEqual({ requests: 1, unique_domains: 1, allowed: 1, blocked: 0 });
  });

  it('follows a change of the customer time zone', async () => {
    await call(t.app, t.rootToken, 'POST', `/restapi/users/${a.customerId}`, { timezone: '' });
    // UTC today is [2025-06-15T00:00Z, 2025-06-16T00:00Z).
    expect(await overview('today')).toEqual({ requests: 4, unique_domains: 3, allowed: 3, blocked: 1 });
  });

  it('answers 24 hourly traffic points for a day, zeros included', async () => {
    const res = await call(t.app, a.mspToken, 'GET', `/restapi/users/${a.customerId}/stats/traffic/today`);
    expect(res.statusCode, res.body).toBe(200);
    const { data } = res.json();
    expect(data).toHaveLength(24);
    expect(data[0]).toEqual({ time: '2025-06-14T22:00:00.000Z', allowed: 1, blocked: 0 });
    expect(data[12]).toEqual({ time: '2025-06-15T10:00:00.000Z', allowed: 1, blocked: 1 });
    expect(data[23]).toEqual({ time: '2025-06-15T21:00:00.000Z', allowed: 1, blocked: 0 });
    expect(data.reduce((s: number, p: { allowed: number; blocked: number }) => s + p.allowed + p.blocked, 0)).toBe(4);
  });

  it('refuses an impossible or unknown date with 400', async () => {
    for (const date of ['2025-02-30', 'tomorrow']) {
      const res = await call(t.app, a.customerToken, 'GET', `/restapi/users/${a.customerId}/stats/${date}`);
      expect(res.statusCode, date).toBe(400);
      expect(res.json().fields).toHaveProperty('date');
    }
  });
});
