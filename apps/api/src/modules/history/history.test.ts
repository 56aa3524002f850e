import { testDialects } from '@cordon/db/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { call, createTenant, createTestApp, type TenantFixture, type TestApp } from '../../../test/helpers.ts';
import { insertQueryLogRows } from '../../../test/query-log.ts';

describe.each(testDialects())('history on %s', (dialect) => {
  let t: TestApp;
  let a: TenantFixture;
  let b: TenantFixture;
  const row = (customerId: number, iso: string, qname: string, action: string, ip = '10.1.0.1') => ({
    ts: Date.parse(iso),
    customer_id: customerId,
    location_id: null,
    policy_id: null,
    client_ip: ip,
    qname,
    qtype: 'A',
    protocol: 'udp',
    action,
    reason: action === 'blocked' ? 'category' : 'default',
    categories: action === 'blocked' ? '1' : '',
    rcode: action === 'blocked' ? 'NXDOMAIN' : 'NOERROR',
    answer_source: 'upstream',
    latency_us: 100,
  });
  beforeEach(async () => {
    // Clock 2025-06-15T12:00Z; the customers are in Europe/Berlin, today = [06-14T22:00Z, 06-15T22:00Z).
    t = await createTestApp(dialect);
    a = await createTenant(t, 1);
    b = await createTenant(t, 2);
    await insertQueryLogRows(t.handle, [
      row(a.customerId, '2025-06-14T21:00:00Z', 'yesterday.example', 'allowed'),
      row(a.customerId, '2025-06-15T08:00:00Z', 'news.example', 'allowed'),
      row(a.customerId, '2025-06-15T09:00:00Z', 'ads.tracker.example', 'blocked', '10.1.0.7'),
      row(a.customerId, '2025-06-15T10:00:00Z', 'mail_100%.example', 'bypassed'),
      row(b.customerId, '2025-06-15T10:00:00Z', 'other.example', 'blocked'),
    ]);
  });
  afterEach(async () => {
    await t.close();
  });
  const search = async (path: string) => {
    const res = await call(t.app, a.customerToken, 'GET', `/restapi/users/${a.customerId}/history/${path}`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as { total: number; data: Array<Record<string, unknown>> };
  };

  it('lists the day newest first with categories, and filters by action', async () => {
    const all = await search('all/today');
    expect(all.total).toBe(3);
    expect(all.data.map((r) => r.qname)).toEqual(['mail_100%.example', 'ads.tracker.example', 'news.example']);
    expect(all.data[1]).toMatchObject({
      time: '2025-06-15T09:00:00.000Z',
      action: 'blocked',
      client_ip: '10.1.0.7',
      rcode: 'NXDOMAIN',
      categories: [{ id: 1 }],
    });
    expect((await search('blocked/today')).data.map((r) => r.qname)).toEqual(['ads.tracker.example']);
    expect((await search('allowed/today')).total).toBe(2);
    expect((await search('all/7days')).total).toBe(4);
  });

  it('searches, orders and pages', async () => {
    expect((await search('all/today?q=TRACKER')).data.map((r) => r.qname)).toEqual(['ads.tracker.example']);
    expect((await search('all/today?q=10.1.0.7')).total).toBe(1);
    // `%` and `_` are literal.
    expect((await search('all/today?q=_100%25')).data.map((r) => r.qname)).toEqual(['mail_100%.example']);
    expect((await search('all/today?q=%25')).total).toBe(1);
    const page = await search('all/today?order_by=qname&order_dir=asc&limit=1&offset=1');
    expect(page).toMatchObject({ total: 3, data: [{ qname: 'mail_100%.example' }] });
  });

  it('names the alias of the answer that blocked a query, and finds the query by it', async () => {
    await insertQueryLogRows(t.handle, [
      {
        ...row(a.customerId, '2025-06-15T11:00:00Z', 'cloak.example', 'blocked'),
        categories: '20',
        rcode: 'NOERROR',
        matched_name: 'cname-target.example',
      },
    ]);
    const blocked = await search('blocked/today');
    expect(blocked.data.map((r) => [r.qname, r.matched_name])).toEqual([
      ['cloak.example', 'cname-target.example'],
      ['ads.tracker.example', null],
    ]);
    expect(blocked.data[0]).toMatchObject({ reason: 'category', categories: [{ id: 20, name: 'Gambling' }] });
    expect((await search('all/today')).data.filter((r) => r.matched_name !== null)).toHaveLength(1);
    // `q` matches the matched name too (case-insensitive), not only the qname.
    expect((await search('all/today?q=CNAME-TARGET')).data.map((r) => r.qname)).toEqual(['cloak.example']);
  });

  it('refuses bad paging and another tenant', async () => {
    for (const q of ['limit=1001', 'limit=0', 'offset=-1', 'order_by=latency', 'order_dir=up']) {
      const res = await call(t.app, a.customerToken, 'GET', `/restapi/users/${a.customerId}/history/all/today?${q}`);
      expect(res.statusCode, q).toBe(400);
    }
    const bad = await call(t.app, a.customerToken, 'GET', `/restapi/users/${a.customerId}/history/denied/today`);
    expect(bad.statusCode).toBe(400);
    const foreign = await call(t.app, a.mspToken, 'GET', `/restapi/users/${b.customerId}/history/all/today`);
    expect(foreign.statusCode).toBe(404);
  });
});
