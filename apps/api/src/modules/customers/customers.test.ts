import { testDialects } from '@cordon/db/testing';
import { categoriesBlockedAt, Messages } from '@cordon/shared';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { call, createTenant, createTestApp, login, type TestApp } from '../../../test/helpers.ts';

describe.each(testDialects())('customers on %s', (dialect) => {
  let t: TestApp;
  beforeEach(async () => {
    t = await createTestApp(dialect);
  });
  afterEach(async () => {
    await t.close();
  });

  it('creates a customer with a uuid, a default policy at its level and an admin', async () => {
    const a = await createTenant(t, 1);
    const res = await call(t.app, a.mspToken, 'POST', '/restapi/users', {
      accountName: 'School 1',
      default_level: 'moderate',
      admin_email: 'head@school.test',
      admin_password: 'Sch00l-pass',
    });
    expect(res.statusCode).toBe(201);
    const customer = res.json();
    expect(customer).toMatchObject({ accountName: 'School 1', msp_id: a.mspId, msp_name: 'MSP 1', timezone: '' });
    expect(customer.uuid_str).toMatch(/^[0-9a-f-]{36}$/);
    const policy = (await call(t.app, a.mspToken, 'GET', `/restapi/policies/default?user_id=${customer.id}`)).json();
    expect(policy).toMatchObject({
      id: customer.default_policy_id,
      name: 'Default',
      filtering_level: 'moderate',
      is_default: true,
    });
    const cats = (await call(t.app, a.mspToken, 'GET', `/restapi/policies/${policy.id}/categories`)).json();
    expect(cats.filter((c: { allowed: boolean }) => c.allowed).map((c: { id: number }) => c.id)).toEqual(
      categoriesBlockedAt('moderate'),
    );
    const token = await login(t.app, 'head@school.test', 'Sch00l-pass');
    expect((await call(t.app, token, 'GET', `/restapi/users/${customer.id}`)).json().id).toBe(customer.id);

    const upd = await call(t.app, token, 'POST', `/restapi/users/${customer.id}`, { timezone: 'America/New_York' });
    expect(upd.json().timezone).toBe('America/New_York');
    const badTz = await call(t.app, token, 'POST', `/restapi/users/${customer.id}`, { timezone: 'Mars/Base' });
    expect(badTz.statusCode).toBe(400);
    const list = await call(t.app, t.rootToken, 'GET', `/restapi/users/?msp_id=${a.mspId}&sortkey=name&sortdir=desc`);
    expect(list.json().data.map((c: { accountName: string }) => c.accountName)).toEqual(['School 1', 'Customer 1']);
  });

  it("answers an MSP's account with all its customers, unpaged and by name (GET /users/{id}/all)", async () => {
    const a = await createTenant(t, 1);
    const b = await createTenant(t, 2);
    for (const name of ['zeta School', 'Alpha Academy']) {
      await call(t.app, a.mspToken, 'POST', '/restapi/users/', { accountName: name });
    }
    const all = await call(t.app, a.mspToken, 'GET', `/restapi/users/${a.mspId}/all`);
    expect(all.statusCode, all.body).toBe(200);
    expect(all.json().id).toBe(a.mspId);
    expect(all.json().accountName).toBe('MSP 1');
    expect(all.json().allCustomers.map((c: { accountName: string }) => c.accountName)).toEqual([
      'Alpha Academy',
      'Customer 1',
      'zeta School',
    ]);
    expect(all.json().allCustomers[0]).toEqual({
      id: expect.any(Number),
      accountName: 'Alpha Academy',
      uuid_str: expect.any(String),
      timezone: '',
    });
    expect((await call(t.app, t.rootToken, 'GET', `/restapi/users/${b.mspId}/all`)).json().allCustomers).toHaveLength(
      1,
    );
    expect((await call(t.app, a.mspToken, 'GET', `/restapi/users/${b.mspId}/all`)).statusCode).toBe(404);
    expect((await call(t.app, a.customerToken, 'GET', `/restapi/users/${a.mspId}/all`)).statusCode).toBe(403);
  });

  it('pages the list by name case-insensitively, each customer with its own default policy', async () => {
    const a = await createTenant(t, 1);
    const b = await createTenant(t, 2);
    for (const name of ['beta', 'Alpha', 'alpha two', 'Gamma']) {
      const res = await call(t.app, a.mspToken, 'POST', '/restapi/users/', { accountName: name });
      expect(res.statusCode, res.body).toBe(201);
    }
    const page = async (offset: number, sortdir = 'asc') =>
      (
        await call(
          t.app,
          t.rootToken,
          'GET',
          `/restapi/users/?limit=2&offset=${offset}&sortkey=name&sortdir=${sortdir}`,
        )
      ).json();
    const names: string[] = [];
    for (let offset = 0; offset < 6; offset += 2) {
      const p = await page(offset);
      expect(p.total).toBe(6);
      names.push(...p.data.map((c: { accountName: string }) => c.accountName));
      // Each row carries the default policy GET /users/{id} answers (read for the page's rows only).
      for (const c of p.data) {
        const one = (await call(t.app, t.rootToken, 'GET', `/restapi/users/${c.id}`)).json();
        expect(c.default_policy_id).toBe(one.default_policy_id);
        expect(c.default_policy_id).toEqual(expect.any(Number));
      }
    }
    expect(names).toEqual(['Alpha', 'alpha two', 'beta', 'Customer 1', 'Customer 2', 'Gamma']);
    expect((await page(0, 'desc')).data.map((c: { accountName: string }) => c.accountName)).toEqual([
      'Gamma',
      'Customer 2',
    ]);
    // An MSP admin pages its own customers only; the customer of MSP 2 never shows.
    const own = (await call(t.app, a.mspToken, 'GET', '/restapi/users/?limit=10&filter=a')).json();
    expect(own.data.map((c: { accountName: string }) => c.accountName)).toEqual([
      'Alpha',
      'alpha two',
      'beta',
      'Gamma',
    ]);
    expect(own.data.every((c: { msp_id: number }) => c.msp_id === a.mspId)).toBe(true);
    expect(b.customerId).not.toBe(a.customerId);
  });

  it("refuses a customer beyond the MSP's licence with a clear message, changing nothing", async () => {
    const msp = (
      await call(t.app, t.rootToken, 'POST', '/restapi/msp', { name: 'Tiny', company_name: 'Tiny Ltd', license: '2' })
    ).json();
    for (const name of ['One', 'Two']) {
      const ok = await call(t.app, t.rootToken, 'POST', '/restapi/users/', { accountName: name, msp_id: msp.id });
      expect(ok.statusCode, ok.body).toBe(201);
    }
    const third = await call(t.app, t.rootToken, 'POST', '/restapi/users/', { accountName: 'Three', msp_id: msp.id });
    expect(third.statusCode).toBe(409);
    const message =
      "The MSP's licence allows 2 customers, and all are in use. Delete a customer or raise the licence first.";
    expect(third.json()).toEqual({ error: message, code: 'ERR_CONFLICT', fields: { accountName: message } });
    expect((await call(t.app, t.rootToken, 'GET', `/restapi/users/?msp_id=${msp.id}`)).json().total).toBe(2);
    // Raising the licence (or a licence that is not a number: no limit) lets it through.
    await call(t.app, t.rootToken, 'PUT', `/restapi/msp/${msp.id}`, { license: 'Enterprise' });
    expect(
      (await call(t.app, t.rootToken, 'POST', '/restapi/users/', { accountName: 'Three', msp_id: msp.id })).statusCode,
    ).toBe(201);
  });

  it('requires msp_id from a system admin and refuses a duplicate customer name', async () => {
    const a = await createTenant(t, 1);
    const noMsp = await call(t.app, t.rootToken, 'POST', '/restapi/users/', { accountName: 'X' });
    expect(noMsp.statusCode).toBe(400);
    expect(noMsp.json().fields).toEqual({ msp_id: Messages.required });
    const dup = await call(t.app, t.rootToken, 'POST', '/restapi/users/', {
      accountName: 'Customer 1',
      msp_id: a.mspId,
    });
    expect(dup.statusCode).toBe(409);
    const missing = await call(t.app, t.rootToken, 'POST', '/restapi/users/', { accountName: 'Y', msp_id: 999 });
    expect(missing.statusCode).toBe(404);
  });
});
