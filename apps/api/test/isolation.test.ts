import { testDialects } from '@cordon/db/testing';
import { ErrorTexts, Role } from '@cordon/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../src/modules/auth/service.ts';
import { call, createTenant, createTestApp, login, snapshot, type TenantFixture, type TestApp } from './helpers.ts';

/**
 * Tenant isolation (DESIGN.md §4, §14; STYLE.md anti-pattern 2): every route, called by tenant A's MSP
 * admin (role 3), customer admin (role 4) and a sales admin (role 2) against tenant B's ids, is refused
 * (404 for foreign ids, 403 for a route not meant for the role) and changes nothing.
 * Each route of the OpenAPI document must appear here, so a new route cannot skip this test.
 */
interface Case {
  /** The route as OpenAPI writes it: `METHOD /restapi/path/{param}`. */
  route: string;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  url: (own: TenantFixture, foreign: TenantFixture) => string;
  body?: (own: TenantFixture, foreign: TenantFixture) => unknown;
  /** Expected status for A's role-3 admin, A's role-4 admin and a sales admin; absent = allowed (not checked here). */
  msp: number;
  customer: number;
  sales?: number;
}

const categories = [{ id: 21, allowed: true }];
const location = { name: 'Intruder', addresses: ['192.0.2.0/24'] };

