import { testDialects } from '@cordon/db/testing';
import { ErrorTexts, Messages, supportContactMessage } from '@cordon/shared';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { solidPng } from '../../../../../e2e/support/png.ts';
import { call, createTenant, createTestApp, snapshot, type TestApp, uploadFile } from '../../../test/helpers.ts';

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
      logo: null,
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

  it('uploads, shows and removes a logo, sniffing its type; refuses big, huge or fake images changing nothing', async () => {
    const a = await createTenant(t, 1);
    const b = await createTenant(t, 2);
    const png = solidPng(40, 20);
    const asLogo = (bytes: Buffer, filename = 'logo.png', contentType = 'image/png') => ({
      field: 'logo',
      filename,
      contentType,
      bytes,
    });
    const send = (token: string, url: string, f: ReturnType<typeof asLogo>) =>
      uploadFile(t.app, token, url, f.bytes, f);
    await call(t.app, a.customerToken, 'POST', URL, { title: 'Kept title' });
    t.published.length = 0;

    // The claimed type and name are ignored: the bytes say PNG.
    const up = await send(a.customerToken, `${URL}/logo`, asLogo(png, 'logo.gif', 'image/gif'));
    expect(up.statusCode, up.body).toBe(200);
    expect(up.json()).toMatchObject({ scope: 'customer', title: 'Kept title', is_set: true });
    expect(up.json().logo).toBe(`data:image/png;base64,${png.toString('base64')}`);
    expect(t.published).toEqual(['blockpages']);
    expect((await call(t.app, a.customerToken, 'GET', URL)).json().logo).toBe(up.json().logo);
    // The MSP's own logo, uploaded by its admin, on an owner with no row yet.
    const mspUp = await send(a.mspToken, `${URL}/logo?msp_id=${a.mspId}`, asLogo(solidPng(8, 8)));
    expect(mspUp.statusCode, mspUp.body).toBe(200);
    expect(mspUp.json()).toMatchObject({ scope: 'msp', title: '', is_set: true });

    // The audit row names the logo by its hash, never its bytes.
    const audit = await t.handle.db
      .selectFrom('audit_log')
      .select(['action', 'after_json'])
      .where('action', '=', 'blockpage.logo')
      .execute();
    expect(audit).toHaveLength(2);
    expect(audit[0]?.after_json).toContain('logo_sha256');
    expect(audit[0]?.after_json).not.toContain(png.toString('base64').slice(0, 40));

    const before = await snapshot(t.handle);
    t.published.length = 0;
    const refusal = async (bytes: Buffer, message: string) => {
      const r = await send(a.customerToken, `${URL}/logo`, asLogo(bytes));
      expect(r.statusCode, r.body).toBe(400);
      expect(r.json()).toMatchObject({ error: message, fields: { logo: message } });
    };
    await refusal(Buffer.alloc(1024 * 1024 + 1, 1), Messages.fileTooLarge);
    await refusal(solidPng(1025, 2), Messages.imageTooBig);
    await refusal(
      Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'),
      ErrorTexts.uploadFailed,
    );
    await refusal(Buffer.from('not an image at all'), ErrorTexts.uploadFailed);
    await refusal(Buffer.alloc(0), ErrorTexts.uploadFailed);
    // No file, or not multipart at all.
    const noFile = await send(a.customerToken, `${URL}/logo`, { ...asLogo(png), field: 'picture' });
    expect(noFile.statusCode).toBe(400);
    expect(noFile.json().fields).toEqual({ logo: Messages.required });
    expect((await call(t.app, a.customerToken, 'POST', `${URL}/logo`, { logo: 'x' })).statusCode).toBe(400);
    // A foreign owner: 404 before the upload is read.
    expect((await send(a.mspToken, `${URL}/logo?user_id=${b.customerId}`, asLogo(png))).statusCode).toBe(404);
    expect((await call(t.app, a.mspToken, 'DELETE', `${URL}/logo?user_id=${b.customerId}`)).statusCode).toBe(404);
    expect(await snapshot(t.handle)).toBe(before);
    expect(t.published).toEqual([]);

    // Removing the logo keeps the texts; a second removal has nothing to remove.
    const removed = await call(t.app, a.customerToken, 'DELETE', `${URL}/logo`);
    expect(removed.statusCode, removed.body).toBe(200);
    expect(removed.json()).toMatchObject({ title: 'Kept title', logo: null, is_set: true });
    expect((await call(t.app, a.customerToken, 'DELETE', `${URL}/logo`)).statusCode).toBe(404);
  });
});
