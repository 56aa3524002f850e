import { testDialects } from '@cordon/db/testing';
import { Messages } from '@cordon/shared';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { call, createTenant, createTestApp, type TestApp } from '../../../test/helpers.ts';

const URL = '/restapi/tools/test/category';

describe.each(testDialects())('test categorisation on %s', (dialect) => {
  let t: TestApp;
  beforeEach(async () => {
    t = await createTestApp(dialect);
    await t.handle.db
      .insertInto('category_domains')
      .values([
        { domain: 'casino.example', category_id: 20, source: 'test' },
        { domain: 'shop.casino.example', category_id: 16, source: 'test' },
        { domain: 'drinks.example', category_id: 16, source: 'test' },
      ])
      .execute();
  });
  afterEach(async () => {
    await t.close();
  });

  it("answers a name's categories (its parents' too) and the decision under the chosen policy", async () => {
    const a = await createTenant(t, 1);
    // The tenant's "Strict" policy is High: Gambling (M) and Alcohol (H) are blocked.
    const strict = await call(t.app, a.customerToken, 'POST', URL, {
      domain: 'WWW.Shop.Casino.Example.',
      policy_id: a.policyId,
    });
    expect(strict.statusCode, strict.body).toBe(200);
    expect(strict.json()).toEqual({
      domain: 'www.shop.casino.example',
      categories: [
        { id: 16, name: 'Alcohol' },
        { id: 20, name: 'Gambling' },
      ],
      policy: { id: a.policyId, name: 'Strict 1' },
      action: 'blocked',
      reason: 'category',
      forward_to: null,
    });
    // No policy named: the customer's default policy; a name with no category is allowed.
    const plain = await call(t.app, a.customerToken, 'POST', URL, { domain: 'unlisted.example' });
    expect(plain.json()).toMatchObject({ categories: [], action: 'allowed', policy: { id: a.defaultPolicyId } });
    // The policy's allow list wins over its categories (decision order step 3).
    const allow = await call(t.app, a.customerToken, 'POST', `/restapi/policies/${a.policyId}/domains/allow`, {
      domain: 'casino.example',
      include_subdomains: true,
    });
    expect(allow.statusCode, allow.body).toBeLessThan(300);
    const allowed = await call(t.app, a.mspToken, 'POST', URL, {
      domain: 'shop.casino.example',
      policy_id: a.policyId,
    });
    expect(allowed.json()).toMatchObject({ action: 'allowed', reason: 'policy_allow' });
    // A static route of the customer forwards (step 2) before any list.
    const routed = await call(t.app, t.rootToken, 'POST', URL, { domain: 'x.corp1.example', user_id: a.customerId });
    expect(routed.json()).toMatchObject({ action: 'allowed', reason: 'static_route', forward_to: '10.1.0.53:53' });
    // A system admin without a customer: the categories only.
    const bare = await call(t.app, t.rootToken, 'POST', URL, { domain: 'drinks.example' });
    expect(bare.json()).toMatchObject({ categories: [{ id: 16, name: 'Alcohol' }], policy: null, action: 'allowed' });
  });

  it('refuses a URL, an empty name and foreign policies or customers', async () => {
    const a = await createTenant(t, 1);
    const b = await createTenant(t, 2);
    const url = await call(t.app, a.customerToken, 'POST', URL, { domain: 'https://casino.example/x' });
    expect(url.statusCode).toBe(400);
    expect(url.json().fields).toEqual({ domain: Messages.domainOnly });
    const empty = await call(t.app, a.customerToken, 'POST', URL, { domain: ' ' });
    expect(empty.json().fields).toEqual({ domain: Messages.required });
    expect(
      (await call(t.app, a.customerToken, 'POST', URL, { domain: 'a.example', policy_id: b.policyId })).statusCode,
    ).toBe(404);
    expect(
      (await call(t.app, a.mspToken, 'POST', URL, { domain: 'a.example', user_id: b.customerId })).statusCode,
    ).toBe(404);
    expect(
      (
        await call(t.app, a.mspToken, 'POST', URL, {
          domain: 'a.example',
          user_id: b.customerId,
          policy_id: a.policyId,
        })
      ).statusCode,
    ).toBe(404);
  });
});
