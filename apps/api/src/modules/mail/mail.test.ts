import { mail, OPERATOR } from '@cordon/core';
import { testDialects } from '@cordon/db/testing';
import { Messages } from '@cordon/shared';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type SmtpCatcher, startSmtpCatcher } from '../../../../../test/support/smtp-catcher.ts';
import { createAccountsTenant as createTenant } from '../../../test/accounts-fixture.ts';
import { call, createTestApp, type TestApp } from '../../../test/helpers.ts';

describe.each(testDialects())('mail settings on %s', (dialect) => {
  let t: TestApp;
  let smtp: SmtpCatcher;
  beforeAll(async () => {
    smtp = await startSmtpCatcher();
  });
  afterAll(async () => {
    await smtp.close();
  });
  beforeEach(async () => {
    t = await createTestApp(dialect);
  });
  afterEach(async () => {
    await t.close();
  });

  const settings = (port: number) => ({
    server: '127.0.0.1',
    port,
    security: 'none',
    sender: 'Cordon',
    from_email: 'NoReply@Cordon.test',
    notification_period: 'daily',
    username: '',
    password: 'smtp-Secret-1',
    console_url: 'http://console.cordon.test/',
  });

  it('stores the system settings, never answers or audits the password, and sends a test e-mail', async () => {
    const empty = (await call(t.app, t.rootToken, 'GET', '/restapi/mail')).json();
    expect(empty).toMatchObject({ scope: 'system', is_set: false, inherited: false, server: '' });

    const res = await call(t.app, t.rootToken, 'POST', '/restapi/mail', settings(smtp.port));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      scope: 'system',
      msp_id: null,
      is_set: true,
      server: '127.0.0.1',
      port: smtp.port,
      from_email: 'noreply@cordon.test',
      has_password: true,
      console_url: 'http://console.cordon.test',
    });
    expect(res.body).not.toContain('smtp-Secret-1');
    const audit = await t.handle.db
      .selectFrom('audit_log')
      .selectAll()
      .where('action', '=', 'mail.update')
      .executeTakeFirstOrThrow();
    expect(audit.after_json).not.toContain('smtp-Secret-1');
    expect(audit.after_json).toContain('"has_password":true');
    // Sealed at rest with the deployment's secret (docs/security.md); opened only to send.
    const row = await t.handle.db.selectFrom('mail_settings').select('password').executeTakeFirstOrThrow();
    expect(row.password).toMatch(/^sealed:v1\./);
    expect(row.password).not.toContain('smtp-Secret-1');

    // Leaving the password out keeps it.
    const { password: _p, ...noPassword } = settings(smtp.port);
    const kept = await call(t.app, t.rootToken, 'POST', '/restapi/mail', { ...noPassword, sender: 'Cordon Ops' });
    expect(kept.json()).toMatchObject({ has_password: true, sender: 'Cordon Ops' });

    const before = smtp.mails.length;
    const sent = await call(t.app, t.rootToken, 'POST', '/restapi/mail/test', { to: 'ops@example.test' });
    expect(sent.statusCode).toBe(200);
    expect(sent.json()).toMatchObject({ sent: true });
    const caught = await smtp.waitFor('ops@example.test', { since: before });
    expect(caught.subject).toBe('Cordon test e-mail');
    expect(caught.from).toBe('noreply@cordon.test');
  });

  it('refuses a bad server with the spec text and changes nothing', async () => {
    for (const server of ['', 'not a host', 'http://mail.example.com', 'mail..example.com']) {
      const res = await call(t.app, t.rootToken, 'POST', '/restapi/mail', { ...settings(25), server });
      expect(res.statusCode, server).toBe(400);
      expect(res.json().fields.server).toBe(Messages.invalidMailServer);
    }
    for (const server of ['mail.example.com', 'localhost', '192.0.2.25', '2001:db8::25']) {
      const res = await call(t.app, t.rootToken, 'POST', '/restapi/mail', { ...settings(25), server });
      expect(res.statusCode, server).toBe(200);
    }
    const bad = await call(t.app, t.rootToken, 'POST', '/restapi/mail', {
      ...settings(25),
      from_email: 'nope',
      notification_period: 'yearly',
      port: 70000,
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().fields).toMatchObject({ from_email: Messages.invalidEmail });
    expect(Object.keys(bad.json().fields).sort()).toEqual(['from_email', 'notification_period', 'port']);
  });

  it("falls back from an MSP to the system's settings, and sends mail for the MSP through its own", async () => {
    const a = await createTenant(t, 1);
    await call(t.app, t.rootToken, 'POST', '/restapi/mail', settings(smtp.port));
    const inherited = (await call(t.app, a.mspToken, 'GET', '/restapi/mail')).json();
    expect(inherited).toMatchObject({ scope: 'msp', msp_id: a.mspId, is_set: false, inherited: true });
    expect(inherited.console_url).toBe('');

    const { console_url: _c, ...mspSettings } = settings(smtp.port);
    const own = await call(t.app, a.mspToken, 'POST', '/restapi/mail', {
      ...mspSettings,
      from_email: 'alerts@msp1.test',
    });
    expect(own.statusCode).toBe(200);
    expect(own.json()).toMatchObject({ scope: 'msp', is_set: true, from_email: 'alerts@msp1.test' });
    const withUrl = await call(t.app, a.mspToken, 'POST', '/restapi/mail', settings(smtp.port));
    expect(withUrl.statusCode).toBe(400);

    const deps = { handle: t.handle, changes: t.changes, now: () => t.clock.now, secrets: t.secrets };
    const before = smtp.mails.length;
    await mail.sendMail(deps, { mspId: a.mspId }, { to: 'boss@example.test', subject: 'Report', text: 'Hi' });
    expect((await smtp.waitFor('boss@example.test', { since: before })).from).toBe('alerts@msp1.test');
    await mail.sendMail(
      deps,
      { mspId: null },
      {
        to: 'root@example.test',
        subject: 'PDF',
        text: 'Attached',
        attachments: [{ filename: 'r.pdf', content: Buffer.from('%PDF-1.4'), contentType: 'application/pdf' }],
      },
    );
    const pdf = await smtp.waitFor('root@example.test', { since: before });
    expect(pdf.from).toBe('noreply@cordon.test');
    expect(pdf.attachments[0]?.filename).toBe('r.pdf');

    const del = await call(t.app, a.mspToken, 'DELETE', '/restapi/mail');
    expect(del.statusCode).toBe(200);
    expect((await call(t.app, a.mspToken, 'GET', '/restapi/mail')).json()).toMatchObject({ inherited: true });
    expect((await call(t.app, a.mspToken, 'DELETE', '/restapi/mail')).statusCode).toBe(404);
    // A system admin reads and writes an MSP's through msp_id; customers have none.
    expect((await call(t.app, t.rootToken, 'GET', `/restapi/mail?msp_id=${a.mspId}`)).json().scope).toBe('msp');
    expect((await call(t.app, a.customerToken, 'GET', '/restapi/mail')).statusCode).toBe(403);
  });

  it('answers 422 when no settings apply or the server refuses, and sendMail says it is not configured', async () => {
    const none = await call(t.app, t.rootToken, 'POST', '/restapi/mail/test', { to: 'ops@example.test' });
    expect(none.statusCode).toBe(422);
    const deps = { handle: t.handle, changes: t.changes, now: () => t.clock.now, secrets: t.secrets };
    await expect(mail.sendMail(deps, { mspId: null }, { to: 'a@b.test', subject: 's', text: 't' })).rejects.toThrow(
      mail.MailNotConfiguredError,
    );
    // A closed port: connection refused.
    await mail.setMailSettings(
      deps,
      OPERATOR,
      {},
      {
        server: '127.0.0.1',
        port: 1,
        security: 'none',
        username: '',
        sender: '',
        from_email: 'a@b.test',
        notification_period: 'daily',
      },
    );
    const refused = await call(t.app, t.rootToken, 'POST', '/restapi/mail/test', { to: 'ops@example.test' });
    expect(refused.statusCode).toBe(422);
    expect(refused.json().error).toMatch(/^The test e-mail could not be sent: /);
  });
});
