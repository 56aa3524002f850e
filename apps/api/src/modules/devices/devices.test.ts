import { testDialects } from '@cordon/db/testing';
import { Messages } from '@cordon/shared';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  call,
  createTenant,
  createTestApp,
  snapshot,
  TEST_PHONE_SETUP,
  type TenantFixture,
  type TestApp,
} from '../../../test/helpers.ts';

describe.each(testDialects())('devices on %s', (dialect) => {
  let t: TestApp;
  let a: TenantFixture;
  let base: string;
  beforeEach(async () => {
    t = await createTestApp(dialect, { claims: { allowPrivate: true, maxPrefixV4: 16 } });
    a = await createTenant(t, 1);
    base = `/restapi/users/${a.customerId}/devices`;
  });
  afterEach(async () => {
    await t.close();
  });

  const enrol = (install_key: string, name = 'laptop', remoteAddress = '10.1.2.3') =>
    t.app.inject({
      method: 'POST',
      url: '/restapi/agent/enrol',
      payload: { install_key, name, os_type: 'linux', version: '1.0.0' },
      remoteAddress,
    });
  const beat = (payload: Record<string, unknown>, remoteAddress = '10.1.2.3') =>
    t.app.inject({ method: 'POST', url: '/restapi/agent/heartbeat', payload, remoteAddress });

  it("carries the deployment's public DoH URL for the agent's --doh, or null when the operator has not set it", async () => {
    const read = await call(t.app, a.customerToken, 'GET', `${base}/config`);
    expect(read.json().agent_doh_url).toBe(TEST_PHONE_SETUP.dohUrl);
    const written = await call(t.app, a.customerToken, 'POST', `${base}/config`, { policy_mode: 'default' });
    expect(written.statusCode).toBe(200);
    expect(written.json().agent_doh_url).toBe(TEST_PHONE_SETUP.dohUrl);
    const unset = await createTestApp(dialect, { phoneSetup: null });
    try {
      const b = await createTenant(unset, 2);
      const config = await call(unset.app, b.customerToken, 'GET', `/restapi/users/${b.customerId}/devices/config`);
      expect(config.json()).toMatchObject({ agent_doh_url: null, install_key: expect.any(String) });
    } finally {
      await unset.close();
    }
  });

  it('enrols with the install key; a new key stops new installs only', async () => {
    const config = await call(t.app, a.customerToken, 'GET', `${base}/config`);
    expect(config.statusCode).toBe(200);
    expect(config.json()).toMatchObject({ policy_mode: 'default', policy_id: null, device_exception_id: null });
    const installKey = config.json().install_key;
    expect(installKey).toMatch(/^[A-Za-z0-9_-]{32}$/);
    // The same key on every read.
    expect((await call(t.app, a.customerToken, 'GET', `${base}/config`)).json().install_key).toBe(installKey);

    t.published.length = 0;
    const enrolled = await enrol(installKey);
    expect(enrolled.statusCode).toBe(201);
    const { device_id, device_key, customer_id } = enrolled.json();
    expect(customer_id).toBe(a.customerId);
    expect(device_key).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(t.published).toEqual(['devices']);

    const device = (await call(t.app, a.customerToken, 'GET', `${base}/${device_id}`)).json();
    expect(device).toMatchObject({
      name: 'laptop',
      key: device_key,
      os_type: 'linux',
      version: '1.0.0',
      extra_info: { os: { type: 'linux' } },
      last_ip: '10.1.2.3',
      location_id: a.locationId,
      location_name: 'Office 1',
      policy: 'Default',
      policy_mode: 'default',
      exception: null,
      configuration: null,
    });
    expect(device.last_contact).toBe(new Date(t.clock.now).toISOString());

    const regenerated = await call(t.app, a.customerToken, 'PUT', `${base}/key`);
    expect(regenerated.statusCode).toBe(200);
    expect(regenerated.json().install_key).not.toBe(installKey);
    const refused = await enrol(installKey, 'second');
    expect(refused.statusCode).toBe(401);
    expect(refused.json().code).toBe('ERR_BAD_CREDENTIALS');
    // The enrolled device keeps working.
    expect((await beat({ device_key })).statusCode).toBe(200);
    expect((await enrol(regenerated.json().install_key, 'second')).statusCode).toBe(201);
    const audit = await t.handle.db.selectFrom('audit_log').select(['before_json', 'after_json']).execute();
    for (const row of audit) {
      for (const secret of [installKey, regenerated.json().install_key, device_key]) {
        expect(`${row.before_json}${row.after_json}`).not.toContain(secret);
      }
    }
  });

  it('records heartbeats (last contact, version, OS, user) and answers the configuration', async () => {
    const installKey = (await call(t.app, a.customerToken, 'GET', `${base}/config`)).json().install_key;
    const { device_id, device_key } = (await enrol(installKey)).json();
    t.clock.now += 60_000;
    t.published.length = 0;
    const res = await beat({ device_key, version: '1.1.0', os_type: 'windows', user: 'alice' }, '198.51.100.7');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      device_id,
      customer_id: a.customerId,
      heartbeat_s: 300,
      config: { policy_id: a.defaultPolicyId, device_exception: null, rules: [], advanced: null },
    });
    // A new user is a tenant change (and its binding to the device); the contact itself is not.
    expect(t.published).toEqual(['groups', 'devices']);
    const device = (await call(t.app, a.customerToken, 'GET', `${base}/${device_id}`)).json();
    expect(device).toMatchObject({
      version: '1.1.0',
      os_type: 'windows',
      last_ip: '198.51.100.7',
      location_id: null,
      last_contact: new Date(t.clock.now).toISOString(),
    });
    const users = (await call(t.app, a.customerToken, 'GET', `/restapi/users/${a.customerId}/users/`)).json();
    expect(users.data).toEqual([
      expect.objectContaining({
        name: 'alice',
        last_login: new Date(t.clock.now).toISOString(),
        last_login_ip: '198.51.100.7',
      }),
    ]);
    t.published.length = 0;
    await beat({ device_key, user: 'alice' });
    expect(t.published).toEqual([]);
    expect((await beat({ device_key: 'x'.repeat(32) })).statusCode).toBe(401);
    expect((await beat({ device_key: 'short' })).statusCode).toBe(400);
  });

  it('applies the policy precedence user → group → device → default with the inherit choices', async () => {
    const cust = (method: string, url: string, body?: unknown) => call(t.app, a.customerToken, method, url, body);
    const mkPolicy = async (name: string) =>
      (
        await call(t.app, t.rootToken, 'POST', '/restapi/policies', {
          user_id: a.customerId,
          name,
          filtering_level: 'low',
        })
      ).json().id;
    const devicePolicy = await mkPolicy('Device');
    const groupPolicy = await mkPolicy('Group');
    const userPolicy = await mkPolicy('User');
    const installKey = (await cust('GET', `${base}/config`)).json().install_key;
    const { device_id, device_key } = (await enrol(installKey)).json();
    const policyOf = async () => (await beat({ device_key, user: 'bob' })).json().config.policy_id;

    expect(await policyOf()).toBe(a.defaultPolicyId);
    const bob = (await cust('GET', `/restapi/users/${a.customerId}/users/`)).json().data[0];
    const g1 = (
      await cust('POST', `/restapi/users/${a.customerId}/groups`, { name: 'Staff', policyid: groupPolicy })
    ).json();
    await cust('POST', `/restapi/users/${a.customerId}/users/${bob.id}`, { group_ids: [g1.id] });
    // Mode `default` skips groups.
    expect(await policyOf()).toBe(a.defaultPolicyId);
    // The customer's device configuration: group or default.
    expect((await cust('POST', `${base}/config`, { policy_mode: 'group' })).json().policy_mode).toBe('group');
    expect(await policyOf()).toBe(groupPolicy);
    // The device names a policy: user and group still come first.
    await cust('POST', `${base}/${device_id}`, { policy_id: devicePolicy });
    expect(await policyOf()).toBe(groupPolicy);
    await cust('PUT', `/restapi/users/${a.customerId}/groups/${g1.id}`, { disable: true });
    expect(await policyOf()).toBe(devicePolicy);
    await cust('POST', `/restapi/users/${a.customerId}/users/${bob.id}`, { policyid: userPolicy });
    expect(await policyOf()).toBe(userPolicy);
    const listed = (await cust('GET', `${base}?policyid=${devicePolicy}`)).json();
    expect(listed.data.map((d: { id: number }) => d.id)).toEqual([device_id]);
    expect((await cust('GET', `${base}?policyid=${a.defaultPolicyId}`)).json().total).toBe(0);
  });

  it('locks a device with a JSON configuration until it is reset; validates JSON', async () => {
    const installKey = (await call(t.app, a.customerToken, 'GET', `${base}/config`)).json().install_key;
    const { device_id, device_key } = (await enrol(installKey)).json();
    const before = await snapshot(t.handle);
    const bad = await call(t.app, a.customerToken, 'POST', `${base}/${device_id}/config/advanced`, {
      configuration: '{"filters": [',
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().fields.configuration).toBe(Messages.invalidJson);
    expect(await snapshot(t.handle)).toBe(before);

    const set = await call(t.app, a.customerToken, 'POST', `${base}/${device_id}/config/advanced`, {
      configuration: '{"filters":["ads"]}',
    });
    expect(set.statusCode).toBe(200);
    expect(JSON.parse(set.json().configuration)).toEqual({ filters: ['ads'] });
    const locked = await call(t.app, a.customerToken, 'POST', `${base}/${device_id}`, { name: 'renamed' });
    expect(locked.statusCode).toBe(409);
    expect(locked.json().error).toContain('locked');
    expect((await beat({ device_key, name: 'agent-name' })).json().config.advanced).toEqual({ filters: ['ads'] });
    expect((await call(t.app, a.customerToken, 'GET', `${base}/${device_id}`)).json().name).toBe('laptop');

    const reset = await call(t.app, a.customerToken, 'DELETE', `${base}/${device_id}/config/advanced`);
    expect(reset.json().configuration).toBeNull();
    const renamed = await call(t.app, a.customerToken, 'POST', `${base}/${device_id}`, {
      name: 'renamed',
      tag: 'sales',
    });
    expect(renamed.json()).toMatchObject({ name: 'renamed', tag: 'sales' });

    // The customer's advanced configuration.
    expect((await call(t.app, a.customerToken, 'GET', `${base}/config/advanced`)).json()).toEqual({
      configuration: null,
    });
    const custSet = await call(t.app, a.customerToken, 'POST', `${base}/config/advanced`, { configuration: '[1,2]' });
    expect(JSON.parse(custSet.json().configuration)).toEqual([1, 2]);
    expect((await beat({ device_key })).json().config.advanced).toEqual([1, 2]);
    const custBad = await call(t.app, a.customerToken, 'POST', `${base}/config/advanced`, { configuration: 'nope' });
    expect(custBad.json().fields.configuration).toBe(Messages.invalidJson);
    await call(t.app, a.customerToken, 'DELETE', `${base}/config/advanced`);
    expect((await call(t.app, a.customerToken, 'GET', `${base}/config/advanced`)).json()).toEqual({
      configuration: null,
    });
  });

  it('lists devices with paging, sort, filter and location; removing one revokes its key', async () => {
    const installKey = (await call(t.app, a.customerToken, 'GET', `${base}/config`)).json().install_key;
    const ids: number[] = [];
    for (let i = 1; i <= 12; i++) {
      ids.push(
        (await enrol(installKey, `pc-${String(i).padStart(2, '0')}`, i <= 3 ? '10.1.9.9' : '198.51.100.1')).json()
          .device_id,
      );
    }
    const page = (await call(t.app, a.customerToken, 'GET', base)).json();
    expect(page.total).toBe(12);
    expect(page.data).toHaveLength(10);
    const last = (await call(t.app, a.customerToken, 'GET', `${base}?offset=10`)).json();
    expect(last.data.map((d: { name: string }) => d.name)).toEqual(['pc-11', 'pc-12']);
    const desc = (await call(t.app, a.customerToken, 'GET', `${base}?sortkey=name&sortdir=desc&limit=1`)).json();
    expect(desc.data[0].name).toBe('pc-12');
    expect((await call(t.app, a.customerToken, 'GET', `${base}?filter=pc-0`)).json().total).toBe(9);
    expect((await call(t.app, a.customerToken, 'GET', `${base}?location_id=${a.locationId}`)).json().total).toBe(3);
    expect((await call(t.app, a.customerToken, 'GET', `${base}?sortkey=key`)).statusCode).toBe(400);

    const key = (await call(t.app, a.customerToken, 'GET', `${base}/${ids[0]}`)).json().key;
    expect((await call(t.app, a.customerToken, 'DELETE', `${base}/${ids[0]}`)).json()).toEqual({ deleted: true });
    expect((await beat({ device_key: key })).statusCode).toBe(401);
    expect((await call(t.app, a.customerToken, 'GET', `${base}/${ids[0]}`)).statusCode).toBe(404);
  });

  it("lists each device with what it inherits, pages past the end, and keeps another customer's devices out", async () => {
    const cust = (method: string, url: string, body?: unknown) => call(t.app, a.customerToken, method, url, body);
    const b = await createTenant(t, 2);
    const installKey = (await cust('GET', `${base}/config`)).json().install_key;
    const id: Record<string, number> = {};
    // Mixed case and a LIKE wildcard in the names: the sort is case-insensitive, `filter` literal.
    for (const name of ['gammax1', 'Beta', 'alpha', 'gamma_1', 'Epsilon', 'delta']) {
      id[name] = (await enrol(installKey, name)).json().device_id;
    }
    const bKey = (await call(t.app, b.customerToken, 'GET', `/restapi/users/${b.customerId}/devices/config`)).json();
    for (const name of ['alpha', 'other']) await enrol(bKey.install_key, name, '10.2.0.1');

    const own = (await cust('POST', '/restapi/device_exceptions', { name: 'Own' })).json().id;
    const inherited = (await cust('POST', '/restapi/device_exceptions', { name: 'Inherited' })).json().id;
    const configPolicy = (
      await call(t.app, t.rootToken, 'POST', '/restapi/policies', {
        user_id: a.customerId,
        name: 'Config',
        filtering_level: 'low',
      })
    ).json().id;
    await cust('POST', `${base}/config`, { policy_id: configPolicy, device_exception_id: inherited });
    await cust('POST', `${base}/${id['Beta']}`, { policy_id: a.policyId, device_exception_id: own });
    await cust('POST', `${base}/${id['gamma_1']}`, { policy_mode: 'group' });

    const list = async (query: string) => {
      const res = await cust('GET', `${base}?${query}`);
      expect(res.statusCode).toBe(200);
      const body = res.json() as {
        data: Array<{ name: string; policy: string; exception: string | null }>;
        total: number;
      };
      return { names: body.data.map((d) => d.name), total: body.total, data: body.data };
    };
    const all = await list('limit=50');
    expect(all.names).toEqual(['alpha', 'Beta', 'delta', 'Epsilon', 'gamma_1', 'gammax1']);
    expect(all.total).toBe(6);
    const seen = Object.fromEntries(all.data.map((d) => [d.name, [d.policy, d.exception]]));
    // `default` takes the configuration's policy; a named one its own; `group` without a user the default policy.
    expect(seen).toEqual({
      alpha: ['Config', 'Inherited'],
      Beta: ['Strict 1', 'Own'],
      delta: ['Config', 'Inherited'],
      Epsilon: ['Config', 'Inherited'],
      gamma_1: ['Default', 'Inherited'],
      gammax1: ['Config', 'Inherited'],
    });
    // The full device of a page row is the single device's.
    const single = (await cust('GET', `${base}/${id['Beta']}`)).json();
    expect(all.data[1]).toEqual(single);

    // `policyid` follows the same inheritance.
    expect((await list(`policyid=${configPolicy}`)).names).toEqual(['alpha', 'delta', 'Epsilon', 'gammax1']);
    expect((await list(`policyid=${a.policyId}`)).names).toEqual(['Beta']);
    expect((await list(`policyid=${a.defaultPolicyId}`)).names).toEqual(['gamma_1']);
    expect((await list(`policyid=${b.defaultPolicyId}`)).total).toBe(0);
    await cust('POST', `${base}/config`, { policy_mode: 'default' });
    expect((await list(`policyid=${a.defaultPolicyId}`)).names).toEqual([
      'alpha',
      'delta',
      'Epsilon',
      'gamma_1',
      'gammax1',
    ]);
    expect((await list(`policyid=${configPolicy}`)).total).toBe(0);

    // Paging, direction, the id as tie-break (every OS is linux), and a page past the end.
    expect(await list('limit=2&offset=2')).toMatchObject({ names: ['delta', 'Epsilon'], total: 6 });
    expect(await list('limit=2&sortdir=desc')).toMatchObject({ names: ['gammax1', 'gamma_1'], total: 6 });
    const byId = Object.values(id).sort((x, y) => x - y);
    expect((await list('sortkey=os_type&limit=50')).data.map((d) => (d as unknown as { id: number }).id)).toEqual(byId);
    expect(
      (await list('sortkey=os_type&sortdir=desc&limit=50')).data.map((d) => (d as unknown as { id: number }).id),
    ).toEqual([...byId].reverse());
    expect(await list('offset=10')).toEqual({ names: [], total: 6, data: [] });
    expect(await list('filter=GAMMA&offset=5')).toEqual({ names: [], total: 2, data: [] });
    expect((await list('filter=a_')).names).toEqual(['gamma_1']);

    // Another customer's devices: never in this list; its list refused to this customer and MSP.
    expect(
      (await call(t.app, t.rootToken, 'GET', `/restapi/users/${b.customerId}/devices?filter=alpha`)).json(),
    ).toMatchObject({
      total: 1,
      data: [{ name: 'alpha', policy: 'Default', exception: null }],
    });
    expect((await call(t.app, t.rootToken, 'GET', `${base}?filter=other`)).json().total).toBe(0);
    expect((await call(t.app, a.customerToken, 'GET', `/restapi/users/${b.customerId}/devices`)).statusCode).toBe(404);
    expect((await call(t.app, b.mspToken, 'GET', base)).statusCode).toBe(404);
    expect((await call(t.app, a.mspToken, 'GET', base)).json().total).toBe(6);
  });

  it('validates the device configuration: a policy is required for `policy`; foreign ids are field errors', async () => {
    const b = await createTenant(t, 2);
    const before = await snapshot(t.handle);
    const none = await call(t.app, a.customerToken, 'POST', `${base}/config`, { policy_mode: 'policy' });
    expect(none.statusCode).toBe(400);
    expect(none.json().fields.policy_id).toBe('Please select a policy.');
    const foreign = await call(t.app, a.customerToken, 'POST', `${base}/config`, { policy_id: b.policyId });
    expect(foreign.statusCode).toBe(400);
    // Only the settings row created by the first read differs.
    const rows = await t.handle.db.selectFrom('device_settings').selectAll().execute();
    expect(rows.map((r) => [r.customer_id, r.policy_mode, r.policy_id])).toEqual([[a.customerId, 'default', null]]);
    expect(before).not.toBe(await snapshot(t.handle));
    const ok = await call(t.app, a.customerToken, 'POST', `${base}/config`, { policy_id: a.policyId });
    expect(ok.json()).toMatchObject({ policy_mode: 'policy', policy_id: a.policyId });
    const back = await call(t.app, a.customerToken, 'POST', `${base}/config`, { policy_mode: 'default' });
    expect(back.json()).toMatchObject({ policy_mode: 'default', policy_id: null });
  });

  describe('which users a device may assert (issue 30; docs/security.md "Identity claims")', () => {
    const cust = (method: string, url: string, body?: unknown) => call(t.app, a.customerToken, method, url, body);
    const teacher = async () => {
      const open = (
        await call(t.app, t.rootToken, 'POST', '/restapi/policies', {
          user_id: a.customerId,
          name: 'Teachers',
          filtering_level: 'low',
        })
      ).json().id as number;
      const at = new Date(t.clock.now).toISOString();
      const row = await t.handle.db
        .insertInto('internal_users')
        .values({
          customer_id: a.customerId,
          name: 'teacher',
          description: '',
          policy_id: open,
          last_login_at: null,
          last_login_ip: '',
          last_device_id: null,
          created_at: at,
          updated_at: at,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      return { id: row.id, policy: open };
    };

    it('never lets a heartbeat bring a user with a policy to a device; an admin binding does', async () => {
      const { id: teacherId, policy } = await teacher();
      const installKey = (await cust('GET', `${base}/config`)).json().install_key;
      const { device_id, device_key } = (await enrol(installKey)).json();
      const refused = await beat({ device_key, user: 'teacher' });
      expect(refused.statusCode).toBe(200);
      expect(refused.json().config.policy_id).toBe(a.defaultPolicyId);
      const users = await cust('GET', `${base}/${device_id}/users`);
      expect(users.statusCode).toBe(200);
      expect(users.json()).toEqual({ users: [], user_reports_refused: 1, agent_user_cap: 10 });

      const bound = await cust('PUT', `${base}/${device_id}/users`, { user_ids: [teacherId] });
      expect(bound.statusCode).toBe(200);
      expect(bound.json().users).toEqual([
        { id: teacherId, name: 'teacher', source: 'admin', created_at: new Date(t.clock.now).toISOString() },
      ]);
      expect((await beat({ device_key, user: 'teacher' })).json().config.policy_id).toBe(policy);
      // Unbound again: the device's own policy.
      expect((await cust('PUT', `${base}/${device_id}/users`, { user_ids: [] })).json().users).toEqual([]);
      expect((await beat({ device_key, user: 'teacher' })).json().config.policy_id).toBe(a.defaultPolicyId);
    });

    it('refuses unknown or foreign users in a binding and changes nothing', async () => {
      const b = await createTenant(t, 2);
      const at = new Date(t.clock.now).toISOString();
      const foreign = await t.handle.db
        .insertInto('internal_users')
        .values({
          customer_id: b.customerId,
          name: 'bea',
          description: '',
          policy_id: null,
          last_login_at: null,
          last_login_ip: '',
          last_device_id: null,
          created_at: at,
          updated_at: at,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      const installKey = (await cust('GET', `${base}/config`)).json().install_key;
      const { device_id } = (await enrol(installKey)).json();
      const before = await snapshot(t.handle);
      for (const ids of [[foreign.id], [999_999]]) {
        const res = await cust('PUT', `${base}/${device_id}/users`, { user_ids: ids });
        expect(res.statusCode).toBe(400);
        expect(res.json().fields.user_ids).toBe('Must name users of this customer.');
      }
      const tooMany = await cust('PUT', `${base}/${device_id}/users`, {
        user_ids: Array.from({ length: 101 }, (_, i) => i + 1),
      });
      expect(tooMany.statusCode).toBe(400);
      expect(await snapshot(t.handle)).toBe(before);
    });

    it('creates at most 10 users per device from heartbeats; further reports are refused and counted', async () => {
      const installKey = (await cust('GET', `${base}/config`)).json().install_key;
      const { device_id, device_key } = (await enrol(installKey)).json();
      for (let i = 0; i < 40; i++) {
        t.clock.now += 30_000; // one heartbeat's worth of the per-device budget
        const res = await beat({ device_key, user: `pupil${i}` });
        expect(res.statusCode).toBe(200);
        expect(res.json().config.policy_id).toBe(a.defaultPolicyId);
      }
      const created = await t.handle.db
        .selectFrom('internal_users')
        .select('name')
        .where('customer_id', '=', a.customerId)
        .orderBy('id')
        .execute();
      expect(created.map((u) => u.name)).toEqual(Array.from({ length: 10 }, (_, i) => `pupil${i}`));
      const users = (await cust('GET', `${base}/${device_id}/users`)).json();
      expect(users.users).toHaveLength(10);
      expect(users.users.every((u: { source: string }) => u.source === 'agent')).toBe(true);
      expect(users.user_reports_refused).toBe(30);
      // A bound user keeps working past the cap.
      t.clock.now += 30_000;
      expect((await beat({ device_key, user: 'pupil3' })).statusCode).toBe(200);
      expect((await cust('GET', `${base}/${device_id}/users`)).json().user_reports_refused).toBe(30);
    });

    it('rate-limits enrolment per install key and heartbeats per device (429 with Retry-After)', async () => {
      const installKey = (await cust('GET', `${base}/config`)).json().install_key;
      const codes: number[] = [];
      for (let i = 0; i < 31; i++) codes.push((await enrol(installKey, `pc${i}`)).statusCode);
      expect(codes.slice(0, 30).every((c) => c === 201)).toBe(true);
      const flood = await enrol(installKey, 'pc-flood');
      expect(flood.statusCode).toBe(429);
      expect(flood.json().code).toBe('ERR_RATE_LIMITED');
      expect(Number(flood.headers['retry-after'])).toBeGreaterThan(0);
      const devices = await t.handle.db
        .selectFrom('devices')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      expect(Number(devices.n)).toBe(30);
      // The bucket refills: one more after 10 s.
      t.clock.now += 10_000;
      expect((await enrol(installKey, 'pc-later')).statusCode).toBe(201);

      const device_key = (await t.handle.db.selectFrom('devices').select('key').orderBy('id').executeTakeFirstOrThrow())
        .key;
      const beats: number[] = [];
      for (let i = 0; i < 11; i++) beats.push((await beat({ device_key })).statusCode);
      expect(beats).toEqual([...new Array(10).fill(200), 429]);
      // Another device is not slowed by it.
      const other = (
        await t.handle.db.selectFrom('devices').select('key').orderBy('id', 'desc').executeTakeFirstOrThrow()
      ).key;
      expect((await beat({ device_key: other })).statusCode).toBe(200);
      t.clock.now += 30_000;
      expect((await beat({ device_key })).statusCode).toBe(200);
    });
  });
});
