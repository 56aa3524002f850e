import { testDialects } from '@cordon/db/testing';
import { ErrorTexts, Messages } from '@cordon/shared';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { solidPng } from '../../../../../e2e/support/png.ts';
import { call, createTenant, createTestApp, snapshot, type TestApp } from '../../../test/helpers.ts';

const URL = '/restapi/ui/interface';
const SUPPORT = '/restapi/ui/support';

/** A multipart POST with text fields and an optional `logo` file, what the console's FormData sends. */
function postForm(app: FastifyInstance, token: string, url: string, fields: Record<string, string>, logo?: Buffer) {
  const boundary = '----cordon-ui-boundary';
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  }
  if (logo) {
    parts.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="logo"; filename="logo.png"\r\nContent-Type: image/png\r\n\r\n`,
      ),
      logo,
      Buffer.from('\r\n'),
    );
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return app.inject({
    method: 'POST',
    url,
    headers: { authorization: `Bearer ${token}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
    payload: Buffer.concat(parts),
  });
}

describe.each(testDialects())('interface branding and support contacts on %s', (dialect) => {
  let t: TestApp;
  beforeEach(async () => {
    t = await createTestApp(dialect);
  });
  afterEach(async () => {
    await t.close();
  });

  it('sets title, nameservers and logo at system and MSP level; customers see their MSP, else the system', async () => {
    const a = await createTenant(t, 1);
    const empty = await call(t.app, a.mspToken, 'GET', URL);
    expect(empty.statusCode, empty.body).toBe(200);
    expect(empty.json()).toEqual({
      msp_id: a.mspId,
      system: false,
      logo: null,
      title: '',
      nameservers: [],
      effective_logo: null,
      effective_title: '',
      updated_at: null,
    });

    // The system level: the customer inherits it while its MSP has none.
    const sys = await postForm(t.app, t.rootToken, URL, {
      title: '  Cordon Cloud ',
      nameservers: '192.0.2.53, ns2.cordon.test',
    });
    expect(sys.statusCode, sys.body).toBe(200);
    expect(sys.json()).toMatchObject({
      msp_id: null,
      system: true,
      title: 'Cordon Cloud',
      nameservers: ['192.0.2.53', 'ns2.cordon.test'],
    });
    expect((await call(t.app, a.customerToken, 'GET', URL)).json()).toMatchObject({
      msp_id: a.mspId,
      title: '',
      effective_title: 'Cordon Cloud',
    });

    // The MSP's own title and logo win for it and its customers; absent fields stay as they were.
    const png = solidPng(40, 20);
    const msp = await postForm(t.app, a.mspToken, URL, { title: 'Northwind DNS' }, png);
    expect(msp.statusCode, msp.body).toBe(200);
    const dataUrl = `data:image/png;base64,${png.toString('base64')}`;
    expect(msp.json()).toMatchObject({
      title: 'Northwind DNS',
      logo: dataUrl,
      effective_logo: dataUrl,
      nameservers: [],
    });
    const seen = (await call(t.app, a.customerToken, 'GET', URL)).json();
    expect(seen).toMatchObject({ effective_title: 'Northwind DNS', effective_logo: dataUrl });
    const nsOnly = await postForm(t.app, a.mspToken, URL, { nameservers: '198.51.100.1\n198.51.100.2' });
    expect(nsOnly.json()).toMatchObject({
      title: 'Northwind DNS',
      logo: dataUrl,
      nameservers: ['198.51.100.1', '198.51.100.2'],
    });
    // The system admin reads and edits the same MSP by msp_id.
    expect((await call(t.app, t.rootToken, 'GET', `${URL}?msp_id=${a.mspId}`)).json()).toEqual(nsOnly.json());

    // DELETE of the title and the logo: the system's title shows again.
    const noTitle = await call(t.app, a.mspToken, 'DELETE', `${URL}/title`);
    expect(noTitle.statusCode, noTitle.body).toBe(200);
    expect(noTitle.json()).toMatchObject({ title: '', effective_title: 'Cordon Cloud', logo: dataUrl });
    const noLogo = await call(t.app, t.rootToken, 'DELETE', `${URL}/logo?msp_id=${a.mspId}`);
    expect(noLogo.json()).toMatchObject({ logo: null, effective_logo: null });

    const audit = await t.handle.db
      .selectFrom('audit_log')
      .select(['action', 'after_json'])
      .where('entity', '=', 'ui_interface')
      .orderBy('id')
      .execute();
    expect(audit.map((r) => r.action)).toEqual([
      'ui.interface.update',
      'ui.interface.update',
      'ui.interface.update',
      'ui.interface.title.delete',
      'ui.interface.logo.delete',
    ]);
    // The audit row names the logo by its hash, never its bytes.
    expect(audit[1]?.after_json).toContain('logo_sha256');
    expect(audit[1]?.after_json).not.toContain(png.toString('base64').slice(0, 40));
  });

  it("refuses big, huge or fake logos, bad fields, customers' and sales' writes and foreign MSPs, changing nothing", async () => {
    const a = await createTenant(t, 1);
    const b = await createTenant(t, 2);
    await postForm(t.app, a.mspToken, URL, { title: 'Kept' });
    const before = await snapshot(t.handle);
    const rows = async () => JSON.stringify(await t.handle.db.selectFrom('ui_interfaces').selectAll().execute());
    const kept = await rows();
    const refusal = async (
      fields: Record<string, string>,
      logo: Buffer | undefined,
      field: string,
      message: string,
    ) => {
      const r = await postForm(t.app, a.mspToken, URL, fields, logo);
      expect(r.statusCode, r.body).toBe(400);
      expect(r.json()).toMatchObject({ error: message, fields: { [field]: message } });
    };
    await refusal({}, Buffer.alloc(1024 * 1024 + 1, 1), 'logo', Messages.fileTooLarge);
    await refusal({ title: 'New' }, solidPng(1025, 2), 'logo', Messages.imageTooBig);
    await refusal({}, Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'), 'logo', ErrorTexts.uploadFailed);
    await refusal({ title: 'x'.repeat(201) }, undefined, 'title', Messages.max200);
    await refusal({ nameservers: 'not a host!' }, undefined, 'nameservers', 'Must be valid IP address or host name.');
    expect((await call(t.app, a.mspToken, 'POST', URL, { title: 'json' })).statusCode).toBe(400);
    // A customer admin and a sales admin may read (customer) but never write.
    expect((await postForm(t.app, a.customerToken, URL, { title: 'Mine' })).statusCode).toBe(403);
    expect((await call(t.app, a.customerToken, 'DELETE', `${URL}/title`)).statusCode).toBe(403);
    expect((await call(t.app, a.customerToken, 'GET', `${URL}?msp_id=${a.mspId}`)).statusCode).toBe(404);
    // Another MSP's branding: 404, before the upload is read.
    expect((await postForm(t.app, a.mspToken, `${URL}?msp_id=${b.mspId}`, { title: 'Hijack' })).statusCode).toBe(404);
    expect((await call(t.app, a.mspToken, 'GET', `${URL}?msp_id=${b.mspId}`)).statusCode).toBe(404);
    expect(
      (
        await call(t.app, a.mspToken, 'PUT', `${SUPPORT}?msp_id=${b.mspId}`, {
          email: '',
          link: '',
          support_desk_url: '',
        })
      ).statusCode,
    ).toBe(404);
    expect(await rows()).toBe(kept);
    expect(await snapshot(t.handle)).toBe(before);
  });

  it('keeps support contacts per level with the spec URL message; a customer reads its MSP, else the system', async () => {
    const a = await createTenant(t, 1);
    const sys = await call(t.app, t.rootToken, 'PUT', SUPPORT, {
      email: 'help@cordon.test',
      link: 'https://cordon.test/help',
      support_desk_url: '',
    });
    expect(sys.statusCode, sys.body).toBe(200);
    expect(sys.json()).toMatchObject({ system: true, msp_id: null, email: 'help@cordon.test' });
    expect(t.published).toContain('blockpages');
    // No MSP contacts yet: the customer is offered the system's.
    expect((await call(t.app, a.customerToken, 'GET', SUPPORT)).json()).toMatchObject({
      system: true,
      email: 'help@cordon.test',
    });

    const bad = await call(t.app, a.mspToken, 'PUT', SUPPORT, {
      email: 'nope',
      link: 'ftp://x',
      support_desk_url: 'desk',
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().fields).toEqual({
      email: Messages.invalidEmail,
      link: Messages.invalidUrl,
      support_desk_url: Messages.invalidUrl,
    });
    const msp = await call(t.app, a.mspToken, 'PUT', SUPPORT, {
      email: 'desk@northwind.test',
      link: '',
      support_desk_url: 'https://desk.northwind.test/new',
    });
    expect(msp.statusCode, msp.body).toBe(200);
    expect((await call(t.app, a.customerToken, 'GET', SUPPORT)).json()).toEqual(msp.json());
    expect((await call(t.app, t.rootToken, 'GET', `${SUPPORT}?msp_id=${a.mspId}`)).json()).toEqual(msp.json());
    expect(
      (await call(t.app, a.customerToken, 'PUT', SUPPORT, { email: '', link: '', support_desk_url: '' })).statusCode,
    ).toBe(403);
  });
});
