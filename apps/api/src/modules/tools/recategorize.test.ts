import { testDialects } from '@cordon/db/testing';
import { Messages } from '@cordon/shared';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { call, createTenant, createTestApp, type TestApp } from '../../../test/helpers.ts';

const URL = '/restapi/tools/recategorize';

describe.each(testDialects())('recategorisation requests on %s', (dialect) => {
  let t: TestApp;
  beforeEach(async () => {
    t = await createTestApp(dialect);
    await t.handle.db
      .insertInto('category_domains')
      .values([
        { domain: 'games.example', category_id: 21, source: 'ut1' },
        { domain: 'games.example', category_id: 20, source: 'feed:9' },
      ])
      .execute();
  });
  afterEach(async () => {
    await t.close();
  });

  it('queues requests per tenant; the system admin approves one into an override that wins over every feed', async () => {
    const a = await createTenant(t, 1);
    const b = await createTenant(t, 2);
    const asked = await call(t.app, a.customerToken, 'POST', URL, {
      domain: 'Games.Example',
      category_id: 31,
      comment: 'A school portal',
    });
    expect(asked.statusCode, asked.body).toBe(201);
    expect(asked.json()).toMatchObject({
      domain: 'games.example',
      category: { id: 31 },
      current_categories: [
        { id: 20, name: 'Gambling' },
        { id: 21, name: 'Games' },
      ],
      status: 'pending',
      requested_by: 'cust1@example.test',
      msp_id: a.mspId,
      customer_id: a.customerId,
    });
    // Asking again is the same request, not a second one.
    const again = await call(t.app, a.customerToken, 'POST', URL, { domain: 'games.example', category_id: 31 });
    expect(again.json().id).toBe(asked.json().id);
    await call(t.app, b.mspToken, 'POST', URL, { domain: 'other.example', category_id: 13 });

    // Each tenant sees its own; the MSP its customers' too; the system admin all.
    expect((await call(t.app, a.customerToken, 'GET', URL)).json().total).toBe(1);
    expect((await call(t.app, a.mspToken, 'GET', URL)).json().total).toBe(1);
    expect((await call(t.app, b.mspToken, 'GET', URL)).json().data.map((r: { domain: string }) => r.domain)).toEqual([
      'other.example',
    ]);
    expect((await call(t.app, b.customerToken, 'GET', URL)).json().total).toBe(0);
    const all = await call(t.app, t.rootToken, 'GET', `${URL}?status=pending`);
    expect(all.json().total).toBe(2);

    t.published.length = 0;
    const approved = await call(t.app, t.rootToken, 'POST', `${URL}/${asked.json().id}/review`, { action: 'approve' });
    expect(approved.statusCode, approved.body).toBe(200);
    expect(approved.json()).toMatchObject({ status: 'approved', current_categories: [{ id: 31 }] });
    expect(t.published).toEqual(['category_overrides']);
    const rows = await t.handle.db
      .selectFrom('category_domains')
      .select(['category_id', 'source'])
      .where('domain', '=', 'games.example')
      .execute();
    expect(rows).toEqual([{ category_id: 31, source: 'override' }]);
    // The resolver's own engine answers with the override.
    const tested = await call(t.app, a.customerToken, 'POST', '/restapi/tools/test/category', {
      domain: 'games.example',
    });
    expect(tested.json().categories).toEqual([{ id: 31, name: expect.any(String) }]);
    // A reviewed request is final.
    const twice = await call(t.app, t.rootToken, 'POST', `${URL}/${asked.json().id}/review`, { action: 'reject' });
    expect(twice.statusCode).toBe(409);
    expect(twice.json().error).toBe('This request was already approved.');
    const audit = await t.handle.db
      .selectFrom('audit_log')
      .select('action')
      .where('entity', '=', 'recategorize_request')
      .orderBy('id')
      .execute();
    expect(audit.map((r) => r.action)).toEqual([
      'recategorize.request',
      'recategorize.request',
      'recategorize.request',
      'recategorize.approve',
    ]);
  });

  it('refuses a URL, an unknown category, a review by anyone but the system admin, and a missing request', async () => {
    const a = await createTenant(t, 1);
    const url = await call(t.app, a.customerToken, 'POST', URL, { domain: 'http://x.example/a', category_id: 13 });
    expect(url.statusCode).toBe(400);
    expect(url.json().fields).toEqual({ domain: Messages.domainOnly });
    const cat = await call(t.app, a.customerToken, 'POST', URL, { domain: 'x.example', category_id: 99 });
    expect(cat.json().fields).toEqual({ category_id: 'Select a category.' });
    const asked = (await call(t.app, a.mspToken, 'POST', URL, { domain: 'x.example', category_id: 13 })).json();
    expect((await call(t.app, a.mspToken, 'POST', `${URL}/${asked.id}/review`, { action: 'approve' })).statusCode).toBe(
      403,
    );
    expect((await call(t.app, t.rootToken, 'POST', `${URL}/99999/review`, { action: 'approve' })).statusCode).toBe(404);
    const rejected = await call(t.app, t.rootToken, 'POST', `${URL}/${asked.id}/review`, { action: 'reject' });
    expect(rejected.json().status).toBe('rejected');
    expect(await t.handle.db.selectFrom('category_overrides').selectAll().execute()).toEqual([]);
  });
});
