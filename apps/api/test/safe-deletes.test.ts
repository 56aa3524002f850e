import { testDialects } from '@cordon/db/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  call,
  createEnvironment,
  createTenant,
  createTestApp,
  type EnvironmentFixture,
  snapshot,
  type TenantFixture,
  type TestApp,
  uploadFile,
} from './helpers.ts';

/**
 * Deletes of groups, device exceptions, customers, MSPs and category feeds in use, and what a
 * location's delete breaks (docs/api.md "Deletes of things in use"; issue 29; policies:
 * apps/api/src/modules/policies/policy-deletes.test.ts): 409 ERR_IN_USE with the counts unless the
 * request says where the dependants go (or, for a cascade, names the tenant or feed).
 */
describe.each(testDialects())('deletes of things in use on %s', (dialect) => {
  let t: TestApp;
  let a: TenantFixture;
  let b: TenantFixture;
  let env: EnvironmentFixture;
  let envB: EnvironmentFixture;
  let base: string;
  beforeEach(async () => {
    t = await createTestApp(dialect);
    a = await createTenant(t, 1);
    b = await createTenant(t, 2);
    env = await createEnvironment(t, a.customerId, 1);
    envB = await createEnvironment(t, b.customerId, 2);
    base = `/restapi/users/${a.customerId}`;
  });
  afterEach(async () => {
    await t.close();
  });

  const cust = (method: string, url: string, body?: unknown) => call(t.app, a.customerToken, method, url, body);

  it('a group with members: 409 with them, then moved to another group or detached', async () => {
    const staff = (await cust('POST', `${base}/groups`, { name: 'Staff' })).json();
    await cust('POST', `${base}/users/${env.internalUserId}`, { group_ids: [env.groupId] });
    expect((await cust('GET', `${base}/groups/${env.groupId}/dependants`)).json()).toEqual({
      in_use: true,
      dependants: { members: { count: 1, names: ['user1'] } },
    });
    const before = await snapshot(t.handle);
    const refused = await cust('DELETE', `${base}/groups/${env.groupId}`);
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({
      code: 'ERR_IN_USE',
      dependants: { members: { count: 1, names: ['user1'] } },
    });
    for (const query of [
      `move_to_group_id=${envB.groupId}`,
      `move_to_group_id=${env.groupId}`,
      `move_to_group_id=${staff.id}&detach=true`,
      'detach=maybe',
    ]) {
      const res = await cust('DELETE', `${base}/groups/${env.groupId}?${query}`);
      expect(res.statusCode, query).toBe(400);
    }
    expect(await snapshot(t.handle)).toBe(before);

    const moved = await cust('DELETE', `${base}/groups/${env.groupId}?move_to_group_id=${staff.id}`);
    expect(moved.json()).toEqual({ deleted: true });
    expect((await cust('GET', `${base}/users/${env.internalUserId}`)).json()).toMatchObject({ group_ids: [staff.id] });

    expect((await cust('DELETE', `${base}/groups/${staff.id}?detach=true`)).json()).toEqual({ deleted: true });
    expect((await cust('GET', `${base}/users/${env.internalUserId}`)).json()).toMatchObject({ group_ids: [] });
  });

  it('a device exception in use: 409, then moved or detached', async () => {
    const other = (await cust('POST', `/restapi/device_exceptions?user_id=${a.customerId}`, { name: 'Other' })).json();
    await cust('POST', `${base}/devices/${env.deviceId}`, { device_exception_id: env.deviceExceptionId });
    const url = `/restapi/device_exceptions/${env.deviceExceptionId}`;
    expect((await cust('GET', `${url}/dependants`)).json()).toEqual({
      in_use: true,
      dependants: { devices: { count: 1, names: ['laptop-1'] } },
    });
    const before = await snapshot(t.handle);
    expect((await cust('DELETE', url)).json()).toMatchObject({ code: 'ERR_IN_USE' });
    const foreign = await cust('DELETE', `${url}?move_to_device_exception_id=${envB.deviceExceptionId}`);
    expect(foreign.statusCode).toBe(400);
    expect(foreign.json().fields).toEqual({
      move_to_device_exception_id: 'Please select another device exception of this customer.',
    });
    expect(await snapshot(t.handle)).toBe(before);

    expect((await cust('DELETE', `${url}?move_to_device_exception_id=${other.id}`)).json()).toEqual({ deleted: true });
    expect((await cust('GET', `${base}/devices/${env.deviceId}`)).json()).toMatchObject({
      device_exception_id: other.id,
    });
    expect((await cust('DELETE', `/restapi/device_exceptions/${other.id}?detach=true`)).statusCode).toBe(200);
    expect((await cust('GET', `${base}/devices/${env.deviceId}`)).json()).toMatchObject({ device_exception_id: null });
  });

  it('a customer owning things: 409 with them; confirm_name must be its name', async () => {
    const msp = (method: string, url: string) => call(t.app, a.mspToken, method, url);
    const read = (await msp('GET', `${base}/dependants`)).json();
    expect(read.in_use).toBe(true);
    expect(read.dependants).toMatchObject({
      locations: { count: 2, names: ['Office 1', 'Virtual 1'] },
      devices: { count: 1, names: ['laptop-1'] },
      policies: { count: 1, names: ['Strict 1'] },
      groups: { count: 1, names: ['Group 1'] },
      users: { count: 1, names: ['user1'] },
      admins: { count: 1, names: ['cust1@example.test'] },
    });
    const before = await snapshot(t.handle);
    const refused = await msp('DELETE', base);
    expect(refused.statusCode).toBe(409);
    expect(refused.json().dependants).toEqual(read.dependants);
    expect((await msp('DELETE', `${base}?confirm_name=customer%201`)).statusCode).toBe(400);
    // Another MSP's customer stays out of reach, named or not.
    expect((await msp('GET', `/restapi/users/${b.customerId}/dependants`)).statusCode).toBe(404);
    expect((await msp('DELETE', `/restapi/users/${b.customerId}?confirm_name=Customer%202`)).statusCode).toBe(404);
    expect(await snapshot(t.handle)).toBe(before);
    expect((await msp('DELETE', `${base}?confirm_name=Customer%201`)).json()).toEqual({ deleted: true });
    expect((await msp('GET', base)).statusCode).toBe(404);
  });

  it('an MSP with customers: 409 with them, deleted once named; an empty customer goes at once', async () => {
    const root = (method: string, url: string, body?: unknown) => call(t.app, t.rootToken, method, url, body);
    const empty = (await root('POST', '/restapi/users/', { accountName: 'Empty', msp_id: b.mspId })).json();
    expect((await root('GET', `/restapi/users/${empty.id}/dependants`)).json()).toEqual({
      in_use: false,
      dependants: {},
    });
    expect((await root('DELETE', `/restapi/users/${empty.id}`)).json()).toEqual({ deleted: true });

    const read = (await root('GET', `/restapi/msp/${b.mspId}/dependants`)).json();
    expect(read).toEqual({
      in_use: true,
      dependants: {
        customers: { count: 1, names: ['Customer 2'] },
        admins: { count: 1, names: ['msp2@example.test'] },
      },
    });
    expect((await root('DELETE', `/restapi/msp/${b.mspId}`)).statusCode).toBe(409);
    expect((await root('DELETE', `/restapi/msp/${b.mspId}?confirm_name=MSP%202`)).json()).toEqual({ deleted: true });
    expect((await root('GET', `/restapi/users/${b.customerId}`)).statusCode).toBe(404);
  });
  it('a feed that brought names: 409 with their count, deleted once named; an empty feed goes at once', async () => {
    const root = (method: string, url: string, body?: unknown) => call(t.app, t.rootToken, method, url, body);
    const feed = (await root('POST', '/restapi/feeds', { name: 'Ad hosts', format: 'domains', category_id: 6 })).json();
    const url = `/restapi/feeds/${feed.id}`;
    expect((await root('GET', `${url}/dependants`)).json()).toEqual({ in_use: false, dependants: {} });
    const file = 'z.example\nb.example\na.example\nc.example\nd.example\ne.example\n';
    const up = await uploadFile(t.app, t.rootToken, `${url}/upload`, file, {
      field: 'file',
      filename: 'list.txt',
      contentType: 'text/plain',
    });
    expect(up.statusCode, up.body).toBe(200);
    const names = { count: 6, names: ['a.example', 'b.example', 'c.example', 'd.example', 'e.example'] };
    expect((await root('GET', `${url}/dependants`)).json()).toEqual({ in_use: true, dependants: { domains: names } });
    expect((await cust('GET', `${url}/dependants`)).statusCode).toBe(403);
    expect((await root('GET', '/restapi/feeds/999999/dependants')).statusCode).toBe(404);

    const before = await snapshot(t.handle);
    const refused = await root('DELETE', url);
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({
      code: 'ERR_IN_USE',
      error:
        '“Ad hosts” is in use (6 domains). Its names leave their category with it: confirm with its name (confirm_name).',
      dependants: { domains: names },
    });
    const wrong = await root('DELETE', `${url}?confirm_name=ad%20hosts`);
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().fields).toEqual({ confirm_name: 'Type the exact name to confirm.' });
    expect((await cust('DELETE', `${url}?confirm_name=Ad%20hosts`)).statusCode).toBe(403);
    expect(await snapshot(t.handle)).toBe(before);

    t.published.length = 0;
    expect((await root('DELETE', `${url}?confirm_name=Ad%20hosts`)).json()).toEqual({ deleted: true });
    expect(t.published).toEqual(['categories']);
    const left = await t.handle.db
      .selectFrom('category_domains')
      .select('domain')
      .where('source', '=', `feed:${feed.id}`)
      .execute();
    expect(left).toEqual([]);
    const audit = await t.handle.db
      .selectFrom('audit_log')
      .select('after_json')
      .where('action', '=', 'feed.delete')
      .executeTakeFirstOrThrow();
    expect(JSON.parse(String(audit.after_json))).toEqual({ deleted_with: { domains: names } });

    const empty = (await root('POST', '/restapi/feeds', { name: 'Empty', format: 'domains', category_id: 6 })).json();
    expect((await root('DELETE', `/restapi/feeds/${empty.id}`)).json()).toEqual({ deleted: true });
  });
  it('a location: its addresses and the devices seen there in 24 hours are named, the delete is not refused', async () => {
    const config = (await call(t.app, t.rootToken, 'GET', `${base}/devices/config`)).json();
    const agent = (url: string, payload: unknown) =>
      t.app.inject({ method: 'POST', url, payload: payload as Record<string, unknown>, remoteAddress: '10.1.2.3' });
    const enrolled = (
      await agent('/restapi/agent/enrol', {
        install_key: config.install_key,
        name: 'Desk 7',
        os_type: 'linux',
        version: '1.0.0',
      })
    ).json();
    const beat = await agent('/restapi/agent/heartbeat', { device_key: enrolled.device_key });
    expect(beat.statusCode, beat.body).toBeLessThan(300);
    const url = `${base}/locations/staticip/${a.locationId}/dependants`;
    expect((await cust('GET', url)).json()).toEqual({
      in_use: false,
      dependants: { addresses: { count: 1, names: ['10.1.0.0/16'] }, recent_devices: { count: 1, names: ['Desk 7'] } },
    });
    // The same location under another type, another customer's location, a foreign customer: 404.
    expect((await cust('GET', `${base}/locations/virtual/${a.locationId}/dependants`)).statusCode).toBe(404);
    expect((await cust('GET', `${base}/locations/staticip/${b.locationId}/dependants`)).statusCode).toBe(404);
    expect(
      (await cust('GET', `/restapi/users/${b.customerId}/locations/staticip/${b.locationId}/dependants`)).statusCode,
    ).toBe(404);
    expect((await cust('GET', `${base}/locations/virtual/${env.virtualLocationId}/dependants`)).json()).toEqual({
      in_use: false,
      dependants: {},
    });

    // Its last contact there 25 hours ago (the clock turned back for the heartbeat only).
    t.clock.now -= 25 * 3_600_000;
    await agent('/restapi/agent/heartbeat', { device_key: enrolled.device_key });
    t.clock.now += 25 * 3_600_000;
    expect((await cust('GET', url)).json()).toEqual({
      in_use: false,
      dependants: { addresses: { count: 1, names: ['10.1.0.0/16'] } },
    });
    expect((await cust('DELETE', `${base}/locations/staticip/${a.locationId}`)).json()).toEqual({ deleted: true });
    expect((await cust('GET', url)).statusCode).toBe(404);
  });
});
