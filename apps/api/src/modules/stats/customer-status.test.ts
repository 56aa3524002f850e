import type { QueryLogRow } from '@cordon/db';
import { testDialects } from '@cordon/db/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { call, createTenant, createTestApp, login, type TenantFixture, type TestApp } from '../../../test/helpers.ts';
import { insertQueryLogRows } from '../../../test/query-log.ts';

const HOUR = 3_600_000;

/** `count` logged queries of `customerId` at `ts`, the first `blocked` of them blocked. */
function rows(customerId: number, ts: number, count: number, blocked = 0, locationId: number | null = null) {
  return Array.from(
    { length: count },
    (_, i): QueryLogRow => ({
      ts: ts + i,
      customer_id: customerId,
      location_id: locationId,
      policy_id: null,
      client_ip: '10.0.0.1',
      qname: `n${i}.example`,
      qtype: 'A',
      protocol: 'udp',
      action: i < blocked ? 'blocked' : 'allowed',
      reason: 'default',
      categories: '',
      rcode: 'NOERROR',
      answer_source: 'upstream',
      latency_us: 10,
    }),
  );
}

/**
 * `GET /msp/{id}/stats/customers` (issue 29 "100 customers at a glance"): one call answers a page of
 * an MSP's customers with their status from the roll-ups, each customer's today in its own zone,
 * sorted, filtered and paged in SQL, scoped to the caller's MSP.
 */
