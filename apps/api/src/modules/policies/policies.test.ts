import { testDialects } from '@cordon/db/testing';
import { categoriesBlockedAt, Messages } from '@cordon/shared';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { call, createTenant, createTestApp, snapshot, type TestApp } from '../../../test/helpers.ts';

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
    // The system admin moved Games (21, H) to L: new low policies block it (spec-notes §4).
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
    // A named policy in use goes only when told where its locations go (here: the default).
    expect((await call(t.app, a.mspToken, 'DELETE', `/restapi/policies/${a.policyId}`)).statusCode).toBe(409);
    const moved = await call(
      t.app,
      a.mspToken,
      'DELETE',
      `/restapi/policies/${a.policyId}?move_to_policy_id=${a.defaultPolicyId}`,
    );
    expect(moved.statusCode).toBe(200);
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

  it('PATCH /users/{id}/policies/{policyId} updates only the fields sent, for that customer only', async () => {
    const a = await createTenant(t, 1);
    const b = await createTenant(t, 2);
    t.published.length = 0;
    const url = `/restapi/users/${a.customerId}/policies/${a.policyId}`;
    const res = await call(t.app, a.customerToken, 'PATCH', url, { description: 'Only this' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      id: a.policyId,
      name: 'Strict 1',
      description: 'Only this',
      filtering_level: 'high',
    });
    expect(t.published).toEqual(['policies']);
    const low = await call(t.app, a.mspToken, 'PATCH', url, { filtering_level: 'low' });
    expect(low.json().filtering_level).toBe('low');
    const cats = (await call(t.app, a.mspToken, 'GET', `/restapi/policies/${a.policyId}/categories`)).json();
    expect(cats.filter((c: { allowed: boolean }) => c.allowed).map((c: { id: number }) => c.id)).toEqual(
      categoriesBlockedAt('low'),
    );
    const before = await snapshot(t.handle);
    // Another customer's policy through one's own customer id, an empty body, a bad name, a taken name.
    const foreign = await call(t.app, a.mspToken, 'PATCH', `/restapi/users/${a.customerId}/policies/${b.policyId}`, {
      name: 'X',
    });
    expect(foreign.statusCode).toBe(404);
    const sameTenantOtherCustomer = await call(
      t.app,
      t.rootToken,
      'PATCH',
      `/restapi/users/${b.customerId}/policies/${a.policyId}`,
      { name: 'X' },
    );
    expect(sameTenantOtherCustomer.statusCode).toBe(404);
    expect((await call(t.app, a.customerToken, 'PATCH', url, {})).statusCode).toBe(400);
    const bad = await call(t.app, a.customerToken, 'PATCH', url, { name: 'a<b' });
    expect(bad.statusCode).toBe(400);
    expect(Object.keys(bad.json().fields)).toEqual(['name']);
    const taken = await call(t.app, a.customerToken, 'PATCH', url, { name: 'Default' });
    expect(taken.statusCode).toBe(409);
    expect(await snapshot(t.handle)).toBe(before);
  });
});