const CASES: Case[] = [
  // MSPs
  { route: 'GET /restapi/msp', method: 'GET', url: () => '/restapi/msp', msp: 403, customer: 403 },
  {
    route: 'POST /restapi/msp',
    method: 'POST',
    url: () => '/restapi/msp',
    body: () => ({ name: 'Rogue', company_name: 'Rogue Ltd' }),
    msp: 403,
    customer: 403,
    sales: 403,
  },
  { route: 'GET /restapi/msp/{id}', method: 'GET', url: (_, b) => `/restapi/msp/${b.mspId}`, msp: 404, customer: 403 },
  {
    route: 'PUT /restapi/msp/{id}',
    method: 'PUT',
    url: (_, b) => `/restapi/msp/${b.mspId}`,
    body: () => ({ company_name: 'Hijacked' }),
    msp: 404,
    customer: 403,
    sales: 403,
  },
  {
    route: 'DELETE /restapi/msp/{id}',
    method: 'DELETE',
    url: (_, b) => `/restapi/msp/${b.mspId}`,
    msp: 403,
    customer: 403,
    sales: 403,
  },
  // Customers
  {
    route: 'GET /restapi/users/',
    method: 'GET',
    url: (_, b) => `/restapi/users/?msp_id=${b.mspId}`,
    msp: 404,
    customer: 404,
    sales: 403,
  },
  {
    route: 'POST /restapi/users/',
    method: 'POST',
    url: () => '/restapi/users/',
    body: (_, b) => ({ accountName: 'Rogue', msp_id: b.mspId }),
    msp: 404,
    customer: 403,
    sales: 403,
  },
  {
    route: 'GET /restapi/users/{id}',
    method: 'GET',
    url: (_, b) => `/restapi/users/${b.customerId}`,
    msp: 404,
    customer: 404,
    sales: 403,
  },
  {
    route: 'POST /restapi/users/{id}',
    method: 'POST',
    url: (_, b) => `/restapi/users/${b.customerId}`,
    body: () => ({ accountName: 'Hijacked' }),
    msp: 404,
    customer: 404,
    sales: 403,
  },
  {
    route: 'DELETE /restapi/users/{id}',
    method: 'DELETE',
    url: (_, b) => `/restapi/users/${b.customerId}`,
    msp: 404,
    customer: 403,
    sales: 403,
  },
  // Locations
  {
    route: 'GET /restapi/users/{id}/locations/{type}',
    method: 'GET',
    url: (_, b) => `/restapi/users/${b.customerId}/locations/all`,
    msp: 404,
    customer: 404,
    sales: 403,
  },
  {
    route: 'POST /restapi/users/{id}/locations/staticip',
    method: 'POST',
    url: (_, b) => `/restapi/users/${b.customerId}/locations/staticip`,
    body: () => location,
    msp: 404,
    customer: 404,
    sales: 403,
  },
  {
    route: 'GET /restapi/users/{id}/locations/staticip/{locId}',
    method: 'GET',
    url: (_, b) => `/restapi/users/${b.customerId}/locations/staticip/${b.locationId}`,
    msp: 404,
    customer: 404,
    sales: 403,
  },
  {
    route: 'GET /restapi/users/{id}/locations/staticip/{locId}',
    method: 'GET',
    url: (a, b) => `/restapi/users/${a.customerId}/locations/staticip/${b.locationId}`,
    msp: 404,
    customer: 404,
  },
  {
    route: 'POST /restapi/users/{id}/locations/staticip/{locId}',
    method: 'POST',
    url: (_, b) => `/restapi/users/${b.customerId}/locations/staticip/${b.locationId}`,
    body: () => location,
    msp: 404,
    customer: 404,
    sales: 403,
  },
  {
    route: 'POST /restapi/users/{id}/locations/staticip/{locId}',
    method: 'POST',
    url: (a, b) => `/restapi/users/${a.customerId}/locations/staticip/${b.locationId}`,
    body: () => location,
    msp: 404,
    customer: 404,
  },
  {
    route: 'DELETE /restapi/users/{id}/locations/staticip/{locId}',
    method: 'DELETE',
    url: (_, b) => `/restapi/users/${b.customerId}/locations/staticip/${b.locationId}`,
    msp: 404,
    customer: 404,
    sales: 403,
  },
  {
    route: 'DELETE /restapi/users/{id}/locations/staticip/{locId}',
    method: 'DELETE',
    url: (a, b) => `/restapi/users/${a.customerId}/locations/staticip/${b.locationId}`,
    msp: 404,
    customer: 404,
  },
  {
    route: 'GET /restapi/users/{id}/locations/staticip/{locId}/addresses',
    method: 'GET',
    url: (a, b) => `/restapi/users/${a.customerId}/locations/staticip/${b.locationId}/addresses`,
    msp: 404,
    customer: 404,
    sales: 403,
  },
  {
    route: 'POST /restapi/users/{id}/locations/staticip/{locId}/addresses',
    method: 'POST',
    url: (_, b) => `/restapi/users/${b.customerId}/locations/staticip/${b.locationId}/addresses`,
    body: () => ({ ip: '198.51.100.7' }),
    msp: 404,
    customer: 404,
    sales: 403,
  },
  {
    route: 'POST /restapi/users/{id}/locations/staticip/{locId}/addresses',
    method: 'POST',
    url: (a, b) => `/restapi/users/${a.customerId}/locations/staticip/${b.locationId}/addresses`,
    body: () => ({ ip: '198.51.100.7' }),
    msp: 404,
    customer: 404,
  },
  {
    route: 'DELETE /restapi/users/{id}/locations/staticip/{locId}/addresses/{addrId}',
    method: 'DELETE',
    url: (a, b) => `/restapi/users/${a.customerId}/locations/staticip/${a.locationId}/addresses/${b.addressId}`,
    msp: 404,
    customer: 404,
    sales: 403,
  },
  {
    // A policy of another tenant named from one's own location: a field error, as for a missing policy.
    route: 'POST /restapi/users/{id}/locations/staticip',
    method: 'POST',
    url: (a) => `/restapi/users/${a.customerId}/locations/staticip`,
    body: (_, b) => ({ ...location, policy_id: b.policyId }),
    msp: 400,
    customer: 400,
  },
  // Policies
  {
    route: 'GET /restapi/policies',
    method: 'GET',
    url: (_, b) => `/restapi/policies?user_id=${b.customerId}`,
    msp: 404,
    customer: 404,
    sales: 403,
  },
  {
    route: 'POST /restapi/policies',
    method: 'POST',
    url: () => '/restapi/policies',
    body: (_, b) => ({ user_id: b.customerId, name: 'Rogue' }),
    msp: 404,
    customer: 404,
    sales: 403,
  },
  {
    route: 'GET /restapi/policies/{id}',
    method: 'GET',
    url: (_, b) => `/restapi/policies/${b.policyId}`,
    msp: 404,
    customer: 404,
    sales: 403,
  },
  {
    route: 'PUT /restapi/policies/{id}',
    method: 'PUT',
    url: (_, b) => `/restapi/policies/${b.policyId}`,
    body: () => ({ filtering_level: 'low' }),
    msp: 404,
    customer: 404,
    sales: 403,
  },
  {
    route: 'DELETE /restapi/policies/{id}',
    method: 'DELETE',
    url: (_, b) => `/restapi/policies/${b.policyId}`,
    msp: 404,
    customer: 404,
    sales: 403,
  },
  {
    route: 'GET /restapi/policies/{id}/categories',
    method: 'GET',
    url: (_, b) => `/restapi/policies/${b.policyId}/categories`,
    msp: 404,
    customer: 404,
    sales: 403,
  },
  {
    route: 'PUT /restapi/policies/{id}/categories',
    method: 'PUT',
    url: (_, b) => `/restapi/policies/${b.policyId}/categories`,
    body: () => categories,
    msp: 404,
    customer: 404,
    sales: 403,
  },
  {
    route: 'GET /restapi/policies/default',
    method: 'GET',
    url: (_, b) => `/restapi/policies/default?user_id=${b.customerId}`,
    msp: 404,
    customer: 404,
    sales: 403,
  },
  {
    route: 'PUT /restapi/policies/default',
    method: 'PUT',
    url: (_, b) => `/restapi/policies/default?user_id=${b.customerId}`,
    body: () => ({ filtering_level: 'high' }),
    msp: 404,
    customer: 404,
    sales: 403,
  },
  {
    route: 'GET /restapi/policies/default/categories',
    method: 'GET',
    url: (_, b) => `/restapi/policies/default/categories?user_id=${b.customerId}`,
    msp: 404,
    customer: 404,
    sales: 403,
  },
  {
    route: 'PUT /restapi/policies/default/categories',
    method: 'PUT',
    url: (_, b) => `/restapi/policies/default/categories?user_id=${b.customerId}`,
    body: () => categories,
    msp: 404,
    customer: 404,
    sales: 403,
  },
  {
    route: 'POST /restapi/policies/default/categories',
    method: 'POST',
    url: (_, b) => `/restapi/policies/default/categories?user_id=${b.customerId}`,
    body: () => categories,
    msp: 404,
    customer: 404,
    sales: 403,
  },
  // Stats
  {
    route: 'GET /restapi/users/{id}/stats/{date}',
    method: 'GET',
    url: (_, b) => `/restapi/users/${b.customerId}/stats/today`,
    msp: 404,
    customer: 404,
    sales: 403,
  },
  {
    route: 'GET /restapi/users/{id}/stats/traffic/{day}',
    method: 'GET',
    url: (_, b) => `/restapi/users/${b.customerId}/stats/traffic/today`,
    msp: 404,
    customer: 404,
    sales: 403,
  },
];

