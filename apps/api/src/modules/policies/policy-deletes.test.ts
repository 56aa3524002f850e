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
} from '../../../test/helpers.ts';

/**
 * Deleting a policy in use (docs/api.md "Deletes of things in use"; issue 29): refused with 409 and
 * the dependants' counts unless `move_to_policy_id` says where they go; the move and the delete are
 * one audited change.
 */
describe.each(testDialects())('policy deletes on %s', (dialect) => {
  let t: TestApp;
  let a: TenantFixture;
  let b: TenantFixture;
  let env: EnvironmentFixture;
  beforeEach(async () => {
    t = await createTestApp(dialect);
    a = await createTenant(t, 1);
    b = await createTenant(t, 2);
    env = await createEnvironment(t, a.customerId, 1);
  });
  afterEach(async () => {
    await t.close();
  });

  const cust = (method: string, url: string, body?: unknown) => call(t.app, a.customerToken, method, url, body);

  /** Puts the fixture's group, user and device and the device configuration on policy `a.policyId` too. */
  async function useEverywhere(): Promise<void> {
    const base = `/restapi/users/${a.customerId}`;
    const ok = (res: { statusCode: number; body: string }) => expect(res.statusCode, res.body).toBeLessThan(300);
    ok(await cust('PUT', `${base}/groups/${env.groupId}`, { policyid: a.policyId }));
    ok(await cust('POST', `${base}/users/${env.internalUserId}`, { policyid: a.policyId }));
    ok(await cust('POST', `${base}/devices/${env.deviceId}`, { policy_mode: 'policy', policy_id: a.policyId }));
    ok(await cust('POST', `${base}/devices/config`, { policy_mode: 'policy', policy_id: a.policyId }));
  }

  it('refuses a policy in use with 409 and the counts and first names, changing nothing', async () => {
    await useEverywhere();
    const expected = {
      locations: { count: 1, names: ['Office 1'] },
      groups: { count: 1, names: ['Group 1'] },
      users: { count: 1, names: ['user1'] },
      devices: { count: 1, names: ['laptop-1'] },
      device_settings: { count: 1, names: [] },
    };
    const read = await cust('GET', `/restapi/policies/${a.policyId}/dependants`);
    expect(read.statusCode).toBe(200);
    expect(read.json()).toEqual({ in_use: true, dependants: expected });

    const before = await snapshot(t.handle);
    const res = await cust('DELETE', `/restapi/policies/${a.policyId}`);
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({
      code: 'ERR_IN_USE',
      error:
        '“Strict 1” is in use (1 location, 1 group, 1 user, 1 device, 1 device configuration). Choose another policy of this customer for them (move_to_policy_id).',
      dependants: expected,
    });
    expect(await snapshot(t.handle)).toBe(before);

    // A policy nothing names goes at once, and says so.
    const spare = (await cust('POST', '/restapi/policies', { user_id: a.customerId, name: 'Spare' })).json();
    expect((await cust('GET', `/restapi/policies/${spare.id}/dependants`)).json()).toEqual({
      in_use: false,
      dependants: {},
    });
    expect((await cust('DELETE', `/restapi/policies/${spare.id}`)).json()).toEqual({ deleted: true });
    // The default policy reports none: it cannot be deleted at all.
    expect((await cust('GET', `/restapi/policies/${a.defaultPolicyId}/dependants`)).json()).toEqual({
      in_use: false,
      dependants: {},
    });
  });

  it('moves every dependant to the target and deletes in one audited change', async () => {
    await useEverywhere();
    const target = (await cust('POST', '/restapi/policies', { user_id: a.customerId, name: 'Relaxed' })).json();
    t.published.length = 0;
    const res = await cust('DELETE', `/restapi/policies/${a.policyId}?move_to_policy_id=${target.id}`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ deleted: true });
    expect(t.published).toEqual(['policies', 'locations', 'groups', 'devices']);

    const base = `/restapi/users/${a.customerId}`;
    expect((await cust('GET', `${base}/locations/staticip/${a.locationId}`)).json()).toMatchObject({
      policy_id: target.id,
    });
    expect((await cust('GET', `${base}/groups/${env.groupId}`)).json()).toMatchObject({ policy_id: target.id });
    expect((await cust('GET', `${base}/users/${env.internalUserId}`)).json()).toMatchObject({ policyid: target.id });
    expect((await cust('GET', `${base}/devices/${env.deviceId}`)).json()).toMatchObject({
      policy_mode: 'policy',
      policy_id: target.id,
    });
    expect((await cust('GET', `${base}/devices/config`)).json()).toMatchObject({ policy_id: target.id });
    expect((await cust('GET', `/restapi/policies/${a.policyId}`)).statusCode).toBe(404);
    expect((await cust('GET', `/restapi/policies/${target.id}/dependants`)).json().dependants.locations).toEqual({
      count: 1,
      names: ['Office 1'],
    });

    const audit = await t.handle.db
      .selectFrom('audit_log')
      .selectAll()
      .where('action', '=', 'policy.delete')
      .executeTakeFirstOrThrow();
    expect(audit.entity_id).toBe(a.policyId);
    expect(JSON.parse(audit.after_json ?? 'null')).toEqual({
      moved_to_policy_id: target.id,
      moved: { locations: 1, groups: 1, users: 1, devices: 1, device_settings: 1 },
    });
  });

  it('moves locations to the default policy as "no policy of their own"', async () => {
    const res = await cust('DELETE', `/restapi/policies/${a.policyId}?move_to_policy_id=${a.defaultPolicyId}`);
    expect(res.statusCode).toBe(200);
    const loc = await cust('GET', `/restapi/users/${a.customerId}/locations/staticip/${a.locationId}`);
    expect(loc.json()).toMatchObject({ policy_id: null, policy_name: 'Default' });
  });

  it("refuses another tenant's policy, the policy itself, a missing one and bad text as the target, changing nothing", async () => {
    await useEverywhere();
    const before = await snapshot(t.handle);
    const field = { move_to_policy_id: 'Please select another policy of this customer.' };
    for (const target of [b.policyId, b.defaultPolicyId, a.policyId, 999999]) {
      for (const token of [a.customerToken, a.mspToken]) {
        const res = await call(t.app, token, 'DELETE', `/restapi/policies/${a.policyId}?move_to_policy_id=${target}`);
        expect(res.statusCode, String(target)).toBe(400);
        expect(res.json()).toMatchObject({ code: 'ERR_VALIDATION', fields: field });
      }
    }
    for (const text of ['abc', '0', '-1', '1.5']) {
      const res = await cust('DELETE', `/restapi/policies/${a.policyId}?move_to_policy_id=${text}`);
      expect(res.statusCode, text).toBe(400);
      expect(Object.keys(res.json().fields)).toEqual(['move_to_policy_id']);
    }
    // Tenant B's admin can neither read A's dependants nor delete A's policy into B's.
    expect((await call(t.app, b.customerToken, 'GET', `/restapi/policies/${a.policyId}/dependants`)).statusCode).toBe(
      404,
    );
    const foreign = await call(
      t.app,
      b.customerToken,
      'DELETE',
      `/restapi/policies/${a.policyId}?move_to_policy_id=${b.policyId}`,
    );
    expect(foreign.statusCode).toBe(404);
    expect(await snapshot(t.handle)).toBe(before);
  });

  it('applies the same rule to each item of a /batch delete', async () => {
    const spare = (await cust('POST', '/restapi/policies', { user_id: a.customerId, name: 'Spare' })).json();
    const other = (await cust('POST', '/restapi/policies', { user_id: a.customerId, name: 'Other' })).json();
    const refused = await cust('POST', '/restapi/batch', {
      [a.policyId]: { method: 'DELETE', path: `/policies/${a.policyId}` },
      [spare.id]: { method: 'DELETE', path: `/policies/${spare.id}` },
    });
    expect(refused.json()[a.policyId]).toMatchObject({
      status: 409,
      body: { code: 'ERR_IN_USE', dependants: { locations: { count: 1, names: ['Office 1'] } } },
    });
    expect(refused.json()[spare.id]).toMatchObject({ status: 200, body: { deleted: true } });
    const moved = await cust('POST', '/restapi/batch', {
      [a.policyId]: {
        method: 'DELETE',
        path: `/policies/${a.policyId}`,
        parameters: { move_to_policy_id: other.id },
      },
    });
    expect(moved.json()[a.policyId]).toMatchObject({ status: 200 });
    expect((await cust('GET', `/restapi/policies/${other.id}`)).json().first_location).toBe('Office 1');
  });
});
