import { testDialects } from '@cordon/db/testing';
import { categoriesBlockedAt, Messages } from '@cordon/shared';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { call, createTenant, createTestApp, login, snapshot, type TestApp } from './helpers.ts';

describe.each(testDialects())('MSPs and customers on %s', (dialect) => {
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
    const del = await call(t.app, t.rootToken, 'DELETE', `/restapi/msp/${msp.id}`);
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

describe.each(testDialects())('policies on %s', (dialect) => {
  let t: TestApp;
  beforeEach(async () => {
    t = await createTestApp(dialect);
  });
  afterEach(async () => {
    await t.close();
  });

  it('creates a policy from the current category levels, not the built-in ones', async () => {
    const a = await createTenant(t, 1);
    // The system admin moved Games (21, H) to L: new low policies block it (spec §4).
    await t.handle.db.updateTable('categories').set({ level: 'L' }).where('id', '=', 21).execute();
    t.published.length = 0;
    const res = await call(t.app, a.customerToken, 'POST', '/restapi/policies', {
      user_id: a.customerId,
      name: 'Kids',
      filtering_level: 'low',
    });
    expect(res.statusCode).toBe(201);
    expect(t.published).toEqual(['policies']);
    const cats = (await call(t.app, a.customerToken, 'GET', `/restapi/policies/${res.json().id}/categories`)).json();
    expect(cats).toHaveLength(54);
    const blocked = cats.filter((c: { allowed: boolean }) => c.allowed).map((c: { id: number }) => c.id);
    expect(blocked).toContain(21);
    expect(blocked).toEqual([...categoriesBlockedAt('low'), 21].sort((x, y) => x - y));
    expect(cats.find((c: { id: number }) => c.id === 21)).toEqual({ id: 21, name: 'Games', level: 'L', allowed: true });
  });

  it('lists with show_default, requires user_id from MSP admins, and sorts by whitelisted keys', async () => {
    const a = await createTenant(t, 1);
    const all = await call(t.app, a.mspToken, 'GET', `/restapi/policies?user_id=${a.customerId}`);
    expect(all.json().total).toBe(2);
    const noDefault = await call(
      t.app,
      a.mspToken,
      'GET',
      `/restapi/policies?user_id=${a.customerId}&show_default=false`,
    );
    expect(noDefault.json()).toMatchObject({ total: 1, data: [{ id: a.policyId, first_location: 'Office 1' }] });
    expect(noDefault.json().data[0].locations).toEqual([
      { id: a.locationId, name: 'Office 1', type: 'staticip', addresses: [{ ip: '10.1.0.0/16' }] },
    ]);
    const missing = await call(t.app, a.mspToken, 'GET', '/restapi/policies');
    expect(missing.statusCode).toBe(400);
    expect(missing.json().fields).toEqual({ user_id: Messages.required });
    expect((await call(t.app, a.customerToken, 'GET', '/restapi/policies?sortkey=nope')).statusCode).toBe(400);
    const page = await call(t.app, a.customerToken, 'GET', '/restapi/policies?limit=1&offset=1&sortkey=name');
    expect(page.json()).toMatchObject({ total: 2, data: [{ name: 'Strict 1' }] });
  });

  it('resets categories on a level change, keeps them for custom, and derives the level from a category edit', async () => {
    const a = await createTenant(t, 1);
    const url = `/restapi/policies/${a.policyId}`;
    const blockedOf = async () =>
      (await call(t.app, a.customerToken, 'GET', `${url}/categories`))
        .json()
        .filter((c: { allowed: boolean }) => c.allowed)
        .map((c: { id: number }) => c.id);
    expect(await blockedOf()).toEqual(categoriesBlockedAt('high'));

    const low = await call(t.app, a.customerToken, 'PUT', url, { filtering_level: 'low', description: 'For staff' });
    expect(low.json()).toMatchObject({ filtering_level: 'low', description: 'For staff' });
    expect(await blockedOf()).toEqual(categoriesBlockedAt('low'));

    // Block Games (21) too: no named level has that set → custom. The wire flag allowed:true means blocked.
    t.published.length = 0;
    const put = await call(t.app, a.customerToken, 'PUT', `${url}/categories`, [{ id: 21, allowed: true }]);
    expect(put.statusCode).toBe(200);
    expect(put.json().find((c: { id: number }) => c.id === 21).allowed).toBe(true);
    expect(t.published).toEqual(['policies']);
    expect((await call(t.app, a.customerToken, 'GET', url)).json().filtering_level).toBe('custom');

    await call(t.app, a.customerToken, 'PUT', url, { filtering_level: 'custom' });
    expect(await blockedOf()).toEqual([...categoriesBlockedAt('low'), 21].sort((x, y) => x - y));

    // Unblocking 21 again gives exactly the low set → low.
    await call(t.app, a.customerToken, 'PUT', `${url}/categories`, [{ id: 21, allowed: false }]);
    expect((await call(t.app, a.customerToken, 'GET', url)).json().filtering_level).toBe('low');

    const before = await snapshot(t.handle);
    const bad = await call(t.app, a.customerToken, 'PUT', `${url}/categories`, [{ id: 41, allowed: true }]);
    expect(bad.statusCode).toBe(400);
    expect(bad.json().fields).toEqual({ '0.id': 'Unknown category.' });
    expect(await snapshot(t.handle)).toBe(before);
  });

  it('edits the default policy through /policies/default and refuses to delete it', async () => {
    const a = await createTenant(t, 1);
    const put = await call(t.app, a.customerToken, 'PUT', '/restapi/policies/default', { filtering_level: 'high' });
    expect(put.json()).toMatchObject({ id: a.defaultPolicyId, filtering_level: 'high' });
    const cats = await call(t.app, a.mspToken, 'POST', `/restapi/policies/default/categories?user_id=${a.customerId}`, [
      { id: 0, allowed: true },
    ]);
    expect(cats.json().find((c: { id: number }) => c.id === 0).allowed).toBe(true);
    const got = await call(t.app, a.mspToken, 'GET', `/restapi/policies/default/categories?user_id=${a.customerId}`);
    expect(got.json()).toEqual(cats.json());
    expect((await call(t.app, a.mspToken, 'DELETE', `/restapi/policies/${a.defaultPolicyId}`)).statusCode).toBe(409);
    // Deleting a named policy moves its locations to the default.
    expect((await call(t.app, a.mspToken, 'DELETE', `/restapi/policies/${a.policyId}`)).statusCode).toBe(200);
    const loc = await call(
      t.app,
      a.mspToken,
      'GET',
      `/restapi/users/${a.customerId}/locations/staticip/${a.locationId}`,
    );
    expect(loc.json()).toMatchObject({ policy_id: null, policy_name: 'Default' });
  });

  it('refuses a duplicate policy name with 409', async () => {
    const a = await createTenant(t, 1);
    const res = await call(t.app, a.customerToken, 'POST', '/restapi/policies', {
      user_id: a.customerId,
      name: 'Strict 1',
    });
    expect(res.statusCode).toBe(409);
    expect(res.json().fields).toHaveProperty('name');
  });
});

describe.each(testDialects())('locations on %s', (dialect) => {
  let t: TestApp;
  beforeEach(async () => {
    // Customer admins here claim private ranges up to /16; the claim limits have their own tests.
    t = await createTestApp(dialect, { claims: { allowPrivate: true, maxPrefixV4: 16 } });
  });
  afterEach(async () => {
    await t.close();
  });

  it('creates, reads, updates and lists static-IP locations with normalised addresses', async () => {
    const a = await createTenant(t, 1);
    const base = `/restapi/users/${a.customerId}/locations`;
    t.published.length = 0;
    const res = await call(t.app, a.customerToken, 'POST', `${base}/staticip`, {
      name: 'Branch',
      addresses: ['192.168.10.77/24', '2001:db8::1', '192.168.10.0/24'],
    });
    expect(res.statusCode).toBe(201);
    expect(t.published).toEqual(['locations']);
    const loc = res.json();
    expect(loc).toMatchObject({
      type: 'staticip',
      name: 'Branch',
      policy_id: null,
      policy_name: 'Default',
      key: null,
      ip: '192.168.10.0/24',
    });
    expect(loc.addresses.map((x: { ip: string }) => x.ip)).toEqual(['192.168.10.0/24', '2001:db8::1/128']);

    const upd = await call(t.app, a.customerToken, 'POST', `${base}/staticip/${loc.id}`, {
      policy_id: a.policyId,
      addresses: ['203.0.113.5'],
    });
    expect(upd.json()).toMatchObject({
      policy_id: a.policyId,
      policy_name: 'Strict 1',
      addresses: [{ ip: '203.0.113.5/32' }],
    });

    const all = await call(t.app, a.customerToken, 'GET', `${base}/all?sortkey=name`);
    expect(all.json().data.map((l: { name: string }) => l.name)).toEqual(['Branch', 'Office 1']);
    expect((await call(t.app, a.customerToken, 'GET', `${base}/roaming`)).json()).toEqual({ data: [], total: 0 });
    expect((await call(t.app, a.customerToken, 'GET', `${base}/nowhere`)).statusCode).toBe(400);
  });

  it('manages addresses one by one and keeps at least one', async () => {
    const a = await createTenant(t, 1);
    const base = `/restapi/users/${a.customerId}/locations/staticip/${a.locationId}/addresses`;
    const added = await call(t.app, a.mspToken, 'POST', base, { ip: '198.51.100.0/24' });
    expect(added.statusCode).toBe(201);
    expect(added.json()).toMatchObject({ ip: '198.51.100.0/24' });
    expect((await call(t.app, a.mspToken, 'GET', base)).json().total).toBe(2);
    expect((await call(t.app, a.mspToken, 'DELETE', `${base}/${added.json().id}`)).json()).toEqual({ deleted: true });
    const last = await call(t.app, a.mspToken, 'DELETE', `${base}/${a.addressId}`);
    expect(last.statusCode).toBe(409);
    const bad = await call(t.app, a.mspToken, 'POST', base, { ip: '300.1.1.1' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toEqual({
      error: 'IP must be valid IP or CIDR.',
      code: 'ERR_VALIDATION',
      fields: { ip: 'IP must be valid IP or CIDR.' },
    });
  });

  it('refuses an address any other location of any tenant uses with 409, without naming it', async () => {
    const a = await createTenant(t, 1);
    const b = await createTenant(t, 2);
    const before = await snapshot(t.handle);
    // Tenant B's 10.2.0.0/16, written differently.
    const res = await call(t.app, a.customerToken, 'POST', `/restapi/users/${a.customerId}/locations/staticip`, {
      name: 'Clash',
      addresses: ['172.16.0.1', '10.2.99.1/16'],
    });
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toBe('The address 10.2.0.0/16 is already used by another location.');
    expect(res.json().error).not.toContain('Customer 2');
    const add = await call(
      t.app,
      a.customerToken,
      'POST',
      `/restapi/users/${a.customerId}/locations/staticip/${a.locationId}/addresses`,
      { ip: '10.2.0.0/16' },
    );
    expect(add.statusCode).toBe(409);
    expect(await snapshot(t.handle)).toBe(before);
    // Re-saving one's own addresses is not a conflict.
    const same = await call(
      t.app,
      b.customerToken,
      'POST',
      `/restapi/users/${b.customerId}/locations/staticip/${b.locationId}`,
      {
        addresses: ['10.2.0.0/16'],
      },
    );
    expect(same.statusCode).toBe(200);
  });

  it('validates location bodies with field messages', async () => {
    const a = await createTenant(t, 1);
    const res = await call(t.app, a.customerToken, 'POST', `/restapi/users/${a.customerId}/locations/staticip`, {
      addresses: ['10.9.9.9', 'not-an-ip'],
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().fields).toEqual({ name: Messages.required, 'addresses.1': 'IP must be valid IP or CIDR.' });
    const none = await call(t.app, a.customerToken, 'POST', `/restapi/users/${a.customerId}/locations/staticip`, {
      name: 'Empty',
      addresses: [],
    });
    expect(none.json().fields).toHaveProperty('addresses');
  });
});
