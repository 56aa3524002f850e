import type { QueryLogRow } from '@cordon/db';
import { testDialects } from '@cordon/db/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { call, createTenant, createTestApp, type TenantFixture, type TestApp } from '../../../test/helpers.ts';
import { insertQueryLogRows } from '../../../test/query-log.ts';

/**
 * The history's exact filters (issue 29 "Drill-down": a dashboard's number or top-list entry opens
 * the history filtered to it): `domain`, `category`, `location`, `device`, `user` and `client_ip`,
 * each narrowing to exactly that, combined with each other and with the action and period.
 */
describe.each(testDialects())('history drill-down filters on %s', (dialect) => {
  let t: TestApp;
  let a: TenantFixture;
  let b: TenantFixture;
  const row = (customerId: number, min: number, over: Partial<QueryLogRow>): QueryLogRow => ({
    ts: Date.parse('2025-06-15T08:00:00Z') + min * 60_000,
    customer_id: customerId,
    location_id: null,
    policy_id: null,
    client_ip: '10.1.0.1',
    qname: 'news.example',
    qtype: 'A',
    protocol: 'udp',
    action: 'allowed',
    reason: 'default',
    categories: '',
    rcode: 'NOERROR',
    answer_source: 'upstream',
    latency_us: 100,
    ...over,
  });
  beforeEach(async () => {
    t = await createTestApp(dialect);
    a = await createTenant(t, 1);
    b = await createTenant(t, 2);
    await insertQueryLogRows(t.handle, [
      row(a.customerId, 1, { qname: 'ads.example', action: 'blocked', categories: '12,3', location_id: a.locationId }),
      row(a.customerId, 2, { qname: 'www.ads.example', categories: '3', client_ip: '10.1.0.10' }),
      row(a.customerId, 3, { qname: 'ads.example', categories: '13', user_name: 'alice' }),
      row(a.customerId, 4, { qname: 'news.example', categories: '112', user_name: 'alicia' }),
      row(b.customerId, 5, { qname: 'ads.example', categories: '12', location_id: b.locationId }),
    ]);
  });
  afterEach(async () => {
    await t.close();
  });
  const names = async (query: string) => {
    const res = await call(
      t.app,
      a.customerToken,
      'GET',
      `/restapi/users/${a.customerId}/history/all/today?order_dir=asc&${query}`,
    );
    expect(res.statusCode, res.body).toBe(200);
    return (res.json() as { data: Array<{ qname: string; time: string }> }).data.map((r) => r.time.slice(14, 16));
  };

  it('narrows to one domain exactly, not its subdomains', async () => {
    expect(await names('domain=ads.example')).toEqual(['01', '03']);
    expect(await names('domain=ADS.example')).toEqual(['01', '03']);
  });

  it('narrows to one category id among the listed ones, not a longer id containing it', async () => {
    expect(await names('category=12')).toEqual(['01']);
    expect(await names('category=3')).toEqual(['01', '02']);
    expect(await names('category=13')).toEqual(['03']);
  });

  it('narrows to a location, a user, a client address; filters combine, and another customer never shows', async () => {
    expect(await names(`location=${a.locationId}`)).toEqual(['01']);
    expect(await names(`location=${b.locationId}`)).toEqual([]);
    expect(await names('user=alice')).toEqual(['03']);
    expect(await names('client_ip=10.1.0.1')).toEqual(['01', '03', '04']);
    expect(await names('domain=ads.example&user=alice')).toEqual(['03']);
    const blocked = await call(
      t.app,
      a.customerToken,
      'GET',
      `/restapi/users/${a.customerId}/history/blocked/today?domain=ads.example`,
    );
    expect(blocked.json().total).toBe(1);
  });

  it('refuses a filter that is not a whole number', async () => {
    const res = await call(
      t.app,
      a.customerToken,
      'GET',
      `/restapi/users/${a.customerId}/history/all/today?category=x`,
    );
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatch(/category/);
  });
});
