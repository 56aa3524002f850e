import { admins, OPERATOR } from '@cordon/core';
import { testDialects } from '@cordon/db/testing';
import { type EndpointKey, ErrorTexts, endpointByKey, fillPath, Role } from '@cordon/shared';
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
 * Tenant isolation with API tokens (issue 26; docs/security.md "Tenant isolation", "API tokens"): the
 * same manifest as isolation.test.ts (`isolationCases` of every module in `API_MODULES`), every case
 * called with a read-write API token (`Bearer cdn_…`) of tenant A's MSP admin, customer admin and a
 * sales admin instead of their login sessions, must answer the same status and change nothing.
 */
const CASES: Array<{ key: EndpointKey; c: IsolationCase }> = API_MODULES.flatMap((module) =>
  Object.entries(module.isolationCases).flatMap(([key, cases]) =>
    (cases ?? []).map((c) => ({ key: key as EndpointKey, c })),
  ),
);

/** The request of a case, as isolation.test.ts builds it. */
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

describe.each(testDialects())('tenant isolation with API tokens on %s', (dialect) => {
  let t: TestApp;
  let a: TenantFixture & EnvironmentFixture;
  let b: TenantFixture & EnvironmentFixture;
  const tokens: Record<'msp' | 'customer' | 'sales', string> = { msp: '', customer: '', sales: '' };

  /** A read-write API token made by `session` with its password. */
  async function mint(session: string, password: string): Promise<string> {
    const res = await call(t.app, session, 'POST', '/restapi/auth/api-tokens', {
      name: 'isolation',
      access: 'read-write',
      current_password: password,
    });
    if (res.statusCode !== 201) throw new Error(`${res.statusCode} ${res.body}`);
    return res.json().secret;
  }

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
    tokens.msp = await mint(a.mspToken, 'Passw0rd!');
    tokens.customer = await mint(a.customerToken, 'Passw0rd!');
    tokens.sales = await mint(await login(t.app, 'sales@cordon.test', 'S4les-pass'), 'S4les-pass');
    // First uses record `last_used_at` (then not again within the fixed test clock's minute).
    for (const token of Object.values(tokens)) await call(t.app, token, 'GET', '/restapi/auth/profile');
  });
  afterAll(async () => {
    await t.close();
  });

  it('holds one case per token role at least', () => {
    for (const role of ['msp', 'customer', 'sales'] as const) {
      expect(CASES.filter(({ c }) => c[role] !== undefined).length).toBeGreaterThan(50);
    }
  });

  for (const role of ['msp', 'customer', 'sales'] as const) {
    it(`${role} admin's API token: every case of another tenant is refused as for a login, and changes nothing`, async () => {
      const token = tokens[role];
      const before = await snapshot(t.handle);
      const audits = await auditCount(t);
      const published = t.published.length;
      const failures: string[] = [];
      for (const { key, c } of CASES.filter(({ c }) => c[role] !== undefined)) {
        const r = requestOf(key, c, a, b);
        const res = await call(t.app, token, r.method, r.url, r.body);
        const expected =
          c[role] === 404
            ? { error: ErrorTexts.notFound, code: 'ERR_NOT_FOUND' }
            : c[role] === 403
              ? { error: ErrorTexts.forbidden, code: 'ERR_FORBIDDEN' }
              : undefined;
        const bodyOk = expected === undefined || JSON.stringify(res.json()) === JSON.stringify(expected);
        if (res.statusCode !== c[role] || !bodyOk) {
          failures.push(`${key} ${r.method} ${r.url}${c.note ? ` (${c.note})` : ''}: ${res.statusCode} ${res.body}`);
        }
      }
      expect(failures).toEqual([]);
      expect(await snapshot(t.handle)).toBe(before);
      expect(await auditCount(t)).toBe(audits);
      expect(t.published.length).toBe(published);
    });
  }

  it('lets each token see its own tenant, as the login does', async () => {
    const list = await call(t.app, tokens.msp, 'GET', '/restapi/users');
    expect(list.json().data.map((c: { id: number }) => c.id)).toEqual([a.customerId]);
    expect((await call(t.app, tokens.customer, 'GET', `/restapi/policies/${a.policyId}`)).statusCode).toBe(200);
    expect((await call(t.app, tokens.sales, 'GET', `/restapi/msp/${b.mspId}`)).statusCode).toBe(200);
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
