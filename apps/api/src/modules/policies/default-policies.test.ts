import { testDialects } from '@cordon/db/testing';
import { categoriesBlockedAt, Messages } from '@cordon/shared';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { call, createTenant, createTestApp, snapshot, type TestApp } from '../../../test/helpers.ts';

type Wire = { id: number; allowed: boolean; level: string | null };
const blockedOf = (cats: Wire[]) => cats.filter((c) => c.allowed).map((c) => c.id);

describe.each(testDialects())('default policies at three levels on %s', (dialect) => {
  let t: TestApp;
  beforeEach(async () => {
    t = await createTestApp(dialect);
  });
  afterEach(async () => {
    await t.close();
  });

  it("serves the system's, an MSP's and a customer's default policy, each to whom may see it", async () => {
    const a = await createTenant(t, 1);
    const system = await call(t.app, t.rootToken, 'GET', '/restapi/policies/default');
    expect(system.statusCode).toBe(200);
    expect(system.json()).toMatchObject({
      scope: 'system',
      msp_id: null,
      user_id: null,
      name: 'Default',
      filtering_level: 'low',
      safe_search: false,
      locations: [],
    });
    const msp = await call(t.app, a.mspToken, 'GET', `/restapi/policies/default?msp_id=${a.mspId}`);
    expect(msp.json()).toMatchObject({ scope: 'msp', msp_id: a.mspId, filtering_level: 'low' });
    const customer = await call(t.app, a.customerToken, 'GET', '/restapi/policies/default');
    expect(customer.json()).toMatchObject({ scope: 'customer', user_id: a.customerId, id: a.defaultPolicyId });
    // An MSP admin names whose default it means; a customer admin cannot reach a template.
    const missing = await call(t.app, a.mspToken, 'GET', '/restapi/policies/default');
    expect(missing.statusCode).toBe(400);
    expect(missing.json().fields).toEqual({ user_id: Messages.required });
    expect((await call(t.app, a.customerToken, 'GET', `/restapi/policies/default?msp_id=${a.mspId}`)).statusCode).toBe(
      404,
    );
    const both = await call(t.app, t.rootToken, 'GET', `/restapi/policies/default?msp_id=${a.mspId}&user_id=1`);
    expect(both.statusCode).toBe(400);
    expect((await call(t.app, t.rootToken, 'GET', '/restapi/policies/default?msp_id=999')).statusCode).toBe(404);
  });

  it("new MSPs copy the system's default, new customers their MSP's; existing ones keep theirs", async () => {
    // The system's template: high, safe search on, unclassified blocked.
    const put = await call(t.app, t.rootToken, 'PUT', '/restapi/policies/default', {
      filtering_level: 'high',
      safe_search: true,
      allow_unclassified: false,
      description: 'House rules',
    });
    expect(put.statusCode).toBe(200);
    expect(put.json()).toMatchObject({ scope: 'system', filtering_level: 'high', safe_search: true });
    expect(t.published).not.toContain('policies');
    const a = await createTenant(t, 1);
    const mspDefault = (await call(t.app, t.rootToken, 'GET', `/restapi/policies/default?msp_id=${a.mspId}`)).json();
    expect(mspDefault).toMatchObject({
      filtering_level: 'high',
      safe_search: true,
      allow_unclassified: false,
      description: 'House rules',
    });
    const customerDefault = (await call(t.app, a.customerToken, 'GET', '/restapi/policies/default')).json();
    expect(customerDefault).toMatchObject({ filtering_level: 'high', safe_search: true, allow_unclassified: false });

    // The MSP customises its template (custom set: only Games, 21); its next customer copies that set.
    const cats = await call(t.app, a.mspToken, 'POST', `/restapi/policies/default/categories?msp_id=${a.mspId}`, [
      ...categoriesBlockedAt('high').map((id) => ({ id, allowed: false })),
      { id: 21, allowed: true },
    ]);
    expect(cats.statusCode).toBe(200);
    expect(blockedOf(cats.json())).toEqual([21]);
    const mspAfter = (await call(t.app, a.mspToken, 'GET', `/restapi/policies/default?msp_id=${a.mspId}`)).json();
    expect(mspAfter.filtering_level).toBe('custom');
    const next = await call(t.app, a.mspToken, 'POST', '/restapi/users/', { accountName: 'Second school' });
    expect(next.statusCode).toBe(201);
    const nextCats = await call(
      t.app,
      a.mspToken,
      'GET',
      `/restapi/policies/default/categories?user_id=${next.json().id}`,
    );
    expect(blockedOf(nextCats.json())).toEqual([21]);
    // The first customer's default policy did not change.
    const firstCats = await call(t.app, a.customerToken, 'GET', '/restapi/policies/default/categories');
    expect(blockedOf(firstCats.json())).toEqual(categoriesBlockedAt('high'));
    // An explicit default_level still wins over the template.
    const third = await call(t.app, a.mspToken, 'POST', '/restapi/users/', {
      accountName: 'Third school',
      default_level: 'moderate',
    });
    const thirdCats = await call(
      t.app,
      a.mspToken,
      'GET',
      `/restapi/policies/default/categories?user_id=${third.json().id}`,
    );
    expect(blockedOf(thirdCats.json())).toEqual(categoriesBlockedAt('moderate'));
    // Audit rows name the template's owner.
    const audit = await t.handle.db
      .selectFrom('audit_log')
      .select(['action', 'msp_id', 'customer_id'])
      .where('action', 'like', 'default_policy.%')
      .orderBy('id')
      .execute();
    expect(audit).toEqual([
      { action: 'default_policy.update', msp_id: null, customer_id: null },
      { action: 'default_policy.categories.update', msp_id: a.mspId, customer_id: null },
    ]);
  });

  it('lets only the system admin edit category levels, for policies created afterwards only', async () => {
    const a = await createTenant(t, 1);
    const before = await call(t.app, a.customerToken, 'GET', '/restapi/policies/default/categories/21');
    expect(before.json()).toEqual({ id: 21, name: 'Games', level: 'H', allowed: false });
    const state = await snapshot(t.handle);
    for (const token of [a.mspToken, a.customerToken]) {
      const res = await call(t.app, token, 'PUT', '/restapi/policies/default/categories/21', { level: 'L' });
      expect(res.statusCode).toBe(403);
    }
    expect(await snapshot(t.handle)).toBe(state);
    const bad = await call(t.app, t.rootToken, 'PUT', '/restapi/policies/default/categories/21', { level: 'X' });
    expect(bad.statusCode).toBe(400);
    expect(
      (await call(t.app, t.rootToken, 'PUT', '/restapi/policies/default/categories/55', { level: 'L' })).statusCode,
    ).toBe(404);
    expect(await snapshot(t.handle)).toBe(state);

    t.published.length = 0;
    const res = await call(t.app, t.rootToken, 'PUT', '/restapi/policies/default/categories/21', { level: 'L' });
    expect(res.statusCode).toBe(200);
    // The system's template is at `low` and follows the levels: it now blocks Games.
    expect(res.json()).toEqual({ id: 21, name: 'Games', level: 'L', allowed: true });
    expect(t.published).toEqual(['categories']);
    // The existing low default policy keeps its set; a policy created now blocks Games.
    const existing = await call(t.app, a.customerToken, 'GET', '/restapi/policies/default/categories/21');
    expect(existing.json()).toEqual({ id: 21, name: 'Games', level: 'L', allowed: false });
    const fresh = await call(t.app, a.customerToken, 'POST', '/restapi/policies', {
      user_id: a.customerId,
      name: 'After',
      filtering_level: 'low',
    });
    const freshCats = await call(t.app, a.customerToken, 'GET', `/restapi/policies/${fresh.json().id}/categories`);
    expect(blockedOf(freshCats.json())).toContain(21);
    const audit = await t.handle.db
      .selectFrom('audit_log')
      .select(['before_json', 'after_json'])
      .where('action', '=', 'category.level.update')
      .executeTakeFirstOrThrow();
    expect(JSON.parse(audit.before_json ?? '')).toMatchObject({ id: 21, level: 'H' });
    expect(JSON.parse(audit.after_json ?? '')).toMatchObject({ id: 21, level: 'L' });
  });

  it('stores safe search per policy and refuses renaming a template', async () => {
    const a = await createTenant(t, 1);
    const created = await call(t.app, a.customerToken, 'POST', '/restapi/policies', {
      user_id: a.customerId,
      name: 'Kids',
      safe_search: true,
    });
    expect(created.json().safe_search).toBe(true);
    const off = await call(t.app, a.customerToken, 'PUT', `/restapi/policies/${created.json().id}`, {
      safe_search: false,
    });
    expect(off.json().safe_search).toBe(false);
    expect((await call(t.app, a.customerToken, 'GET', '/restapi/policies/default')).json().safe_search).toBe(false);
    const rename = await call(t.app, t.rootToken, 'PUT', '/restapi/policies/default', { name: 'Other' });
    expect(rename.statusCode).toBe(400);
    expect(rename.json().fields.name).toBeDefined();
  });
});
