import { testDialects } from '@cordon/db/testing';
import { Messages } from '@cordon/shared';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { call, createTenant, createTestApp, snapshot, type TestApp } from '../../../test/helpers.ts';

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