/** Routes without foreign ids to try: login is public, logout acts on the caller's own token only. */
const NOT_TENANT_ROUTES = ['GET /restapi/oauth/authorize', 'POST /restapi/auth/logout'];

describe.each(testDialects())('tenant isolation on %s', (dialect) => {
  let t: TestApp;
  let a: TenantFixture;
  let b: TenantFixture;
  let salesToken: string;

  beforeAll(async () => {
    t = await createTestApp(dialect);
    a = await createTenant(t, 1);
    b = await createTenant(t, 2);
    const at = new Date().toISOString();
    await t.handle.db
      .insertInto('admins')
      .values({
        email: 'sales@cordon.test',
        full_name: 'Sales',
        password_hash: await hashPassword('S4les-pass'),
        role: Role.Sales,
        msp_id: null,
        customer_id: null,
        is_default: 0,
        twofa_enabled: 0,
        twofa_secret: null,
        created_at: at,
        updated_at: at,
      })
      .execute();
    salesToken = await login(t.app, 'sales@cordon.test', 'S4les-pass');
  });
  afterAll(async () => {
    await t.close();
  });

  it('covers every route of the OpenAPI document', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/restapi/docs/json' })).json();
    const routes = Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([path, methods]) =>
      Object.keys(methods).map((m) => `${m.toUpperCase()} ${path.replace(/\/$/, '/')}`),
    );
    const covered = new Set([...CASES.map((c) => c.route), ...NOT_TENANT_ROUTES]);
    expect(routes.filter((r) => !covered.has(r))).toEqual([]);
  });

  for (const role of ['msp', 'customer', 'sales'] as const) {
    it.each(
      CASES.filter((c) => c[role] !== undefined).map(
        (c) => [`${c.method} ${c.url(fakeIds(1), fakeIds(2))}`, c] as const,
      ),
    )(`${role} admin of another tenant: %s is refused and changes nothing`, async (_name, c) => {
      const token = role === 'msp' ? a.mspToken : role === 'customer' ? a.customerToken : salesToken;
      const before = await snapshot(t.handle);
      const published = t.published.length;
      const res = await call(t.app, token, c.method, c.url(a, b), c.body?.(a, b));
      expect(res.statusCode, res.body).toBe(c[role]);
      if (c[role] === 404) expect(res.json()).toEqual({ error: ErrorTexts.notFound, code: 'ERR_NOT_FOUND' });
      if (c[role] === 403) expect(res.json()).toEqual({ error: ErrorTexts.forbidden, code: 'ERR_FORBIDDEN' });
      expect(await snapshot(t.handle)).toBe(before);
      expect(t.published.length).toBe(published);
    });
  }

  it('answers a foreign id exactly as a missing one', async () => {
    const foreign = await call(t.app, a.mspToken, 'GET', `/restapi/policies/${b.policyId}`);
    const missing = await call(t.app, a.mspToken, 'GET', '/restapi/policies/999999');
    expect(foreign.statusCode).toBe(missing.statusCode);
    expect(foreign.body).toBe(missing.body);
  });

  it('lets each admin see its own tenant', async () => {
    expect((await call(t.app, a.mspToken, 'GET', `/restapi/msp/${a.mspId}`)).statusCode).toBe(200);
    const list = await call(t.app, a.mspToken, 'GET', '/restapi/users');
    expect(list.json().data.map((c: { id: number }) => c.id)).toEqual([a.customerId]);
    const self = await call(t.app, a.customerToken, 'GET', '/restapi/users/');
    expect(self.json()).toMatchObject({ total: 1, data: [{ id: a.customerId }] });
    expect((await call(t.app, a.customerToken, 'GET', `/restapi/policies/${a.policyId}`)).statusCode).toBe(200);
    expect((await call(t.app, a.customerToken, 'GET', '/restapi/policies')).json().total).toBe(2);
    expect((await call(t.app, salesToken, 'GET', '/restapi/msp')).json().total).toBe(2);
    expect((await call(t.app, salesToken, 'GET', `/restapi/msp/${b.mspId}`)).statusCode).toBe(200);
  });
});

/** Placeholder ids for test names only (the fixture exists only once the suite runs). */
function fakeIds(n: number): TenantFixture {
  return {
    mspId: n,
    customerId: n,
    defaultPolicyId: n,
    policyId: n,
    locationId: n,
    addressId: n,
    mspToken: '',
    customerToken: '',
  };
}
