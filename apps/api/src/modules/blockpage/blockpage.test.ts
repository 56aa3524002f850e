import { testDialects } from '@cordon/db/testing';
import { supportContactMessage } from '@cordon/shared';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { call, createTenant, createTestApp, snapshot, type TestApp } from '../../../test/helpers.ts';

const URL = '/restapi/ui/blockpage';

describe.each(testDialects())('block-page branding on %s', (dialect) => {
  let t: TestApp;
  beforeEach(async () => {
    t = await createTestApp(dialect);
  });
  afterEach(async () => {
    await t.close();
  });

  it('sets, reads and deletes the customer, MSP and system branding, audited and published', async () => {
    const a = await createTenant(t, 1);
    t.published.length = 0;

    // Nothing set: each level answers its empty branding.
    const empty = await call(t.app, a.customerToken, 'GET', URL);
    expect(empty.statusCode, empty.body).toBe(200);
    expect(empty.json()).toEqual({
      scope: 'customer',
      user_id: a.customerId,
      msp_id: a.mspId,
      is_set: false,
      title: '',
      message: '',
      footer: '',
      support_contact: '',
      updated_at: null,
    });

    const set = await call(t.app, a.customerToken, 'POST', URL, {
      title: '  Acme says no  ',
      message: 'Line one\r\nLine two',
      support_contact: 'helpdesk@acme.test',
    });
    expect(set.statusCode, set.body).toBe(200);
    expect(set.json()).toMatchObject({
      scope: 'customer',
      is_set: true,
      title: 'Acme says no',
      message: 'Line one\nLine two',
      footer: '',
      support_contact: 'helpdesk@acme.test',
    });
    expect(t.published).toEqual(['blockpages']);
    // The MSP admin reads and replaces the same row by user_id.
    const byMsp = await call(t.app, a.mspToken, 'GET', `${URL}?user_id=${a.customerId}`);
    expect(byMsp.json()).toEqual(set.json());
    const replaced = await call(t.app, a.mspToken, 'POST', `${URL}?user_id=${a.customerId}`, {
      title: 'Acme',
      support_contact: 'https://help.acme.test/dns',
    });
    expect(replaced.json()).toMatchObject({
      title: 'Acme',
      message: '',
      support_contact: 'https://help.acme.test/dns',
    });

    // The MSP's own (no query for an MSP admin), and the system's (no query for the system admin).
    const msp = await call(t.app, a.mspToken, 'POST', URL, { title: 'MSP title' });
    expect(msp.json()).toMatchObject({ scope: 'msp', msp_id: a.mspId, user_id: null, title: 'MSP title' });
    expect((await call(t.app, t.rootToken, 'GET', `${URL}?msp_id=${a.mspId}`)).json()).toEqual(msp.json());
    const system = await call(t.app, t.rootToken, 'POST', URL, { footer: 'Operated by Cordon' });
    expect(system.json()).toMatchObject({ scope: 'system', msp_id: null, user_id: null, footer: 'Operated by Cordon' });
    expect((await call(t.app, a.mspToken, 'GET', URL)).json().title).toBe('MSP title');

    const del = await call(t.app, a.customerToken, 'DELETE', URL);
    expect(del.statusCode, del.body).toBe(200);
    expect(del.json()).toEqual({ deleted: true });
    expect((await call(t.app, a.customerToken, 'GET', URL)).json().is_set).toBe(false);
    expect((await call(t.app, a.customerToken, 'DELETE', URL)).statusCode).toBe(404);

    const audit = await t.handle.db
      .selectFrom('audit_log')
      .select(['action', 'customer_id', 'msp_id'])
      .where('entity', '=', 'blockpage')
      .orderBy('id')
      .execute();
    expect(audit).toEqual([
      { action: 'blockpage.update', customer_id: a.customerId, msp_id: a.mspId },
      { action: 'blockpage.update', customer_id: a.customerId, msp_id: a.mspId },
      { action: 'blockpage.update', customer_id: null, msp_id: a.mspId },
      { action: 'blockpage.update', customer_id: null, msp_id: null },
      { action: 'blockpage.delete', customer_id: a.customerId, msp_id: a.mspId },
    ]);
    expect(t.published).toEqual(Array(5).fill('blockpages'));
  });

  it('refuses bad input and foreign or missing owners, changing nothing', async () => {
    const a = await createTenant(t, 1);
    const b = await createTenant(t, 2);
    await call(t.app, a.customerToken, 'POST', URL, { title: 'Kept' });
    const before = await snapshot(t.handle);
    t.published.length = 0;

    const badContact = await call(t.app, a.customerToken, 'POST', URL, { support_contact: 'javascript:alert(1)' });
    expect(badContact.statusCode).toBe(400);
    expect(badContact.json().fields).toEqual({ support_contact: supportContactMessage });
    expect((await call(t.app, a.customerToken, 'POST', URL, { title: 'x'.repeat(201) })).statusCode).toBe(400);
    expect((await call(t.app, a.customerToken, 'POST', URL, { footer: 'a\u0007b' })).statusCode).toBe(400);
    const both = await call(t.app, t.rootToken, 'GET', `${URL}?user_id=${a.customerId}&msp_id=${a.mspId}`);
    expect(both.statusCode).toBe(400);

    // Another tenant's customer or MSP, or one that does not exist: 404 alike.
    for (const q of [`user_id=${b.customerId}`, `msp_id=${b.mspId}`, 'user_id=999999', 'msp_id=999999']) {
      expect((await call(t.app, a.mspToken, 'POST', `${URL}?${q}`, { title: 'x' })).statusCode, q).toBe(404);
    }
    // A customer admin has no MSP or system branding to edit.
    expect((await call(t.app, a.customerToken, 'GET', `${URL}?msp_id=${a.mspId}`)).statusCode).toBe(404);
    expect((await call(t.app, t.rootToken, 'GET', `${URL}?msp_id=999999`)).statusCode).toBe(404);

    expect(await snapshot(t.handle)).toBe(before);
    expect(t.published).toEqual([]);
  });
});