describe.each(testDialects())('the MSP overview customer list on %s', (dialect) => {
  let t: TestApp;
  let a: TenantFixture;
  let b: TenantFixture;
  let newYork: number;
  const path = (mspId: number, query = '') => `/restapi/msp/${mspId}/stats/customers${query}`;

  beforeEach(async () => {
    // The clock is 2025-06-15T12:00Z: Berlin's day began at 2025-06-14T22:00Z, New York's at 04:00Z.
    t = await createTestApp(dialect);
    a = await createTenant(t, 1);
    b = await createTenant(t, 2);
    const res = await call(t.app, t.rootToken, 'POST', '/restapi/users/', {
      accountName: 'New York School',
      msp_id: a.mspId,
      timezone: 'America/New_York',
    });
    expect(res.statusCode, res.body).toBe(201);
    newYork = res.json().id;
    const at = (iso: string) => Date.parse(iso);
    await insertQueryLogRows(t.handle, [
      // Customer 1 (Berlin): 3 in the last hour at its location, 2 earlier today, 1 yesterday.
      ...rows(a.customerId, at('2025-06-15T11:30:00Z'), 3, 1, a.locationId),
      ...rows(a.customerId, at('2025-06-14T22:30:00Z'), 2),
      ...rows(a.customerId, at('2025-06-14T20:00:00Z'), 1),
      // New York: 4 today (2 blocked), 1 on its yesterday (but on Berlin's and UTC's today).
      ...rows(newYork, at('2025-06-15T05:00:00Z'), 4, 2),
      ...rows(newYork, at('2025-06-15T02:00:00Z'), 1),
      // The other MSP's customer.
      ...rows(b.customerId, at('2025-06-15T11:10:00Z'), 7, 7),
    ]);
    const now = new Date(t.clock.now).toISOString();
    const device = (name: string, lastContact: string | null) => ({
      customer_id: a.customerId,
      key: `key-${name}`,
      name,
      last_contact_at: lastContact,
      location_id: null,
      policy_id: null,
      device_exception_id: null,
      advanced_config: null,
      created_at: now,
      updated_at: now,
    });
    await t.handle.db
      .insertInto('devices')
      .values([device('laptop', new Date(t.clock.now - HOUR).toISOString()), device('phone', null)])
      .execute();
  });
  afterEach(async () => {
    await t.close();
  });

  it("answers each customer's status, today's counts in its own zone, and the MSP's licence use", async () => {
    const res = await call(t.app, a.mspToken, 'GET', path(a.mspId));
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.total).toBe(2);
    expect(body.licence).toEqual({ used: 2, limit: null });
    expect(body.as_of).toBe('2025-06-15T12:00:00.000Z');
    expect(body.data).toEqual([
      {
        id: a.customerId,
        name: 'Customer 1',
        timezone: 'Europe/Berlin',
        default_policy_id: a.defaultPolicyId,
        level: expect.any(String),
        requests_today: 5,
        blocked_today: 1,
        requests_last_hour: 3,
        last_seen: '2025-06-15T11:00:00.000Z',
        locations: 1,
        locations_silent: 0,
        devices: 2,
        devices_silent: 1,
      },
      {
        id: newYork,
        name: 'New York School',
        timezone: 'America/New_York',
        default_policy_id: expect.any(Number),
        level: 'low',
        requests_today: 4,
        blocked_today: 2,
        requests_last_hour: 0,
        last_seen: '2025-06-15T05:00:00.000Z',
        locations: 0,
        locations_silent: 0,
        devices: 0,
        devices_silent: 0,
      },
    ]);
  });

  it('counts a location silent once its last traffic is more than a day old', async () => {
    t.clock.now += 25 * HOUR;
    // The tokens of an hour ago have expired: a new login at the new time.
    const token = await login(t.app, 'msp1@example.test', 'Passw0rd!');
    const body = (await call(t.app, token, 'GET', path(a.mspId, '?filter=customer'))).json();
    expect(body.data.map((r: { name: string }) => r.name)).toEqual(['Customer 1']);
    expect(body.data[0]).toMatchObject({ locations: 1, locations_silent: 1, devices_silent: 2, requests_today: 0 });
  });

  it('sorts by a figure, filters by name, pages, and refuses an unknown sort key', async () => {
    const get = async (q: string) => {
      const res = await call(t.app, a.mspToken, 'GET', path(a.mspId, q));
      expect(res.statusCode, res.body).toBe(200);
      return res.json() as { data: Array<{ id: number }>; total: number };
    };
    expect((await get('?sortkey=requests_today&sortdir=desc')).data.map((r) => r.id)).toEqual([a.customerId, newYork]);
    expect((await get('?sortkey=blocked_today&sortdir=desc')).data.map((r) => r.id)).toEqual([newYork, a.customerId]);
    expect((await get('?sortkey=last_seen&sortdir=asc')).data.map((r) => r.id)).toEqual([newYork, a.customerId]);
    expect(await get('?filter=new Y')).toMatchObject({ total: 1, data: [{ id: newYork }] });
    expect(await get('?limit=1&offset=1&sortkey=name')).toMatchObject({ total: 2, data: [{ id: newYork }] });
    const bad = await call(t.app, a.mspToken, 'GET', path(a.mspId, '?sortkey=password'));
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toMatch(/sortkey/);
    expect((await call(t.app, a.mspToken, 'GET', path(a.mspId, '?limit=501'))).statusCode).toBe(400);
  });

  it("keeps each MSP to its own customers; the system admin reads any MSP's", async () => {
    expect((await call(t.app, a.mspToken, 'GET', path(b.mspId))).statusCode).toBe(404);
    expect((await call(t.app, b.mspToken, 'GET', path(a.mspId))).statusCode).toBe(404);
    expect((await call(t.app, a.customerToken, 'GET', path(a.mspId))).statusCode).toBe(403);
    const other = (await call(t.app, b.mspToken, 'GET', path(b.mspId))).json();
    expect(other.data.map((r: { id: number }) => r.id)).toEqual([b.customerId]);
    expect(other.data[0]).toMatchObject({ requests_today: 7, blocked_today: 7, requests_last_hour: 7 });
    const root = (await call(t.app, t.rootToken, 'GET', path(b.mspId))).json();
    expect(root).toEqual(other);
    expect((await call(t.app, t.rootToken, 'GET', path(999_999))).statusCode).toBe(404);
  });

  it('answers each call with its own values from the once-compiled statement: MSP, devices, clock', async () => {
    const get = async (token: string, mspId: number) => {
      const res = await call(t.app, token, 'GET', path(mspId, '?limit=25'));
      expect(res.statusCode, res.body).toBe(200);
      return res.json() as { total: number; data: Array<{ id: number; devices: number; devices_silent: number }> };
    };
    // One shape, two MSPs in turn: each answer is its own MSP's (the tenant's id is bound per call).
    const first = await get(a.mspToken, a.mspId);
    expect(first.data.map((r) => r.id)).toEqual([a.customerId, newYork]);
    expect((await get(b.mspToken, b.mspId)).data.map((r) => r.id)).toEqual([b.customerId]);
    expect(await get(a.mspToken, a.mspId)).toEqual(first);
    // A foreign MSP's id after the shape is compiled: still refused.
    expect((await call(t.app, a.mspToken, 'GET', path(b.mspId, '?limit=25'))).statusCode).toBe(404);
    expect((await call(t.app, b.mspToken, 'GET', path(a.mspId, '?limit=25'))).statusCode).toBe(404);
    // Devices added and removed: the counts follow.
    const now = new Date(t.clock.now).toISOString();
    await t.handle.db
      .insertInto('devices')
      .values(
        ['tablet', 'desktop', 'kiosk'].map((name) => ({
          customer_id: newYork,
          key: `key-${name}`,
          name,
          last_contact_at: name === 'kiosk' ? null : now,
          location_id: null,
          policy_id: null,
          device_exception_id: null,
          advanced_config: null,
          created_at: now,
          updated_at: now,
        })),
      )
      .execute();
    await t.handle.db.deleteFrom('devices').where('name', '=', 'phone').execute();
    const counts = (body: Awaited<ReturnType<typeof get>>) => body.data.map((r) => [r.devices, r.devices_silent]);
    expect(counts(await get(a.mspToken, a.mspId))).toEqual([
      [1, 0],
      [3, 1],
    ]);
    // A day later, the same statement with the new clock's bounds: every device is silent.
    t.clock.now += 25 * HOUR;
    const token = await login(t.app, 'msp1@example.test', 'Passw0rd!');
    expect(counts(await get(token, a.mspId))).toEqual([
      [1, 1],
      [3, 3],
    ]);
  });

  it('answers 100 customers in one call, every figure right', async () => {
    const ids: number[] = [];
    for (let i = 0; i < 98; i++) {
      const res = await call(t.app, t.rootToken, 'POST', '/restapi/users/', {
        accountName: `Bulk ${String(i).padStart(3, '0')}`,
        msp_id: a.mspId,
      });
      expect(res.statusCode, res.body).toBe(201);
      ids.push(res.json().id);
    }
    // Bulk i: i % 9 requests in the last hour, a third of them blocked (rounded down).
    const logged = ids.flatMap((id, i) => rows(id, Date.parse('2025-06-15T11:05:00Z'), i % 9, Math.floor((i % 9) / 3)));
    await insertQueryLogRows(t.handle, logged);
    const started = performance.now();
    const res = await call(t.app, a.mspToken, 'GET', path(a.mspId, '?limit=100&sortkey=requests_today&sortdir=desc'));
    const ms = performance.now() - started;
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.total).toBe(100);
    expect(body.data).toHaveLength(100);
    expect(body.licence.used).toBe(100);
    const counts = body.data.map((r: { requests_today: number }) => r.requests_today);
    expect(counts).toEqual([...counts].sort((x, y) => y - x));
    for (const [i, id] of ids.entries()) {
      const row = body.data.find((r: { id: number }) => r.id === id);
      expect(row, `Bulk ${i}`).toMatchObject({
        requests_today: i % 9,
        blocked_today: Math.floor((i % 9) / 3),
        requests_last_hour: i % 9,
        last_seen: i % 9 === 0 ? null : '2025-06-15T11:00:00.000Z',
        level: 'low',
      });
    }
    // A figure for the record (docs/api.md "Stats"), not an assertion: timing is the e2e's to check.
    console.info(`[customer-status] ${dialect}: 100 customers in ${ms.toFixed(1)} ms`);
  });
});
