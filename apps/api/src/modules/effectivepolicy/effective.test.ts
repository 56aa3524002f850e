import { testDialects } from '@cordon/db/testing';
import type { DeviceEffectivePolicy, EffectivePolicy, UserEffectivePolicy } from '@cordon/shared';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { call, createTenant, createTestApp, type TenantFixture, type TestApp } from '../../../test/helpers.ts';

/*
 * "Why was this blocked / allowed?" (issue 29; docs/api.md "Effective policy"): the chain the API
 * shows is the one the resolver applies — each answer is checked against the heartbeat's
 * `policy_id`, which follows the same precedence (docs/architecture.md "Identification").
 */
describe.each(testDialects())('effective policy on %s', (dialect) => {
  let t: TestApp;
  let a: TenantFixture;
  let b: TenantFixture;
  beforeEach(async () => {
    t = await createTestApp(dialect, { claims: { allowPrivate: true, maxPrefixV4: 16 } });
    a = await createTenant(t, 1);
    b = await createTenant(t, 2);
  });
  afterEach(async () => {
    await t.close();
  });

  const cust = (method: string, url: string, body?: unknown) => call(t.app, a.customerToken, method, url, body);
  const mkPolicy = async (name: string): Promise<number> =>
    (
      await call(t.app, t.rootToken, 'POST', '/restapi/policies', {
        user_id: a.customerId,
        name,
        filtering_level: 'low',
      })
    ).json().id;
  const enrol = async (): Promise<{ device_id: number; device_key: string }> => {
    const install_key = (await cust('GET', `/restapi/users/${a.customerId}/devices/config`)).json().install_key;
    const res = await t.app.inject({
      method: 'POST',
      url: '/restapi/agent/enrol',
      payload: { install_key, name: 'laptop', os_type: 'linux', version: '1.0.0' },
      remoteAddress: '10.1.2.3',
    });
    return res.json();
  };
  const beat = async (device_key: string, user: string): Promise<number> =>
    (
      await t.app.inject({
        method: 'POST',
        url: '/restapi/agent/heartbeat',
        payload: { device_key, user },
        remoteAddress: '10.1.2.3',
      })
    ).json().config.policy_id;
  const ofDevice = async (deviceId: number): Promise<DeviceEffectivePolicy> => {
    const res = await cust('GET', `/restapi/users/${a.customerId}/effective_policy/devices/${deviceId}`);
    expect(res.statusCode).toBe(200);
    return res.json();
  };
  /** `source:outcome` of each step, the chain in short. */
  const steps = (e: EffectivePolicy) => e.chain.map((s) => `${s.source}:${s.outcome}`);

  it("names the user's group when a device without a policy of its own inherits it (the issue's case)", async () => {
    const travel = await mkPolicy('Travel');
    const { device_id, device_key } = await enrol();
    expect(await beat(device_key, 'alice')).toBe(a.defaultPolicyId);
    const alice = (await cust('GET', `/restapi/users/${a.customerId}/users/`)).json().data[0];
    const group = (
      await cust('POST', `/restapi/users/${a.customerId}/groups`, { name: 'Travellers', policyid: travel })
    ).json();
    await cust('POST', `/restapi/users/${a.customerId}/users/${alice.id}`, { group_ids: [group.id] });
    // The customer's device configuration says "inherit the group or default policy".
    await cust('POST', `/restapi/users/${a.customerId}/devices/config`, { policy_mode: 'group' });
    expect(await beat(device_key, 'alice')).toBe(travel);

    const e = await ofDevice(device_id);
    expect(e.users).toHaveLength(1);
    const withAlice = e.users[0]!;
    expect(withAlice.policy).toEqual({ id: travel, name: 'Travel' });
    expect(withAlice.user).toEqual({ id: alice.id, name: 'alice' });
    expect(withAlice.chain).toEqual([
      {
        source: 'device',
        id: device_id,
        name: 'laptop',
        mode: 'default',
        rank: null,
        policy: null,
        outcome: 'choice',
        applied: false,
      },
      {
        source: 'device_configuration',
        id: null,
        name: null,
        mode: 'group',
        rank: null,
        policy: null,
        outcome: 'choice',
        applied: false,
      },
      {
        source: 'user',
        id: alice.id,
        name: 'alice',
        mode: null,
        rank: null,
        policy: null,
        outcome: 'no_policy',
        applied: false,
      },
      {
        source: 'group',
        id: group.id,
        name: 'Travellers',
        mode: null,
        rank: group.weight,
        policy: { id: travel, name: 'Travel' },
        outcome: 'chosen',
        applied: true,
      },
    ]);
    // No user reported: the customer's default, and the same on the user's page for this device.
    expect(e.without_user.policy).toEqual({ id: a.defaultPolicyId, name: 'Default' });
    expect(steps(e.without_user)).toEqual(['device:choice', 'device_configuration:choice', 'customer_default:chosen']);
    expect(e.exception).toBeNull();
    const u = (await cust('GET', `/restapi/users/${a.customerId}/effective_policy/users/${alice.id}`)).json();
    const user = u as UserEffectivePolicy;
    expect(user.policy).toEqual({ id: travel, name: 'Travel' });
    expect(steps({ ...user, device: null, user: null })).toEqual(['user:no_policy', 'group:chosen']);
    expect(user.devices.map((d) => [d.device?.id, d.policy?.id])).toEqual([[device_id, travel]]);
  });

  it('follows user → group (rank) → named policy → default with the inherit choices, as the resolver does', async () => {
    const devicePolicy = await mkPolicy('Device');
    const staffPolicy = await mkPolicy('Staff policy');
    const leadPolicy = await mkPolicy('Lead policy');
    const userPolicy = await mkPolicy('User');
    const { device_id, device_key } = await enrol();
    await beat(device_key, 'bob');
    const bob = (await cust('GET', `/restapi/users/${a.customerId}/users/`)).json().data[0];
    const staff = (
      await cust('POST', `/restapi/users/${a.customerId}/groups`, { name: 'Staff', policyid: staffPolicy })
    ).json();
    const leads = (
      await cust('POST', `/restapi/users/${a.customerId}/groups`, { name: 'Leads', policyid: leadPolicy })
    ).json();
    await cust('PUT', `/restapi/users/${a.customerId}/groups/${leads.id}`, { weight: 1 });
    await cust('PUT', `/restapi/users/${a.customerId}/groups/${staff.id}`, { weight: 2 });
    await cust('POST', `/restapi/users/${a.customerId}/users/${bob.id}`, { group_ids: [staff.id, leads.id] });
    /** The chosen policy for bob, checked against the heartbeat. */
    const chosen = async () => {
      const e = (await ofDevice(device_id)).users[0]!;
      expect(e.policy?.id ?? null).toBe(await beat(device_key, 'bob'));
      return e;
    };

    // Mode `default` everywhere: the group is shown but ignored.
    let e = await chosen();
    expect(e.policy?.id).toBe(a.defaultPolicyId);
    expect(steps(e)).toEqual([
      'device:choice',
      'device_configuration:choice',
      'user:no_policy',
      'group:ignored',
      'customer_default:chosen',
    ]);
    expect(e.chain[3]).toMatchObject({ name: 'Leads', rank: 1, policy: { id: leadPolicy, name: 'Lead policy' } });

    // The device names a policy: its own choice, no configuration step; the highest-ranked group wins.
    await cust('POST', `/restapi/users/${a.customerId}/devices/${device_id}`, { policy_id: devicePolicy });
    e = await chosen();
    expect(e.policy?.id).toBe(leadPolicy);
    expect(steps(e)).toEqual(['device:choice', 'user:no_policy', 'group:chosen']);
    expect(e.chain[0]).toMatchObject({ mode: 'policy', policy: { id: devicePolicy, name: 'Device' } });

    // The rank-1 group disabled: the next group.
    await cust('PUT', `/restapi/users/${a.customerId}/groups/${leads.id}`, { disable: true });
    e = await chosen();
    expect(e.chain[2]).toMatchObject({ source: 'group', name: 'Staff', rank: 2, outcome: 'chosen' });

    // No group left: the device's named policy.
    await cust('PUT', `/restapi/users/${a.customerId}/groups/${staff.id}`, { disable: true });
    e = await chosen();
    expect(steps(e)).toEqual(['device:choice', 'user:no_policy', 'named_policy:chosen']);
    expect((await ofDevice(device_id)).without_user.policy?.id).toBe(devicePolicy);

    // The user's own policy comes first of all.
    await cust('POST', `/restapi/users/${a.customerId}/users/${bob.id}`, { policyid: userPolicy });
    e = await chosen();
    expect(steps(e)).toEqual(['device:choice', 'user:chosen']);
    expect(e.policy).toEqual({ id: userPolicy, name: 'User' });
  });

  it("gives a location its policy, else the customer's default", async () => {
    const campus = await mkPolicy('Campus');
    const url = `/restapi/users/${a.customerId}/effective_policy/locations/${a.locationId}`;
    const setPolicy = async (policy_id: number | null) => {
      const res = await cust('POST', `/restapi/users/${a.customerId}/locations/staticip/${a.locationId}`, {
        policy_id,
      });
      expect(res.statusCode).toBe(200);
    };
    // The fixture's location names the tenant's second policy.
    let e: EffectivePolicy = (await cust('GET', url)).json();
    expect(e.policy).toEqual({ id: a.policyId, name: 'Strict 1' });
    expect(e.chain).toEqual([
      {
        source: 'location',
        id: a.locationId,
        name: 'Office 1',
        mode: null,
        rank: null,
        policy: { id: a.policyId, name: 'Strict 1' },
        outcome: 'chosen',
        applied: true,
      },
    ]);
    await setPolicy(null);
    e = (await cust('GET', url)).json();
    expect(e.policy).toEqual({ id: a.defaultPolicyId, name: 'Default' });
    expect(steps(e)).toEqual(['location:no_policy', 'customer_default:chosen']);
    await setPolicy(campus);
    e = (await cust('GET', url)).json();
    expect(e.policy).toEqual({ id: campus, name: 'Campus' });
    expect(steps(e)).toEqual(['location:chosen']);
  });

  it("answers 404 for another tenant's device, user or location, and for an unknown id", async () => {
    const { device_id } = await enrol();
    const root = `/restapi/users/${a.customerId}/effective_policy`;
    expect((await cust('GET', `${root}/devices/${device_id}`)).statusCode).toBe(200);
    const other = (path: string) =>
      call(t.app, b.customerToken, 'GET', `/restapi/users/${b.customerId}/effective_policy/${path}`);
    expect((await other(`devices/${device_id}`)).statusCode).toBe(404);
    expect((await other(`locations/${a.locationId}`)).statusCode).toBe(404);
    expect((await call(t.app, b.customerToken, 'GET', `${root}/locations/${a.locationId}`)).statusCode).toBe(404);
    expect((await cust('GET', `${root}/users/999999`)).statusCode).toBe(404);
    expect((await cust('GET', `${root}/devices/abc`)).statusCode).toBe(400);
  });
});
