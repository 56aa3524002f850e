import { testDialects } from '@cordon/db/testing';
import { Messages } from '@cordon/shared';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { call, createTenant, createTestApp, login, snapshot, type TestApp } from '../../../test/helpers.ts';

describe.each(testDialects())('MSPs on %s', (dialect) => {
  let t: TestApp;
  beforeEach(async () => {
    t = await createTestApp(dialect);
  });
  afterEach(async () => {
    await t.close();
  });

  it('creates, reads, updates, lists and deletes an MSP, publishing tenants', async () => {
    const created = await call(t.app, t.rootToken, 'POST', '/restapi/msp', {
      name: 'Acme IT',
      company_name: 'Acme IT Ltd',
      timezone: 'Europe/Paris',
      admin_email: 'Boss@Acme.test',
      admin_password: 'Acme-pass1',
    });
    expect(created.statusCode).toBe(201);
    const msp = created.json();
    expect(msp).toMatchObject({
      name: 'Acme IT',
      company_name: 'Acme IT Ltd',
      license: '',
      timezone: 'Europe/Paris',
      customers_count: 0,
    });
    expect(t.published).toContain('tenants');
    // The primary admin logs in as an is_default role-3 admin (e-mail lower-cased).
    const mspToken = await login(t.app, 'boss@acme.test', 'Acme-pass1');
    const own = await call(t.app, mspToken, 'PUT', `/restapi/msp/${msp.id}`, { company_name: 'Acme Group' });
    expect(own.json().company_name).toBe('Acme Group');
    const license = await call(t.app, mspToken, 'PUT', `/restapi/msp/${msp.id}`, { license: 'gold' });
    expect(license.statusCode).toBe(400);

    const list = await call(t.app, t.rootToken, 'GET', '/restapi/msp?filter=acme&sortkey=company_name&sortdir=desc');
    expect(list.json()).toMatchObject({ total: 1, data: [{ id: msp.id }] });
    expect((await call(t.app, t.rootToken, 'GET', '/restapi/msp?sortkey=password')).statusCode).toBe(400);

    t.published.length = 0;
    // Its admin goes with it: the name confirms the cascade (docs/api.md "Deletes of things in use").
    const refused = await call(t.app, t.rootToken, 'DELETE', `/restapi/msp/${msp.id}`);
    expect(refused.json()).toMatchObject({
      code: 'ERR_IN_USE',
      dependants: { admins: { count: 1, names: ['boss@acme.test'] } },
    });
    const wrong = await call(t.app, t.rootToken, 'DELETE', `/restapi/msp/${msp.id}?confirm_name=acme%20it`);
    expect(wrong.json().fields).toEqual({ confirm_name: 'Type the exact name to confirm.' });
    t.published.length = 0;
    const del = await call(t.app, t.rootToken, 'DELETE', `/restapi/msp/${msp.id}?confirm_name=Acme%20IT`);
    expect(del.json()).toEqual({ deleted: true });
    expect(t.published).toContain('tenants');
    expect((await call(t.app, t.rootToken, 'GET', `/restapi/msp/${msp.id}`)).statusCode).toBe(404);
  });

  it('validates MSP bodies with the spec messages and changes nothing', async () => {
    const before = await snapshot(t.handle);
    const res = await call(t.app, t.rootToken, 'POST', '/restapi/msp', {
      name: '',
      company_name: 'x'.repeat(201),
      admin_email: 'nope',
    });
    expect(res.statusCode).toBe(400);
    const body = res.json();
    expect(body.code).toBe('ERR_VALIDATION');
    expect(body.fields).toMatchObject({
      name: Messages.required,
      company_name: Messages.max200,
      admin_email: Messages.invalidEmail,
    });
    expect(body.error).toBe(Object.values(body.fields)[0]);
    const bad = await call(t.app, t.rootToken, 'POST', '/restapi/msp', { name: 'Bad<script>', company_name: 'x' });
    expect(Object.keys(bad.json().fields)).toEqual(['name']);
    const json = await t.app.inject({
      method: 'POST',
      url: '/restapi/msp',
      headers: { authorization: `Bearer ${t.rootToken}`, 'content-type': 'application/json' },
      payload: '{"name":',
    });
    expect(json.statusCode).toBe(400);
    expect(json.json().error).toBe(Messages.invalidJson);
    expect(await snapshot(t.handle)).toBe(before);
  });

  it('refuses a duplicate MSP name or admin e-mail with 409 and no partial write', async () => {
    await createTenant(t, 1);
    const before = await snapshot(t.handle);
    const dupName = await call(t.app, t.rootToken, 'POST', '/restapi/msp', { name: 'MSP 1', company_name: 'x' });
    expect(dupName.statusCode).toBe(409);
    const dupEmail = await call(t.app, t.rootToken, 'POST', '/restapi/msp', {
      name: 'MSP 9',
      company_name: 'x',
      admin_email: 'msp1@example.test',
      admin_password: 'Passw0rd!',
    });
    expect(dupEmail.statusCode).toBe(409);
    expect(dupEmail.json().fields).toHaveProperty('admin_email');
    expect(await snapshot(t.handle)).toBe(before);
  });
});
