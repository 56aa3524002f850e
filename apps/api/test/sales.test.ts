/**
 * The sales area (spec-notes §2 "Sales: MSP list and MSP id"; issue 11): a sales admin (role 2) reads
 * MSPs and an MSP's customers and nothing else, and every mutating call of every module answers
 * 403 and changes nothing, whatever its ids or body.
 */
import { admins, OPERATOR } from '@cordon/core';
import { testDialects } from '@cordon/db/testing';
import { ErrorTexts, fillPath, listEndpoints, Role } from '@cordon/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTenant, createTestApp, login, snapshot, type TenantFixture, type TestApp } from './helpers.ts';

/** Every authenticated endpoint that writes (any method but GET). */
const ALL_WRITES = listEndpoints().filter(({ endpoint }) => endpoint.method !== 'GET' && !endpoint.access.public);
/** The writes a sales admin may make: its own account's (log out, password, profile, 2FA), nothing of a tenant's. */
const OWN_ACCOUNT = ALL_WRITES.filter(
  ({ endpoint }) => !endpoint.access.public && endpoint.access.roles.includes(Role.Sales),
);
/** Every other write: refused. */
const WRITES = ALL_WRITES.filter((w) => !OWN_ACCOUNT.includes(w));

describe.each(testDialects())('sales admin on %s', (dialect) => {
  let t: TestApp;
  let a: TenantFixture;
  let sales: string;

  beforeAll(async () => {
    t = await createTestApp(dialect);
    a = await createTenant(t, 1);
    await admins.createAdmin(admins.operatorDeps(t.handle), OPERATOR, {
      email: 'sally@cordon.test',
      password: 'S4les-pass',
      fullName: 'Sally Sales',
      role: Role.Sales,
    });
    sales = await login(t.app, 'sally@cordon.test', 'S4les-pass');
  });
  afterAll(async () => {
    await t.close();
  });

  it('reads the MSP list, one MSP and its customers', async () => {
    expect((await call(t.app, sales, 'GET', '/restapi/msp')).json().total).toBe(1);
    expect((await call(t.app, sales, 'GET', `/restapi/msp/${a.mspId}`)).json().name).toBe('MSP 1');
    const customers = await call(t.app, sales, 'GET', `/restapi/users/?msp_id=${a.mspId}`);
    expect(customers.statusCode, customers.body).toBe(200);
    expect(customers.json().data.map((c: { accountName: string }) => c.accountName)).toEqual(['Customer 1']);
    // Without an MSP, or an MSP that does not exist: refused, not "everything".
    expect((await call(t.app, sales, 'GET', '/restapi/users/')).statusCode).toBe(400);
    expect((await call(t.app, sales, 'GET', '/restapi/users/?msp_id=99999')).statusCode).toBe(404);
    // Tenant data below the MSP is not the sales area's.
    expect((await call(t.app, sales, 'GET', `/restapi/users/${a.customerId}`)).statusCode).toBe(403);
    // The MSP's traffic totals, read-only (spec-notes §2 Sales); never one customer's.
    const totals = await call(t.app, sales, 'GET', `/restapi/msp/${a.mspId}/stats/30days`);
    expect(totals.statusCode, totals.body).toBe(200);
    expect(totals.json()).toMatchObject({ requests: expect.any(Number), blocked: expect.any(Number) });
    expect((await call(t.app, sales, 'GET', `/restapi/users/${a.customerId}/stats/30days`)).statusCode).toBe(403);
    expect((await call(t.app, sales, 'GET', `/restapi/policies?user_id=${a.customerId}`)).statusCode).toBe(403);
  });

  it('may write only its own account (auth), never a tenant resource', () => {
    // Its own account: the auth routes, its own API tokens, and /batch (whose entries are checked one by one).
    expect(OWN_ACCOUNT.map((w) => w.key).filter((k) => !k.startsWith('auth.'))).toEqual([
      'apitokens.create',
      'apitokens.revoke',
      'batch.run',
    ]);
    expect(WRITES.length).toBeGreaterThan(30);
  });

  it('gets 403 for each write inside a /batch', async () => {
    const before = await snapshot(t.handle);
    const res = await call(t.app, sales, 'POST', '/restapi/batch', {
      msp: { method: 'DELETE', path: `/msp/${a.mspId}` },
      customer: { method: 'POST', path: `/users/${a.customerId}`, parameters: { accountName: 'Sold' } },
    });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.msp.status).toBe(403);
    expect(body.customer.status).toBe(403);
    expect(await snapshot(t.handle)).toBe(before);
  });

  it.each(WRITES.map(({ key, endpoint }) => [`${key}: ${endpoint.method} ${endpoint.path}`, endpoint] as const))(
    'is refused %s with 403, changing nothing',
    async (_name, endpoint) => {
      const ids: Record<string, number> = {
        id: a.customerId,
        policyId: a.policyId,
        locId: a.locationId,
        addrId: a.addressId,
        keyId: a.cloudKeyId,
      };
      const params = Object.fromEntries(
        (endpoint.path.match(/:(\w+)/g) ?? []).map((p) => [p.slice(1), ids[p.slice(1)] ?? 1]),
      );
      const url = `/restapi${fillPath(endpoint.path, params)}?user_id=${a.customerId}&msp_id=${a.mspId}`;
      const before = await snapshot(t.handle);
      const published = t.published.length;
      const res = await call(t.app, sales, endpoint.method, url, {});
      // A descriptor whose module is not registered yet answers 404 (the isolation test names it).
      const served = [endpoint.path, endpoint.path.replace(/\/$/, '')].some((p) =>
        t.app.hasRoute({ method: endpoint.method, url: `/restapi${p}` }),
      );
      if (!served) {
        expect(res.statusCode).toBe(404);
        return;
      }
      expect(res.statusCode, res.body).toBe(403);
      expect(res.json()).toEqual({ error: ErrorTexts.forbidden, code: 'ERR_FORBIDDEN' });
      expect(await snapshot(t.handle)).toBe(before);
      expect(t.published.length).toBe(published);
    },
  );
});
