import { type CoreDeps, reports, worker } from '@cordon/core';
import { testDialects } from '@cordon/db/testing';
import { PDFParse } from 'pdf-parse';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { solidPng } from '../../../../../e2e/support/png.ts';
import { type SmtpCatcher, startSmtpCatcher } from '../../../../../test/support/smtp-catcher.ts';
import { call, createTenant, createTestApp, type TenantFixture, type TestApp } from '../../../test/helpers.ts';
import { insertQueryLogRows } from '../../../test/query-log.ts';

/** The text of a PDF, pages joined. */
async function pdfText(bytes: Uint8Array): Promise<string> {
  const parser = new PDFParse({ data: new Uint8Array(bytes) });
  try {
    return (await parser.getText()).text;
  } finally {
    await parser.destroy();
  }
}

describe.each(testDialects())('reports on %s', (dialect) => {
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
  const row = (customerId: number, iso: string, qname: string, action: string, categories = '', ip = '10.1.0.1') => ({
    ts: Date.parse(iso),
    customer_id: customerId,
    location_id: null,
    policy_id: null,
    client_ip: ip,
    qname,
    qtype: 'A',
    protocol: 'udp',
    action,
    reason: action === 'blocked' ? 'category' : 'default',
    categories,
    rcode: 'NOERROR',
    answer_source: 'upstream',
    latency_us: 100,
  });
  beforeEach(async () => {
    // Clock: Sunday 2025-06-15T12:00Z; customers in Europe/Berlin.
    t = await createTestApp(dialect);
    a = await createTenant(t, 1);
    b = await createTenant(t, 2);
    await insertQueryLogRows(t.handle, [
      row(a.customerId, '2025-06-10T08:00:00Z', 'news.example', 'allowed', '13'),
      row(a.customerId, '2025-06-10T09:00:00Z', 'news.example', 'allowed', '13'),
      row(a.customerId, '2025-06-11T09:00:00Z', 'evil-malware.example', 'blocked', '6', '10.1.0.66'),
      row(a.customerId, '2025-06-11T10:00:00Z', 'evil-malware.example', 'blocked', '6', '10.1.0.66'),
      row(a.customerId, '2025-06-12T10:00:00Z', 'bank-login.example', 'blocked', '5', '10.1.0.7'),
      row(a.customerId, '2025-06-14T10:00:00Z', 'news.example', 'allowed', '13'),
      row(b.customerId, '2025-06-11T10:00:00Z', 'other.example', 'blocked', '6'),
    ]);
  });
  afterEach(async () => {
    await t.close();
  });
  const get = async (path: string, token = a.customerToken) => {
    const res = await call(t.app, token, 'GET', `/restapi/users/${a.customerId}${path}`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };
  const week = '?start=2025-06-09&end=2025-06-15';

  it('answers every report type from the roll-ups', async () => {
    const byDomain = await get(`/reports/r_behaviour_domain${week}`);
    expect(byDomain).toMatchObject({
      code: 'r_behaviour_domain',
      type: 'behaviour',
      total: 6,
      timezone: 'Europe/Berlin',
    });
    expect(byDomain.rows.map((r: { key: string; requests: number }) => [r.key, r.requests])).toEqual([
      ['news.example', 3],
      ['evil-malware.example', 2],
      ['bank-login.example', 1],
    ]);
    const blockedCat = await get(`/reports/r_blocked_category${week}`);
    expect(blockedCat.rows.map((r: { key: string; blocked: number }) => [r.key, r.blocked])).toEqual([
      ['6', 2],
      ['5', 1],
    ]);
    const malware = await get(`/reports/r_security_malware_sourceip${week}`);
    expect(malware.rows).toEqual([{ key: '10.1.0.66', name: '10.1.0.66', requests: 2, allowed: 0, blocked: 2 }]);
    const phishing = await get(`/reports/r_security_phishing_domain${week}`);
    expect(phishing.rows.map((r: { key: string }) => r.key)).toEqual(['bank-login.example']);
    const days = await get(`/reports/r_trend_day${week}`);
    expect(days.rows).toHaveLength(7);
    expect(days.rows[1]).toMatchObject({ key: '2025-06-10', requests: 2, allowed: 2, blocked: 0 });
    expect(days.rows[2]).toMatchObject({ key: '2025-06-11', requests: 2, blocked: 2 });
    const hours = await get('/reports/r_trend_hour?start=2025-06-11&end=2025-06-11');
    expect(hours.rows).toHaveLength(24);
    const bad = await call(t.app, a.customerToken, 'GET', `/restapi/users/${a.customerId}/reports/r_nope`);
    expect(bad.statusCode).toBe(400);
    const backwards = await call(
      t.app,
      a.customerToken,
      'GET',
      `/restapi/users/${a.customerId}/reports/r_trend_day?start=2025-06-15&end=2025-06-01`,
    );
    expect(backwards.statusCode).toBe(400);
  });

  it('downloads a one-off PDF with the period, chart labels and table figures', async () => {
    const res = await call(
      t.app,
      a.customerToken,
      'GET',
      `/restapi/users/${a.customerId}/reports/r_behaviour_domain/pdf${week}`,
    );
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/pdf');
    expect(res.headers['content-disposition']).toBe(
      'attachment; filename="r_behaviour_domain_2025-06-09_2025-06-15.pdf"',
    );
    const text = await pdfText(res.rawPayload);
    expect(text).toContain('Requests by domain');
    expect(text).toContain('Period: 2025-06-09 to 2025-06-15 (Europe/Berlin)');
    expect(text).toContain('Total requests: 6');
    expect(text).toMatch(/news\.example\s+3\s+3\s+0/);
    expect(text).toMatch(/evil-malware\.example\s+2\s+0\s+2/);
  });

  it("names a one-off PDF's categories in the requester's language: Accept-Language, else the saved profile, else English", async () => {
    const url = `/restapi/users/${a.customerId}/reports/r_blocked_category/pdf${week}`;
    const pdfIn = async (headers: Record<string, string>) => {
      const res = await t.app.inject({
        method: 'GET',
        url,
        headers: { authorization: `Bearer ${a.customerToken}`, ...headers },
      });
      expect(res.statusCode, res.body).toBe(200);
      return pdfText(res.rawPayload);
    };
    // English: no header, no saved language (the figures as before).
    const english = await pdfIn({});
    expect(english).toMatch(/Spyware and Malicious Sites\s+2\s+0\s+2/);
    expect(english).toMatch(/Phishing\/Fraud\s+1\s+0\s+1/);
    expect(english).not.toContain('Hameçonnage');
    // The console sends its interface language.
    const french = await pdfIn({ 'accept-language': 'fr' });
    expect(french).toMatch(/Logiciels espions et sites malveillants\s+2\s+0\s+2/);
    expect(french).toMatch(/Hameçonnage et fraude\s+1\s+0\s+1/);
    expect(french).not.toContain('Spyware');
    // A client without the header (automation): the admin's saved console language.
    const saved = await call(t.app, a.customerToken, 'PUT', '/restapi/auth/profile', { lang: 'fr' });
    expect(saved.statusCode, saved.body).toBe(200);
    expect(await pdfIn({})).toContain('Hameçonnage et fraude');
    // An explicit English request wins over the saved French.
    expect(await pdfIn({ 'accept-language': 'en-GB,fr;q=0.5' })).toContain('Phishing/Fraud');
  });

  it("brands the PDF with the MSP's interface title and logo", async () => {
    const at = new Date(t.clock.now).toISOString();
    await t.handle.db
      .insertInto('ui_interfaces')
      .values({
        msp_id: a.mspId,
        title: 'Northwind Filtering',
        nameservers: '[]',
        logo: solidPng(64, 32),
        logo_type: 'image/png',
        logo_sha256: 'x',
        created_at: at,
        updated_at: at,
      })
      .execute();
    const res = await call(
      t.app,
      a.customerToken,
      'GET',
      `/restapi/users/${a.customerId}/reports/r_trend_day/pdf${week}`,
    );
    expect(res.statusCode).toBe(200);
    const bytes = res.rawPayload;
    expect(await pdfText(bytes)).toContain('Northwind Filtering');
    // The logo is embedded as an image XObject.
    expect(bytes.toString('latin1')).toMatch(/\/Subtype \/Image/);
    const other = await call(
      t.app,
      b.customerToken,
      'GET',
      `/restapi/users/${b.customerId}/reports/r_trend_day/pdf${week}`,
    );
    expect(await pdfText(other.rawPayload)).not.toContain('Northwind Filtering');
  });

  it('keeps scheduled reports: create, list, update, validation, delete', async () => {
    const base = `/restapi/users/${a.customerId}/scheduledreports`;
    const created = await call(t.app, a.customerToken, 'POST', base, {
      name: 'Weekly blocked',
      type: 'r_blocked_category',
      frequency: 'weekly',
      recipients: ['boss@example.test'],
    });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json()).toMatchObject({
      name: 'Weekly blocked',
      frequency: 'weekly',
      status: null,
      sent_date: null,
    });
    const id = created.json().id;
    expect((await get('/scheduledreports')).total).toBe(1);
    const updated = await call(t.app, a.customerToken, 'POST', `${base}/${id}`, { frequency: 'monthly' });
    expect(updated.json()).toMatchObject({ frequency: 'monthly' });
    for (const bad of [
      { name: 'x', type: 'r_none', frequency: 'daily', recipients: ['a@example.test'] },
      { name: 'x', type: 'r_trend_day', frequency: 'hourly', recipients: ['a@example.test'] },
      { name: 'x', type: 'r_trend_day', frequency: 'daily', recipients: ['not-an-email'] },
      { name: 'x', type: 'r_trend_day', frequency: 'daily', recipients: [] },
    ]) {
      expect((await call(t.app, a.customerToken, 'POST', base, bad)).statusCode).toBe(400);
    }
    const foreign = await call(t.app, b.customerToken, 'GET', `/restapi/users/${b.customerId}/scheduledreports/${id}`);
    expect(foreign.statusCode).toBe(404);
    expect((await call(t.app, a.customerToken, 'DELETE', `${base}/${id}`)).json()).toEqual({ deleted: true });
    expect((await get('/scheduledreports')).total).toBe(0);
  });

  it('runs a report by mail with its PDF, and says why when it cannot', async () => {
    const base = `/restapi/users/${a.customerId}/scheduledreports`;
    const created = await call(t.app, a.customerToken, 'POST', base, {
      name: 'Daily trend',
      type: 'r_trend_day',
      frequency: 'weekly',
      recipients: ['boss@example.test'],
    });
    const id = created.json().id;
    // No mail settings yet: not sent, with the reason.
    const failed = await call(t.app, a.customerToken, 'POST', `${base}/${id}/run`);
    expect(failed.statusCode, failed.body).toBe(200);
    expect(failed.json()).toMatchObject({ status: 'report not sent', sent_date: null });
    expect(failed.json().reason).toMatch(/mail/i);

    const settings = await call(t.app, t.rootToken, 'POST', '/restapi/mail', {
      server: '127.0.0.1',
      port: smtp.port,
      security: 'none',
      sender: 'Cordon',
      from_email: 'noreply@cordon.test',
      notification_period: 'daily',
      username: '',
    });
    expect(settings.statusCode, settings.body).toBe(200);
    const since = smtp.mails.length;
    const sent = await call(t.app, a.customerToken, 'POST', `${base}/${id}/run`);
    // The answer names the days the report covered: the last full week, not the week so far.
    expect(sent.json()).toMatchObject({
      status: 'sent',
      reason: null,
      period_start: '2025-06-02',
      period_end: '2025-06-08',
    });
    const mailed = await smtp.waitFor('boss@example.test', { since, timeoutMs: 5000 });
    expect(mailed.subject).toBe('Daily trend: Traffic trend per day, 2025-06-02 to 2025-06-08');
    expect(mailed.attachments).toHaveLength(1);
    expect(mailed.attachments[0]?.contentType).toBe('application/pdf');

    const archive = await get('/reports/archive');
    expect(archive.total).toBe(2);
    expect(archive.data[0]).toMatchObject({ status: 'sent', start: '2025-06-02', end: '2025-06-08' });
    expect(archive.data[1]).toMatchObject({ status: 'report not sent' });
    const pdf = await call(
      t.app,
      a.customerToken,
      'GET',
      `/restapi/users/${a.customerId}/reports/archive/${archive.data[0].id}/pdf`,
    );
    expect(pdf.headers['content-type']).toBe('application/pdf');
    expect(await pdfText(pdf.rawPayload)).toContain('Period: 2025-06-02 to 2025-06-08 (Europe/Berlin)');
    const other = await call(
      t.app,
      b.customerToken,
      'GET',
      `/restapi/users/${b.customerId}/reports/archive/${archive.data[0].id}/pdf`,
    );
    expect(other.statusCode).toBe(404);
  });

  it("mails a category report's PDF in the language its admin recipient saved; English for other addresses", async () => {
    await call(t.app, t.rootToken, 'POST', '/restapi/mail', {
      server: '127.0.0.1',
      port: smtp.port,
      security: 'none',
      sender: 'Cordon',
      from_email: 'noreply@cordon.test',
      notification_period: 'daily',
      username: '',
    });
    const saved = await call(t.app, a.customerToken, 'PUT', '/restapi/auth/profile', { lang: 'fr' });
    expect(saved.statusCode, saved.body).toBe(200);
    // Tenant b's admin also says French: an address of another tenant does not choose a's language.
    expect((await call(t.app, b.customerToken, 'PUT', '/restapi/auth/profile', { lang: 'fr' })).statusCode).toBe(200);
    // "Run now" covers the last full week: 2025-06-02..08.
    await insertQueryLogRows(t.handle, [
      row(a.customerId, '2025-06-03T09:00:00Z', 'evil-malware.example', 'blocked', '6'),
      row(a.customerId, '2025-06-03T10:00:00Z', 'evil-malware.example', 'blocked', '6'),
      row(a.customerId, '2025-06-04T10:00:00Z', 'bank-login.example', 'blocked', '5'),
    ]);
    const base = `/restapi/users/${a.customerId}/scheduledreports`;
    const schedule = async (name: string, recipients: string[]) => {
      const created = await call(t.app, a.customerToken, 'POST', base, {
        name,
        type: 'r_blocked_category',
        frequency: 'weekly',
        recipients,
      });
      expect(created.statusCode, created.body).toBe(201);
      return created.json().id as number;
    };
    const mailedPdf = async (id: number, to: string) => {
      const since = smtp.mails.length;
      const sent = await call(t.app, a.customerToken, 'POST', `${base}/${id}/run`);
      expect(sent.json()).toMatchObject({ status: 'sent' });
      const mailed = await smtp.waitFor(to, { since, timeoutMs: 5000 });
      return pdfText(mailed.attachments[0]!.content);
    };
    // The first recipient is no admin, the second is a's customer admin (saved French).
    const french = await mailedPdf(
      await schedule('Blocked FR', ['ops@example.test', 'cust1@example.test']),
      'ops@example.test',
    );
    expect(french).toMatch(/Logiciels espions et sites malveillants\s+2\s+0\s+2/);
    expect(french).toMatch(/Hameçonnage et fraude\s+1\s+0\s+1/);
    const english = await mailedPdf(
      await schedule('Blocked EN', ['ops@example.test', 'cust2@example.test']),
      'ops@example.test',
    );
    expect(english).toMatch(/Spyware and Malicious Sites\s+2\s+0\s+2/);
    expect(english).not.toContain('Hameçonnage');
  });

  it('the worker sends a weekly report on Monday in the customer time zone, once', async () => {
    await call(t.app, t.rootToken, 'POST', '/restapi/mail', {
      server: '127.0.0.1',
      port: smtp.port,
      security: 'none',
      sender: 'Cordon',
      from_email: 'noreply@cordon.test',
      notification_period: 'daily',
      username: '',
    });
    const created = await call(t.app, a.customerToken, 'POST', `/restapi/users/${a.customerId}/scheduledreports`, {
      name: 'Security',
      type: 'r_security_malware_domain',
      frequency: 'weekly',
      recipients: ['sec@example.test'],
    });
    expect(created.statusCode).toBe(201);
    const deps: CoreDeps = { handle: t.handle, changes: t.changes, now: () => t.clock.now, secrets: t.secrets };
    const w = worker.startWorker(deps, [reports.scheduledReportsJob()], { tickMs: 0 });
    const since = smtp.mails.length;
    // Sunday 23:50 in Berlin: not yet.
    t.clock.now = Date.parse('2025-06-15T21:50:00Z');
    await w.runDue();
    expect(smtp.mails.length).toBe(since);
    // Monday 00:05 in Berlin (22:05Z Sunday): the week 2025-06-09..15 goes out.
    t.clock.now = Date.parse('2025-06-15T22:05:00Z');
    await w.runDue();
    const mailed = await smtp.waitFor('sec@example.test', { since, timeoutMs: 5000 });
    expect(mailed.subject).toBe('Security: Malware by domain, 2025-06-09 to 2025-06-15');
    const text = await pdfText(mailed.attachments[0]!.content);
    expect(text).toMatch(/evil-malware\.example\s+2\s+0\s+2/);
    t.clock.now += 10 * 60_000;
    await w.runDue();
    expect(smtp.mails.filter((m) => m.to.includes('sec@example.test'))).toHaveLength(1);
    await w.close();
  });
});
