import net from 'node:net';
import { type CoreDeps, notifications, worker } from '@cordon/core';
import { testDialects } from '@cordon/db/testing';
import { Messages } from '@cordon/shared';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type SmtpCatcher, startSmtpCatcher } from '../../../../../test/support/smtp-catcher.ts';
import { call, createTenant, createTestApp, type TenantFixture, type TestApp } from '../../../test/helpers.ts';
import { insertQueryLogRows } from '../../../test/query-log.ts';

const HOUR = 3_600_000;

describe.each(testDialects())('category notifications on %s', (dialect) => {
  let t: TestApp;
  let a: TenantFixture;
  let b: TenantFixture;
  let smtp: SmtpCatcher;
  beforeAll(async () => {
    smtp = await startSmtpCatcher();
  });
  afterAll(async () => {
    await smtp.close();
  });
  beforeEach(async () => {
    // Clock: 2025-06-15T12:00Z; customers in Europe/Berlin.
    t = await createTestApp(dialect);
    a = await createTenant(t, 1);
    b = await createTenant(t, 2);
  });
  afterEach(async () => {
    await t.close();
  });
  const path = (id: number) => `/restapi/policies/${id}/notifications`;
  const auditCount = async () =>
    Number(
      (
        await t.handle.db
          .selectFrom('audit_log')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('action', '=', 'notification.update')
          .executeTakeFirstOrThrow()
      ).n,
    );

  it('answers defaults, refuses categories without a recipient and bad e-mails, and saves', async () => {
    const fresh = await call(t.app, a.customerToken, 'GET', path(a.policyId));
    expect(fresh.statusCode, fresh.body).toBe(200);
    expect(fresh.json()).toMatchObject({
      policy_id: a.policyId,
      user_id: a.customerId,
      categories: [],
      interval: 'daily',
      period: 'day',
      emails: [],
      last_status: null,
    });

    const noMail = await call(t.app, a.customerToken, 'POST', path(a.policyId), {
      categories: [6, 5],
      interval: 'hourly',
      period: 'hour',
      emails: [],
    });
    expect(noMail.statusCode).toBe(400);
    expect(noMail.json().fields).toEqual({ emails: Messages.notificationEmailRequired });
    expect(noMail.json().error).toBe('The email address is required with the selected category notifications.');

    const badMail = await call(t.app, a.customerToken, 'POST', path(a.policyId), {
      categories: [6],
      interval: 'hourly',
      period: 'hour',
      emails: ['ok@example.test', 'not-an-address'],
    });
    expect(badMail.statusCode).toBe(400);
    expect(badMail.json().fields).toEqual({ 'emails.1': Messages.invalidEmail });

    const badCategory = await call(t.app, a.customerToken, 'POST', path(a.policyId), {
      categories: [41],
      interval: 'yearly',
      period: 'hour',
      emails: ['ok@example.test'],
    });
    expect(badCategory.statusCode).toBe(400);
    expect(Object.keys(badCategory.json().fields).sort()).toEqual(['categories.0', 'interval']);

    // Nothing was saved by the refused calls.
    expect((await call(t.app, a.customerToken, 'GET', path(a.policyId))).json()).toMatchObject({ categories: [] });
    expect(await auditCount()).toBe(0);

    const saved = await call(t.app, a.customerToken, 'POST', path(a.policyId), {
      categories: [6, 5, 6],
      interval: 'weekly',
      period: 'week',
      emails: [' Sec@Example.test ', 'sec@example.test'],
    });
    expect(saved.statusCode, saved.body).toBe(200);
    expect(saved.json()).toMatchObject({
      categories: [5, 6],
      interval: 'weekly',
      period: 'week',
      emails: ['sec@example.test'],
      last_run_at: '2025-06-15T12:00:00.000Z',
    });
    const audit = await t.handle.db
      .selectFrom('audit_log')
      .selectAll()
      .where('action', '=', 'notification.update')
      .executeTakeFirstOrThrow();
    expect(audit).toMatchObject({ entity: 'policy_notification', entity_id: a.policyId, customer_id: a.customerId });

    // Switched off: no categories, no recipient needed.
    const off = await call(t.app, a.mspToken, 'POST', path(a.policyId), {
      categories: [],
      interval: 'daily',
      period: 'day',
    });
    expect(off.statusCode, off.body).toBe(200);
    expect(off.json()).toMatchObject({ categories: [], emails: [] });
  });

  it("reads and writes the customer's default policy with user_id, or the customer admin's own", async () => {
    const base = '/restapi/policies/default/notifications';
    const body = { categories: [9], interval: 'daily', period: 'day', emails: ['parent@example.test'] };
    const own = await call(t.app, a.customerToken, 'POST', base, body);
    expect(own.statusCode, own.body).toBe(200);
    const defaultId = own.json().policy_id;
    expect(defaultId).not.toBe(a.policyId);
    const byMsp = await call(t.app, a.mspToken, 'GET', `${base}?user_id=${a.customerId}`);
    expect(byMsp.json()).toMatchObject({ policy_id: defaultId, categories: [9], emails: ['parent@example.test'] });
    expect((await call(t.app, a.mspToken, 'GET', path(defaultId))).json()).toMatchObject({ categories: [9] });
    const noUser = await call(t.app, a.mspToken, 'GET', base);
    expect(noUser.statusCode).toBe(400);
    const noMail = await call(t.app, a.customerToken, 'POST', base, { ...body, emails: [] });
    expect(noMail.statusCode).toBe(400);
    expect(noMail.json().fields.emails).toBe(Messages.notificationEmailRequired);
  });

  it("refuses another tenant's policy and default policy with 404 and changes nothing", async () => {
    const body = { categories: [6], interval: 'hourly', period: 'hour', emails: ['spy@example.test'] };
    for (const token of [b.customerToken, b.mspToken]) {
      expect((await call(t.app, token, 'GET', path(a.policyId))).statusCode).toBe(404);
      expect((await call(t.app, token, 'POST', path(a.policyId), body)).statusCode).toBe(404);
      const url = `/restapi/policies/default/notifications?user_id=${a.customerId}`;
      expect((await call(t.app, token, 'GET', url)).statusCode).toBe(404);
      expect((await call(t.app, token, 'POST', url, body)).statusCode).toBe(404);
    }
    expect((await call(t.app, a.customerToken, 'GET', path(999_999))).statusCode).toBe(404);
    const rows = await t.handle.db.selectFrom('policy_notifications').selectAll().execute();
    expect(rows).toEqual([]);
    expect(await auditCount()).toBe(0);
  });

  it('the worker mails a digest of the blocked hits once per interval, none without hits', async () => {
    const log = (
      iso: string,
      qname: string,
      categories: string,
      ip: string,
      opts: Partial<{ policy: number; action: string; customer: number }> = {},
    ) => ({
      ts: Date.parse(iso),
      customer_id: opts.customer ?? a.customerId,
      location_id: null,
      policy_id: opts.policy ?? a.policyId,
      client_ip: ip,
      qname,
      qtype: 'A',
      protocol: 'udp',
      action: opts.action ?? 'blocked',
      reason: 'category',
      categories,
      rcode: 'NOERROR',
      answer_source: 'policy',
      latency_us: 50,
      user_id: null,
      group_id: null,
      device_id: null,
      user_name: '',
    });
    await insertQueryLogRows(t.handle, [
      // In the window 2025-06-15 12:00–13:00Z.
      log('2025-06-15T12:10:00Z', 'evil-malware.example', '6', '10.1.0.66'),
      log('2025-06-15T12:11:00Z', 'evil-malware.example', '6', '10.1.0.66'),
      log('2025-06-15T12:12:00Z', 'evil-malware.example', '6', '10.1.0.7'),
      log('2025-06-15T12:20:00Z', 'bank-login.example', '5,6', '10.1.0.8'),
      log('2025-06-15T12:30:00Z', 'casino.example', '23', '10.1.0.66'),
      // Not counted: allowed, another policy, another customer, before the window.
      log('2025-06-15T12:40:00Z', 'evil-malware.example', '6', '10.1.0.9', { action: 'allowed' }),
      log('2025-06-15T12:41:00Z', 'evil-malware.example', '6', '10.1.0.9', { policy: b.policyId }),
      log('2025-06-15T12:42:00Z', 'evil-malware.example', '6', '10.2.0.9', {
        customer: b.customerId,
        policy: b.policyId,
      }),
      log('2025-06-15T11:59:00Z', 'evil-malware.example', '6', '10.1.0.9'),
    ]);
    const mail = await call(t.app, t.rootToken, 'POST', '/restapi/mail', {
      server: '127.0.0.1',
      port: smtp.port,
      security: 'none',
      sender: 'Cordon',
      from_email: 'noreply@cordon.test',
      notification_period: 'daily',
      username: '',
    });
    expect(mail.statusCode, mail.body).toBe(200);
    const saved = await call(t.app, a.customerToken, 'POST', path(a.policyId), {
      categories: [5, 6],
      interval: 'hourly',
      period: 'hour',
      emails: ['sec1@example.test'],
    });
    expect(saved.statusCode, saved.body).toBe(200);
    // B's policy: notifications on, but no hit in its window.
    await call(t.app, b.customerToken, 'POST', path(b.policyId), {
      categories: [13],
      interval: 'hourly',
      period: 'hour',
      emails: ['quiet@example.test'],
    });

    const deps: CoreDeps = { handle: t.handle, changes: t.changes, now: () => t.clock.now, secrets: t.secrets };
    const w = worker.startWorker(deps, [notifications.digestJob()], { tickMs: 0 });
    const since = smtp.mails.length;
    // 12:59: the hour has not elapsed.
    t.clock.now = Date.parse('2025-06-15T12:59:00Z');
    await w.runDue();
    expect(smtp.mails.length).toBe(since);
    t.clock.now = Date.parse('2025-06-15T13:00:00Z');
    // The worker ran 1 minute ago; run the job's function directly for this instant.
    const outcomes = await notifications.runDigests(deps, t.clock.now);
    expect(outcomes).toEqual([
      { policyId: a.policyId, status: 'sent', total: 4, reason: null },
      { policyId: b.policyId, status: 'no hits', total: 0, reason: null },
    ]);
    const mailed = await smtp.waitFor('sec1@example.test', { since, timeoutMs: 5000 });
    expect(mailed.subject).toBe('Blocked categories for policy Strict 1 (Customer 1): 4 hits');
    expect(mailed.text).toContain('2025-06-15 14:00 to 2025-06-15 15:00 (Europe/Berlin)');
    expect(mailed.text).toContain('Spyware and Malicious Sites: 4');
    expect(mailed.text).toContain('Phishing/Fraud: 1');
    expect(mailed.text).toContain(
      'Spyware and Malicious Sites | evil-malware.example | 3 | 10.1.0.66 (2), 10.1.0.7 (1)',
    );
    expect(mailed.text).toContain('Phishing/Fraud | bank-login.example | 1 | 10.1.0.8 (1)');
    expect(mailed.text).not.toContain('casino.example');
    expect(mailed.html).toContain(
      '<td style="padding:4px 8px;border:1px solid #ccc;text-align:left">evil-malware.example</td>',
    );
    expect(smtp.mails.some((m) => m.to.includes('quiet@example.test'))).toBe(false);

    // Stored outcome; a restart (another run at the same or a later instant within the hour) sends nothing.
    const after = (await call(t.app, a.customerToken, 'GET', path(a.policyId))).json();
    expect(after).toMatchObject({
      last_status: 'sent',
      last_sent_at: '2025-06-15T13:00:00.000Z',
      last_run_at: '2025-06-15T13:00:00.000Z',
    });
    expect(await notifications.runDigests(deps, t.clock.now + 30 * 60_000)).toEqual([]);
    // The next hour has no hit: no mail, status "no hits".
    const next = await notifications.runDigests(deps, t.clock.now + HOUR);
    expect(next[0]).toMatchObject({ policyId: a.policyId, status: 'no hits', total: 0 });
    expect(smtp.mails.filter((m) => m.to.includes('sec1@example.test'))).toHaveLength(1);
    expect((await call(t.app, a.customerToken, 'GET', path(a.policyId))).json()).toMatchObject({
      last_status: 'no hits',
      last_sent_at: '2025-06-15T13:00:00.000Z',
    });
    await w.close();
  });

  it("names the digest's categories in the language its admin recipient saved (French), English otherwise", async () => {
    const hit = (iso: string, categories: string) => ({
      ts: Date.parse(iso),
      customer_id: a.customerId,
      location_id: null,
      policy_id: a.policyId,
      client_ip: '10.1.0.66',
      qname: 'evil-malware.example',
      qtype: 'A',
      protocol: 'udp',
      action: 'blocked',
      reason: 'category',
      categories,
      rcode: 'NOERROR',
      answer_source: 'policy',
      latency_us: 50,
      user_id: null,
      group_id: null,
      device_id: null,
      user_name: '',
    });
    await insertQueryLogRows(t.handle, [hit('2025-06-15T12:10:00Z', '6'), hit('2025-06-15T12:20:00Z', '5,6')]);
    await call(t.app, t.rootToken, 'POST', '/restapi/mail', {
      server: '127.0.0.1',
      port: smtp.port,
      security: 'none',
      sender: 'Cordon',
      from_email: 'noreply@cordon.test',
      notification_period: 'daily',
      username: '',
    });
    // The customer admin (cust1@example.test) chose French in the profile.
    expect((await call(t.app, a.customerToken, 'PUT', '/restapi/auth/profile', { lang: 'fr' })).statusCode).toBe(200);
    const saved = await call(t.app, a.customerToken, 'POST', path(a.policyId), {
      categories: [5, 6],
      interval: 'hourly',
      period: 'hour',
      emails: ['cust1@example.test'],
    });
    expect(saved.statusCode, saved.body).toBe(200);
    const deps: CoreDeps = { handle: t.handle, changes: t.changes, now: () => t.clock.now, secrets: t.secrets };
    const since = smtp.mails.length;
    const outcomes = await notifications.runDigests(deps, Date.parse('2025-06-15T13:00:00Z'));
    expect(outcomes[0]).toMatchObject({ policyId: a.policyId, status: 'sent', total: 2 });
    const french = await smtp.waitFor('cust1@example.test', { since, timeoutMs: 5000 });
    expect(french.text).toContain('Logiciels espions et sites malveillants: 2');
    expect(french.text).toContain('Hameçonnage et fraude | evil-malware.example | 1 | 10.1.0.66 (1)');
    expect(french.html).toContain('Logiciels espions et sites malveillants</td>');
    expect(french.text).not.toContain('Spyware');
    // Another address (no admin): English, as before.
    await call(t.app, a.customerToken, 'POST', path(a.policyId), {
      categories: [5, 6],
      interval: 'hourly',
      period: 'day',
      emails: ['ops@example.test'],
    });
    const again = smtp.mails.length;
    await notifications.runDigests(deps, Date.parse('2025-06-15T14:00:00Z'));
    const english = await smtp.waitFor('ops@example.test', { since: again, timeoutMs: 5000 });
    expect(english.text).toContain('Spyware and Malicious Sites: 2');
  });

  it('retries a digest whose send failed at the next tick, its window still starting where the failed one did', async () => {
    const row = (iso: string, qname: string) => ({
      ts: Date.parse(iso),
      customer_id: a.customerId,
      location_id: null,
      policy_id: a.policyId,
      client_ip: '10.1.0.66',
      qname,
      qtype: 'A',
      protocol: 'udp',
      action: 'blocked',
      reason: 'category',
      categories: '6',
      rcode: 'NOERROR',
      answer_source: 'policy',
      latency_us: 50,
    });
    // A port nothing listens on: the mail server is down.
    const closed = await new Promise<number>((resolve) => {
      const srv = net.createServer().listen(0, '127.0.0.1', () => {
        const port = (srv.address() as net.AddressInfo).port;
        srv.close(() => resolve(port));
      });
    });
    const mailTo = async (port: number) => {
      const res = await call(t.app, t.rootToken, 'POST', '/restapi/mail', {
        server: '127.0.0.1',
        port,
        security: 'none',
        sender: 'Cordon',
        from_email: 'noreply@cordon.test',
        notification_period: 'daily',
        username: '',
      });
      expect(res.statusCode, res.body).toBe(200);
    };
    await mailTo(closed);
    const saved = await call(t.app, a.customerToken, 'POST', path(a.policyId), {
      categories: [6],
      interval: 'hourly',
      period: 'hour',
      emails: ['retry@example.test'],
    });
    expect(saved.statusCode, saved.body).toBe(200);
    const deps: CoreDeps = { handle: t.handle, changes: t.changes, now: () => t.clock.now, secrets: t.secrets };
    // Saved at 12:00 (the test clock): the hour 12:00–13:00 is the first window.
    await insertQueryLogRows(t.handle, [
      row('2025-06-15T12:10:00Z', 'evil-malware.example'),
      row('2025-06-15T12:50:00Z', 'evil-malware.example'),
    ]);
    // 13:00: due, two hits, the send is refused: recorded, and due again (last_run_at kept).
    const failed = await notifications.runDigests(deps, Date.parse('2025-06-15T13:00:00Z'));
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ policyId: a.policyId, status: 'not sent', total: 2 });
    expect(failed[0]?.reason).toBeTruthy();
    expect((await call(t.app, a.customerToken, 'GET', path(a.policyId))).json()).toMatchObject({
      last_status: 'not sent',
      last_run_at: '2025-06-15T12:00:00.000Z',
      last_sent_at: null,
    });
    // A hit after the failed window, then the mail server is back: the next tick (13:05) sends one
    // digest counting 12:00–13:05, the failed window's hits included.
    await insertQueryLogRows(t.handle, [row('2025-06-15T13:02:00Z', 'bank-login.example')]);
    await mailTo(smtp.port);
    const since = smtp.mails.length;
    const retried = await notifications.runDigests(deps, Date.parse('2025-06-15T13:05:00Z'));
    expect(retried).toEqual([{ policyId: a.policyId, status: 'sent', total: 3, reason: null }]);
    const mailed = await smtp.waitFor('retry@example.test', { since, timeoutMs: 5000 });
    expect(mailed.subject).toBe('Blocked categories for policy Strict 1 (Customer 1): 3 hits');
    expect(mailed.text).toContain('2025-06-15 14:00 to 2025-06-15 15:05 (Europe/Berlin)');
    expect(mailed.text).toContain('evil-malware.example | 2');
    expect((await call(t.app, a.customerToken, 'GET', path(a.policyId))).json()).toMatchObject({
      last_status: 'sent',
      last_run_at: '2025-06-15T13:05:00.000Z',
    });
    // The next digest is due an interval later and counts 13:05–14:05: the 13:02 hit is not counted twice.
    expect(await notifications.runDigests(deps, Date.parse('2025-06-15T14:00:00Z'))).toEqual([]);
    expect(await notifications.runDigests(deps, Date.parse('2025-06-15T14:05:00Z'))).toEqual([
      { policyId: a.policyId, status: 'no hits', total: 0, reason: null },
    ]);
  });
});
