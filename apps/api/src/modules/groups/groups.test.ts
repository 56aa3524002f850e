import { testDialects } from '@cordon/db/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  call,
  createTenant,
  createTestApp,
  snapshot,
  type TenantFixture,
  type TestApp,
} from '../../../test/helpers.ts';

describe.each(testDialects())('groups and internal users on %s', (dialect) => {
  let t: TestApp;
  let a: TenantFixture;
  let base: string;
  beforeEach(async () => {
    t = await createTestApp(dialect);
    a = await createTenant(t, 1);
    base = `/restapi/users/${a.customerId}`;
  });
  afterEach(async () => {
    await t.close();
  });

  const cust = (method: string, url: string, body?: unknown) => call(t.app, a.customerToken, method, url, body);

  it('creates groups ranked last and reorders them through /batch', async () => {
    t.published.length = 0;
    const names = ['Staff', 'Guests', 'Admins'];
    const ids: number[] = [];
    for (const name of names) {
      const res = await cust('POST', `${base}/groups`, { name, description: `${name} group`, policyid: a.policyId });
      expect(res.statusCode).toBe(201);
      ids.push(res.json().id);
    }
    expect(t.published).toEqual(['groups', 'groups', 'groups']);
    const ranked = (await cust('GET', `${base}/groups?sortkey=weight&limit=10000`)).json();
    expect(ranked.data.map((g: { name: string; weight: number }) => [g.name, g.weight])).toEqual([
      ['Staff', 1],
      ['Guests', 2],
      ['Admins', 3],
    ]);
    expect(ranked.data[0]).toMatchObject({ policy_id: a.policyId, policy: 'Strict 1', disable: false, users_count: 0 });

    // The ranking page: weights from the new list order, starting at 1, one PUT each through /batch.
    const order = [ids[2], ids[0], ids[1]];
    const batch = await cust(
      'POST',
      '/restapi/batch',
      Object.fromEntries(
        order.map((id, i) => [
          String(id),
          { method: 'PUT', path: `/users/${a.customerId}/groups/${id}`, parameters: { weight: i + 1 } },
        ]),
      ),
    );
    expect(batch.statusCode).toBe(200);
    const after = (await cust('GET', `${base}/groups?sortkey=weight`)).json();
    expect(after.data.map((g: { name: string }) => g.name)).toEqual(['Admins', 'Staff', 'Guests']);

    const updated = await cust('PUT', `${base}/groups/${ids[1]}`, {
      policyid: null,
      description: 'Visitors',
      disable: true,
    });
    expect(updated.json()).toMatchObject({ policy_id: null, policy: '', description: 'Visitors', disable: true });
    expect((await cust('POST', `${base}/groups`, { name: 'staff' })).statusCode).toBe(409);
    const bad = await cust('POST', `${base}/groups`, { name: 'Bad<name>' });
    expect(bad.statusCode).toBe(400);
    expect((await cust('GET', `${base}/groups?filter=visit`)).json().total).toBe(1);
    expect((await cust('DELETE', `${base}/groups/${ids[1]}`)).json()).toEqual({ deleted: true });
    expect((await cust('GET', `${base}/groups/${ids[1]}`)).statusCode).toBe(404);
  });

  it('edits internal users reported by agents: policy, description, groups and the effective group', async () => {
    const config = (await cust('GET', `${base}/devices/config`)).json();
    const { device_key } = (
      await t.app.inject({
        method: 'POST',
        url: '/restapi/agent/enrol',
        payload: { install_key: config.install_key, name: 'pc' },
      })
    ).json();
    for (const user of ['carol', 'dave']) {
      await t.app.inject({
        method: 'POST',
        url: '/restapi/agent/heartbeat',
        payload: { device_key, user },
        remoteAddress: '192.0.2.44',
      });
    }
    const users = (await cust('GET', `${base}/users/`)).json();
    expect(users.total).toBe(2);
    const carol = users.data.find((u: { name: string }) => u.name === 'carol');
    expect(carol).toMatchObject({
      policyid: null,
      policy: '',
      group_id: null,
      group_ids: [],
      role: 'user',
      last_login_ip: '192.0.2.44',
    });

    const g1 = (await cust('POST', `${base}/groups`, { name: 'First' })).json();
    const g2 = (await cust('POST', `${base}/groups`, { name: 'Second' })).json();
    const updated = await cust('POST', `${base}/users/${carol.id}`, {
      policyid: a.policyId,
      description: 'Finance',
      group_ids: [g2.id, g1.id],
    });
    expect(updated.statusCode).toBe(200);
    expect(updated.json()).toMatchObject({
      policyid: a.policyId,
      policy: 'Strict 1',
      description: 'Finance',
      group_ids: [g1.id, g2.id],
      group_id: g1.id,
      group: 'First',
    });
    // The effective group is the highest-ranked enabled one.
    await cust('PUT', `${base}/groups/${g1.id}`, { disable: true });
    expect((await cust('GET', `${base}/users/${carol.id}`)).json()).toMatchObject({ group_id: g2.id, group: 'Second' });
    const members = (await cust('GET', `${base}/users/?group_id=${g2.id}`)).json();
    expect(members.data.map((u: { name: string }) => u.name)).toEqual(['carol']);
    expect((await cust('GET', `${base}/groups/${g2.id}`)).json().users_count).toBe(1);

    const before = await snapshot(t.handle);
    expect((await cust('POST', `${base}/users/${carol.id}`, { group_ids: [999999] })).statusCode).toBe(400);
    expect((await cust('POST', `${base}/users/${carol.id}`, { policyid: 999999 })).statusCode).toBe(400);
    expect(await snapshot(t.handle)).toBe(before);

    expect((await cust('DELETE', `${base}/users/${carol.id}`)).json()).toEqual({ deleted: true });
    expect((await cust('GET', `${base}/users/`)).json().total).toBe(1);
    // Reported again, the user comes back without its old settings.
    await t.app.inject({ method: 'POST', url: '/restapi/agent/heartbeat', payload: { device_key, user: 'carol' } });
    const back = (await cust('GET', `${base}/users/?filter=car`)).json();
    expect(back.data).toEqual([expect.objectContaining({ name: 'carol', policyid: null, group_ids: [] })]);
  });
});
