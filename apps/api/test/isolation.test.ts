import { admins, OPERATOR } from '@cordon/core';
import { testDialects } from '@cordon/db/testing';
import { type EndpointKey, ErrorTexts, endpointByKey, fillPath, listEndpoints, Role } from '@cordon/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IsolationCase, TenantIds } from '../src/http/module.ts';
import { API_MODULES } from '../src/index.ts';
import {
  call,
  createEnvironment,
  createTenant,
  createTestApp,
  type EnvironmentFixture,
  login,
  snapshot,
  type TenantFixture,
  type TestApp,
} from './helpers.ts';

/**
 * Tenant isolation (docs/security.md "Tenant isolation"): every endpoint, called by tenant A's MSP
 * admin (role 3), customer admin (role 4) and a sales admin (role 2) against tenant B's ids, is
 * refused (404 for foreign ids, 403 for an endpoint not meant for the role) and changes nothing —
 * no row, no audit row, no change topic. The cases live in the modules' manifests
 * (`isolationCases`, keyed by endpoint: a guarded endpoint without a case does not compile); this
 * test iterates `API_MODULES` and checks at run time too that every guarded endpoint has a case and
 * that every route the app serves is a descriptor's.
 */
const CASES: Array<{ key: EndpointKey; c: IsolationCase }> = API_MODULES.flatMap((module) =>
  Object.entries(module.isolationCases).flatMap(([key, cases]) =>
    (cases ?? []).map((c) => ({ key: key as EndpointKey, c })),
  ),
);

/** The request of a case: method, URL (path filled from the descriptor, query appended) and body. */
function requestOf(key: EndpointKey, c: IsolationCase, own: TenantIds, foreign: TenantIds) {
  const endpoint = endpointByKey(key);
  const query = c.query?.(own, foreign);
  const search = query
    ? `?${new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]))}`
    : '';
  return {
    method: endpoint.method,
    url: `/restapi${fillPath(endpoint.path, c.params?.(own, foreign))}${search}`,
    body: c.body?.(own, foreign),
  };
}

/** Placeholder ids for test names only (the fixture exists only once the suite runs). */
const fakeIds = (n: number): TenantIds => ({
  mspId: n,
  customerId: n,
  policyId: n,
  locationId: n,
  addressId: n,
  staticRouteId: n,
  cloudKeyId: n,
  mspAdminId: n,
  customerAdminId: n,
  virtualLocationId: n,
  deviceId: n,
  internalUserId: n,
  deviceExceptionId: n,
  ruleId: n,
  groupId: n,
});

describe('isolation cases', () => {
  it('cover every guarded endpoint of listEndpoints(), each served by exactly one module', () => {
    const owners = new Map<string, string[]>();
    for (const module of API_MODULES) {
      for (const key of Object.keys(module.isolationCases)) owners.set(key, [...(owners.get(key) ?? []), module.name]);
    }
    const guarded = listEndpoints().filter(({ endpoint }) => !('public' in endpoint.access && endpoint.access.public));
    expect(guarded.filter(({ key }) => !owners.has(key)).map(({ key }) => key)).toEqual([]);
    expect([...owners].filter(([, names]) => names.length > 1)).toEqual([]);
    for (const { key } of listEndpoints()) {
      const resource = key.split('.')[0] as string;
      expect(API_MODULES.filter((m) => m.resources.includes(resource as never)).length, key).toBe(1);
    }
  });
});

describe.each(testDialects())('tenant isolation on %s', (dialect) => {
  let t: TestApp;
  let a: TenantFixture & EnvironmentFixture;
  let b: TenantFixture & EnvironmentFixture;
  let salesToken: string;

  beforeAll(async () => {
    t = await createTestApp(dialect);
    const tenantA = await createTenant(t, 1);
    a = { ...tenantA, ...(await createEnvironment(t, tenantA.customerId, 1)) };
    const tenantB = await createTenant(t, 2);
    b = { ...tenantB, ...(await createEnvironment(t, tenantB.customerId, 2)) };
    await admins.createAdmin(admins.operatorDeps(t.handle), OPERATOR, {
      email: 'sales@cordon.test',
      password: 'S4les-pass',
      fullName: 'Sales',
      role: Role.Sales,
    });
    salesToken = await login(t.app, 'sales@cordon.test', 'S4les-pass');
  });
  afterAll(async () => {
    await t.close();
  });

  it('serves no route without a descriptor (every documented route is an endpoint of listEndpoints())', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/restapi/docs/json' })).json();
    const served = Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([path, methods]) =>
      Object.keys(methods).map((m) => `${m.toUpperCase()} ${path}`),
    );
    const described = listEndpoints().map(
      ({ endpoint }) => `${endpoint.method} /restapi${endpoint.path.replace(/:([A-Za-z_]\w*)/g, '{$1}')}`,
    );
    expect(served.filter((r) => !described.includes(r))).toEqual([]);
    expect(described.filter((r) => !served.includes(r))).toEqual([]);
  });

  for (const role of ['msp', 'customer', 'sales'] as const) {
    it.each(
      CASES.filter(({ c }) => c[role] !== undefined).map(({ key, c }) => {
        const r = requestOf(key, c, fakeIds(1), fakeIds(2));
        return [`${key}: ${r.method} ${r.url}${c.note ? ` (${c.note})` : ''}`, key, c] as const;
      }),
    )(`${role} admin of another tenant: %s is refused and changes nothing`, async (_name, key, c) => {
      const token = role === 'msp' ? a.mspToken : role === 'customer' ? a.customerToken : salesToken;
      const before = await snapshot(t.handle);
      const audits = await auditCount(t);
      const published = t.published.length;
      const r = requestOf(key, c, a, b);
      const res = await call(t.app, token, r.method, r.url, r.body);
      expect(res.statusCode, res.body).toBe(c[role]);
      if (c[role] === 404) expect(res.json()).toEqual({ error: ErrorTexts.notFound, code: 'ERR_NOT_FOUND' });
      if (c[role] === 403) expect(res.json()).toEqual({ error: ErrorTexts.forbidden, code: 'ERR_FORBIDDEN' });
      expect(await snapshot(t.handle)).toBe(before);
      expect(await auditCount(t)).toBe(audits);
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

/** The number of audit rows so far. */
async function auditCount(t: TestApp): Promise<number> {
  const row = await t.handle.db
    .selectFrom('audit_log')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
