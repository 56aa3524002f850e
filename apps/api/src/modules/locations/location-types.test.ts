import { locations } from '@cordon/core';
import { testDialects } from '@cordon/db/testing';
import { DEFAULT_CLAIM_LIMITS, Messages } from '@cordon/shared';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { call, createTenant, createTestApp, snapshot, type TestApp } from '../../../test/helpers.ts';

describe.each(testDialects())('location types on %s', (dialect) => {
  let t: TestApp;
  beforeEach(async () => {
    t = await createTestApp(dialect);
  });
  afterEach(async () => {
    await t.close();
  });

  it('creates, reads, edits and deletes dynamic-IP, dynamic-DNS, roaming and virtual locations', async () => {
    const a = await createTenant(t, 1);
    const base = `/restapi/users/${a.customerId}/locations`;
    t.published.length = 0;

    const dyn = await call(t.app, a.customerToken, 'POST', `${base}/dynamicip`, { name: 'Home', ip: '203.0.113.9' });
    expect(dyn.statusCode).toBe(201);
    expect(dyn.json()).toMatchObject({
      type: 'dynamicip',
      name: 'Home',
      addresses: [{ ip: '203.0.113.9/32' }],
      ip: '203.0.113.9/32',
      hostname: null,
    });
    expect(dyn.json().key).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(dyn.json().addresses_updated_at).not.toBeNull();

    const dns = await call(t.app, a.customerToken, 'POST', `${base}/dynamicdns`, {
      name: 'Shop',
      hostname: 'Shop.Example.NET.',
      policy_id: a.policyId,
    });
    expect(dns.statusCode).toBe(201);
    expect(dns.json()).toMatchObject({
      hostname: 'shop.example.net',
      key: null,
      addresses: [],
      policy_name: 'Strict 1',
    });

    const roaming = await call(t.app, a.customerToken, 'POST', `${base}/roaming`, { name: 'Laptops' });
    const virtual = await call(t.app, a.customerToken, 'POST', `${base}/virtual`, { name: 'Kiosk' });
    expect(roaming.json()).toMatchObject({ type: 'roaming', addresses: [], ip: null });
    expect(virtual.json().key).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(virtual.json().key).not.toBe(roaming.json().key);
    expect(t.published).toEqual(['locations', 'locations', 'locations', 'locations']);

    // Read by type; the wrong type is not found.
    const got = await call(t.app, a.customerToken, 'GET', `${base}/virtual/${virtual.json().id}`);
    expect(got.json()).toEqual(virtual.json());
    expect((await call(t.app, a.customerToken, 'GET', `${base}/roaming/${virtual.json().id}`)).statusCode).toBe(404);

    // Edit: a new key replaces the old one; the spec's POST sets a dynamic IP's address.
    const rekeyed = await call(t.app, a.customerToken, 'POST', `${base}/virtual/${virtual.json().id}`, {
      name: 'Kiosk 2',
      regenerate_key: true,
    });
    expect(rekeyed.statusCode).toBe(200);
    expect(rekeyed.json().name).toBe('Kiosk 2');
    expect(rekeyed.json().key).not.toBe(virtual.json().key);
    const moved = await call(t.app, a.customerToken, 'POST', `${base}/dynamicip/${dyn.json().id}`, {
      ip: '2001:db8::7',
    });
    expect(moved.json().addresses).toEqual([{ id: expect.any(Number), ip: '2001:db8::7/128' }]);
    const renamed = await call(t.app, a.customerToken, 'POST', `${base}/dynamicdns/${dns.json().id}`, {
      hostname: 'other.example.net',
      policy_id: null,
    });
    expect(renamed.json()).toMatchObject({ hostname: 'other.example.net', policy_id: null, policy_name: 'Default' });

    const all = await call(t.app, a.customerToken, 'GET', `${base}/all?sortkey=type&limit=100`);
    expect(all.json().data.map((l: { type: string }) => l.type)).toEqual([
      'dynamicdns',
      'dynamicip',
      'roaming',
      'staticip',
      'virtual',
    ]);

    const del = await call(t.app, a.customerToken, 'DELETE', `${base}/roaming/${roaming.json().id}`);
    expect(del.json()).toEqual({ deleted: true });
    expect((await call(t.app, a.customerToken, 'GET', `${base}/roaming/${roaming.json().id}`)).statusCode).toBe(404);
    const audit = await t.handle.db
      .selectFrom('audit_log')
      .select(['action', 'before_json', 'after_json'])
      .where('entity', '=', 'location')
      .execute();
    // Keys never reach the audit trail.
    for (const row of audit) {
      expect(`${row.before_json}${row.after_json}`).not.toContain(virtual.json().key);
      expect(`${row.before_json}${row.after_json}`).not.toContain(rekeyed.json().key);
    }
  });

  it('refuses fields a type does not take, a dynamic-DNS location without its host, and bad values', async () => {
    const a = await createTenant(t, 1);
    const base = `/restapi/users/${a.customerId}/locations`;
    const before = await snapshot(t.handle);
    const cases: Array<[string, unknown, string, string]> = [
      ['dynamicdns', { name: 'No host' }, 'hostname', Messages.required],
      ['dynamicdns', { name: 'URL', hostname: 'https://x.example/' }, 'hostname', Messages.domainOnly],
      ['roaming', { name: 'Host', hostname: 'x.example' }, 'hostname', 'Only a dynamic DNS location has a host name.'],
      ['virtual', { name: 'Addr', ip: '203.0.113.1' }, 'ip', 'Only a dynamic IP location has an address to set.'],
      ['dynamicip', { name: 'Bad', ip: '203.0.113.0/24' }, 'ip', Messages.invalidIp],
      ['dynamicip', { name: 'Private', ip: '10.1.2.3' }, 'ip', 'Private addresses cannot be claimed: 10.1.2.3/32.'],
    ];
    for (const [type, body, field, message] of cases) {
      const res = await call(t.app, a.customerToken, 'POST', `${base}/${type}`, body);
      expect(res.statusCode, `${type} ${JSON.stringify(body)}`).toBe(400);
      expect(res.json().fields[field]).toBe(message);
    }
    expect((await call(t.app, a.customerToken, 'POST', `${base}/elsewhere`, { name: 'X' })).statusCode).toBe(400);
    // An address another location holds: 409, nothing written.
    await call(t.app, a.customerToken, 'POST', `${base}/dynamicip`, { name: 'First', ip: '198.51.100.4' });
    const b = await createTenant(t, 2);
    const taken = await call(t.app, b.customerToken, 'POST', `/restapi/users/${b.customerId}/locations/dynamicip`, {
      name: 'Second',
      ip: '198.51.100.4',
    });
    expect(taken.statusCode).toBe(409);
    expect(taken.json().error).toBe('The address 198.51.100.4/32 is already used by another location.');
    expect(before).not.toBe(await snapshot(t.handle)); // the first creation did write
  });

  it('updates a dynamic IP through its DynDNS-compatible URL, authenticated by the key alone', async () => {
    const a = await createTenant(t, 1);
    const base = `/restapi/users/${a.customerId}/locations`;
    const loc = (await call(t.app, a.customerToken, 'POST', `${base}/dynamicip`, { name: 'Home' })).json();
    expect(loc.addresses).toEqual([]);
    t.published.length = 0;

    const url = `/restapi/locations/dynamicip/update?key=${loc.key}`;
    const good = await t.app.inject({ method: 'GET', url: `${url}&myip=203.0.113.77`, remoteAddress: '198.51.100.1' });
    expect(good.statusCode).toBe(200);
    expect(good.json()).toEqual({ status: 'good', ip: '203.0.113.77' });
    expect(t.published).toEqual(['locations']);
    const nochg = await t.app.inject({ method: 'GET', url: `${url}&myip=203.0.113.77` });
    expect(nochg.json()).toEqual({ status: 'nochg', ip: '203.0.113.77' });
    expect(t.published).toEqual(['locations']);
    // Without myip, the caller's own address.
    const own = await t.app.inject({ method: 'GET', url, remoteAddress: '198.51.100.23' });
    expect(own.json()).toEqual({ status: 'good', ip: '198.51.100.23' });
    const rows = await t.handle.db
      .selectFrom('location_addresses')
      .select(['ip', 'customer_id'])
      .where('location_id', '=', loc.id)
      .execute();
    expect(rows).toEqual([{ ip: '198.51.100.23/32', customer_id: a.customerId }]);
    const audit = await t.handle.db
      .selectFrom('audit_log')
      .select(['admin_id', 'role', 'customer_id', 'client_ip'])
      .where('action', '=', 'location.update')
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    expect(audit).toEqual({ admin_id: null, role: 4, customer_id: a.customerId, client_ip: '198.51.100.23' });

    // Unknown key, another type's key, a private address: refused, nothing changes.
    const before = await snapshot(t.handle);
    const virtual = (await call(t.app, a.customerToken, 'POST', `${base}/virtual`, { name: 'V' })).json();
    const after = await snapshot(t.handle);
    for (const key of ['A'.repeat(32), virtual.key]) {
      const res = await t.app.inject({ method: 'GET', url: `/restapi/locations/dynamicip/update?key=${key}` });
      expect(res.statusCode).toBe(401);
    }
    expect((await t.app.inject({ method: 'GET', url: `${url}&myip=10.0.0.1` })).json().fields.ip).toBe(
      'Private addresses cannot be claimed: 10.0.0.1/32.',
    );
    expect((await t.app.inject({ method: 'GET', url: `${url}&myip=nonsense` })).statusCode).toBe(400);
    expect(await snapshot(t.handle)).toBe(after);
    expect(before).not.toBe(after);
  });

  it('applies re-resolved dynamic-DNS addresses under the claim rules, keeping the last ones on failure', async () => {
    const a = await createTenant(t, 1);
    const base = `/restapi/users/${a.customerId}/locations`;
    const loc = (
      await call(t.app, a.customerToken, 'POST', `${base}/dynamicdns`, { name: 'Shop', hostname: 'shop.example' })
    ).json();
    const deps = { handle: t.handle, changes: t.changes, now: () => t.clock.now, claims: DEFAULT_CLAIM_LIMITS };
    expect(await locations.listDynamicDnsLocations(deps)).toEqual([
      { id: loc.id, customer_id: a.customerId, hostname: 'shop.example' },
    ]);
    await call(t.app, a.customerToken, 'POST', `${base}/dynamicip`, { name: 'Other', ip: '198.51.100.9' });
    t.published.length = 0;
    const held = await locations.applyResolvedAddresses(
      deps,
      loc.id,
      ['203.0.113.5', '2001:db8::5', '10.0.0.5', '198.51.100.9'],
      '',
    );
    expect(held).toEqual(['2001:db8::5/128', '203.0.113.5/32']);
    expect(t.published).toEqual(['locations']);
    let got = (await call(t.app, a.customerToken, 'GET', `${base}/dynamicdns/${loc.id}`)).json();
    expect(got.addresses.map((x: { ip: string }) => x.ip).sort()).toEqual(['2001:db8::5/128', '203.0.113.5/32']);
    expect(got.resolve_error).toBe('Addresses not claimed: 10.0.0.5/32, 198.51.100.9/32.');

    // A failed lookup keeps the last addresses and records the error.
    await locations.applyResolvedAddresses(deps, loc.id, [], 'SERVFAIL');
    got = (await call(t.app, a.customerToken, 'GET', `${base}/dynamicdns/${loc.id}`)).json();
    expect(got.addresses).toHaveLength(2);
    expect(got.resolve_error).toBe('SERVFAIL');
    await locations.applyResolvedAddresses(deps, loc.id, ['203.0.113.6'], '');
    got = (await call(t.app, a.customerToken, 'GET', `${base}/dynamicdns/${loc.id}`)).json();
    expect(got).toMatchObject({ addresses: [{ ip: '203.0.113.6/32' }], resolve_error: '' });
  });

  it('pages, searches and filters the locations list by policy', async () => {
    const a = await createTenant(t, 1);
    const base = `/restapi/users/${a.customerId}/locations`;
    for (let i = 1; i <= 14; i++) {
      const name = `Site ${String(i).padStart(2, '0')}`;
      await call(t.app, a.customerToken, 'POST', `${base}/virtual`, i % 2 ? { name, policy_id: a.policyId } : { name });
    }
    const page1 = (await call(t.app, a.customerToken, 'GET', `${base}/all`)).json();
    expect(page1.total).toBe(15);
    expect(page1.data).toHaveLength(10);
    const page2 = (await call(t.app, a.customerToken, 'GET', `${base}/all?offset=10&limit=10`)).json();
    expect(page2.data.map((l: { name: string }) => l.name)).toEqual([
      'Site 10',
      'Site 11',
      'Site 12',
      'Site 13',
      'Site 14',
    ]);
    const desc = (await call(t.app, a.customerToken, 'GET', `${base}/virtual?sortdir=desc&limit=2`)).json();
    expect(desc.data.map((l: { name: string }) => l.name)).toEqual(['Site 14', 'Site 13']);
    const search = (await call(t.app, a.customerToken, 'GET', `${base}/all?filter=site%201`)).json();
    expect(search.total).toBe(5);
    // The policy's locations tab: the named ones (7 virtual + the static office); the default policy's: the inheriting ones.
    const strict = (await call(t.app, a.customerToken, 'GET', `${base}/all?policy_id=${a.policyId}&limit=100`)).json();
    expect(strict.total).toBe(8);
    const inheriting = (
      await call(t.app, a.customerToken, 'GET', `${base}/all?policy_id=${a.defaultPolicyId}&limit=100`)
    ).json();
    expect(inheriting.total).toBe(7);
    expect(inheriting.data.every((l: { policy_name: string }) => l.policy_name === 'Default')).toBe(true);
    // An address matches the search too.
    const byIp = (await call(t.app, a.customerToken, 'GET', `${base}/all?filter=10.1.`)).json();
    expect(byIp.data.map((l: { name: string }) => l.name)).toEqual(['Office 1']);
  });
});
