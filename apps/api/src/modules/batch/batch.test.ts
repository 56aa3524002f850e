import { testDialects } from '@cordon/db/testing';
import { batchNestedMessage, batchTooLargeMessage, Constants, ErrorTexts } from '@cordon/shared';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  call,
  createTenant,
  createTestApp,
  snapshot,
  type TenantFixture,
  type TestApp,
} from '../../../test/helpers.ts';

const notFound = { error: ErrorTexts.notFound, code: 'ERR_NOT_FOUND' };

describe.each(testDialects())('POST /batch on %s', (dialect) => {
  let t: TestApp;
  let a: TenantFixture;
  let b: TenantFixture;
  beforeEach(async () => {
    t = await createTestApp(dialect);
    a = await createTenant(t, 1);
    b = await createTenant(t, 2);
    t.published.length = 0;
  });
  afterEach(async () => {
    await t.close();
  });

  const batch = (token: string, body: unknown) => call(t.app, token, 'POST', '/restapi/batch', body);

  it('answers each sub-request by id with its own status and body, in order, mixed statuses included', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/restapi/batch',
      remoteAddress: '203.0.113.9',
      headers: { authorization: `Bearer ${a.customerToken}` },
      payload: {
        list: { method: 'GET', path: '/policies', parameters: { sortkey: 'name', sortdir: 'desc', limit: 1 } },
        create: { method: 'post', path: '/policies', parameters: { user_id: a.customerId, name: 'Kids' } },
        rename: {
          method: 'PATCH',
          path: `/users/${a.customerId}/policies/${a.policyId}`,
          parameters: { name: 'Calm' },
        },
        dup: { method: 'POST', path: '/policies', parameters: { user_id: a.customerId, name: 'Kids' } },
        bad: { method: 'GET', path: '/policies', parameters: { sortkey: 'nope' } },
        gone: { method: 'DELETE', path: '/policies/999999' },
        missing: { method: 'GET', path: '/no/such/route' },
        wrongMethod: { method: 'PATCH', path: '/policies' },
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    const out = res.json();
    expect(Object.keys(out)).toEqual(['list', 'create', 'rename', 'dup', 'bad', 'gone', 'missing', 'wrongMethod']);
    expect(out.list.status).toBe(200);
    expect(out.list.body).toMatchObject({ total: 2, data: [{ name: 'Strict 1' }] });
    expect(out.create).toMatchObject({ status: 201, body: { name: 'Kids', user_id: a.customerId } });
    expect(out.rename).toMatchObject({ status: 200, body: { id: a.policyId, name: 'Calm', filtering_level: 'high' } });
    expect(out.dup).toMatchObject({ status: 409, body: { code: 'ERR_CONFLICT' } });
    expect(out.bad).toMatchObject({ status: 400, body: { code: 'ERR_VALIDATION' } });
    expect(out.gone).toEqual({ status: 404, body: notFound });
    expect(out.missing.status).toBe(404);
    expect(out.wrongMethod.status).toBe(405);
    // Each write went through the one mutation path: its own audit rows and topics.
    expect(t.published).toEqual(['policies', 'policies']);
    const audits = await t.handle.db
      .selectFrom('audit_log')
      .select(['action', 'client_ip'])
      .orderBy('id', 'desc')
      .limit(2)
      .execute();
    expect(audits.map((r) => r.action).sort()).toEqual(['policy.create', 'policy.update']);
    // …recording the batch caller's address, not the in-process injection's.
    expect(audits.map((r) => r.client_ip)).toEqual(['203.0.113.9', '203.0.113.9']);
  });

  it('refuses foreign ids item by item exactly as if each were sent alone, and runs the rest', async () => {
    const before = await snapshot(t.handle);
    const res = await batch(a.mspToken, {
      foreignPolicy: { method: 'DELETE', path: `/policies/${b.policyId}` },
      foreignPatch: {
        method: 'PATCH',
        path: `/users/${b.customerId}/policies/${b.policyId}`,
        parameters: { name: 'X' },
      },
      ownCustomerForeignPolicy: {
        method: 'PATCH',
        path: `/users/${a.customerId}/policies/${b.policyId}`,
        parameters: { name: 'X' },
      },
      foreignLocation: { method: 'DELETE', path: `/users/${b.customerId}/locations/staticip/${b.locationId}` },
      systemOnly: { method: 'POST', path: '/msp', parameters: { name: 'Rogue', company_name: 'Rogue' } },
      own: { method: 'GET', path: `/policies/${a.policyId}` },
    });
    expect(res.statusCode).toBe(200);
    const out = res.json();
    for (const id of ['foreignPolicy', 'foreignPatch', 'ownCustomerForeignPolicy', 'foreignLocation']) {
      expect(out[id], id).toEqual({ status: 404, body: notFound });
      const alone = await call(
        t.app,
        a.mspToken,
        id === 'foreignPolicy' ? 'DELETE' : 'GET',
        `/restapi/policies/${b.policyId}`,
      );
      expect(alone.statusCode).toBe(404);
    }
    expect(out.systemOnly).toEqual({ status: 403, body: { error: ErrorTexts.forbidden, code: 'ERR_FORBIDDEN' } });
    expect(out.own).toMatchObject({ status: 200, body: { id: a.policyId } });
    expect(await snapshot(t.handle)).toBe(before);
    expect(t.published).toEqual([]);
  });

  it('refuses more than 100 sub-requests with 400 and runs none', async () => {
    const body = (n: number) =>
      Object.fromEntries(
        Array.from({ length: n }, (_, i) => [
          `d${i}`,
          { method: 'POST', path: '/policies', parameters: { user_id: a.customerId, name: `P${i}` } },
        ]),
      );
    const before = await snapshot(t.handle);
    const res = await batch(a.customerToken, body(Constants.batchMaxRequests + 1));
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'ERR_VALIDATION', error: batchTooLargeMessage });
    expect(await snapshot(t.handle)).toBe(before);
    const ok = await batch(a.customerToken, body(Constants.batchMaxRequests));
    expect(ok.statusCode).toBe(200);
    expect(Object.values(ok.json()).every((r) => (r as { status: number }).status === 201)).toBe(true);
  });

  it('refuses a nested batch, a bad path or method and a bad id with 400, running nothing', async () => {
    const before = await snapshot(t.handle);
    const del = { method: 'DELETE', path: `/policies/${a.policyId}` };
    const cases: Array<[unknown, string]> = [
      [{ first: del, inner: { method: 'POST', path: '/batch', parameters: {} } }, 'inner.path'],
      [{ first: del, inner: { method: 'POST', path: '/batch/' } }, 'inner.path'],
      [{ first: del, x: { method: 'GET', path: '/restapi/../msp' } }, 'x.path'],
      [{ first: del, x: { method: 'GET', path: 'policies' } }, 'x.path'],
      [{ first: del, x: { method: 'GET', path: '/policies?user_id=1' } }, 'x.path'],
      [{ first: del, x: { method: 'GET', path: '//evil.example/x' } }, 'x.path'],
      [{ first: del, x: { method: 'HEAD', path: '/policies' } }, 'x.method'],
      [{ first: del, x: { method: 'GET', path: '/policies', parameters: { a: { b: 1 } } } }, 'x.parameters'],
      [{ first: del, 'bad id!': { method: 'GET', path: '/policies' } }, 'bad id!'],
    ];
    for (const [body, field] of cases) {
      const res = await batch(a.customerToken, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(Object.keys(res.json().fields ?? {}), JSON.stringify(body)).toContain(field);
    }
    const nested = await batch(a.customerToken, { inner: { method: 'POST', path: '/batch' } });
    expect(nested.json().fields).toEqual({ 'inner.path': batchNestedMessage });
    expect(await snapshot(t.handle)).toBe(before);
    expect((await batch(a.customerToken, {})).json()).toEqual({});
    expect((await call(t.app, undefined, 'POST', '/restapi/batch', { x: del })).statusCode).toBe(401);
  });

  it('sends GET and DELETE parameters as the query, lists as repeated keys', async () => {
    const res = await batch(t.rootToken, {
      noDefault: { method: 'GET', path: '/policies', parameters: { user_id: a.customerId, show_default: false } },
      withDefault: { method: 'GET', path: '/policies', parameters: { user_id: a.customerId, filter: 'def' } },
    });
    expect(res.json().noDefault.body.total).toBe(1);
    expect(res.json().withDefault.body).toMatchObject({ total: 1, data: [{ name: 'Default' }] });
  });
});
