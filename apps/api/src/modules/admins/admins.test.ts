import { testDialects } from '@cordon/db/testing';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type SmtpCatcher, startSmtpCatcher } from '../../../../../test/support/smtp-catcher.ts';
import { type AccountsTenant, createAccountsTenant, TENANT_PASSWORD } from '../../../test/accounts-fixture.ts';
import { authorize, call, createTestApp, login, type TestApp } from '../../../test/helpers.ts';

/** The token in an invitation or reset mail's link. */
function linkToken(text: string): string {
  const m = /token=([A-Za-z0-9_-]{43})/.exec(text);
  if (!m?.[1]) throw new Error(`no link in: ${text}`);
  return m[1];
}

describe.each(testDialects())('administrators on %s', (dialect) => {
  let t: TestApp;
  let smtp: SmtpCatcher;
  let a: AccountsTenant;
  let b: AccountsTenant;
  beforeAll(async () => {
    smtp = await startSmtpCatcher();
  });
  afterAll(async () => {
    await smtp.close();
  });
  beforeEach(async () => {
    t = await createTestApp(dialect);
    a = await createAccountsTenant(t, 1);
    b = await createAccountsTenant(t, 2);
    const mail = await call(t.app, t.rootToken, 'POST', '/restapi/mail', {
      server: '127.0.0.1',
      port: smtp.port,
      from_email: 'noreply@cordon.test',
      notification_period: 'daily',
      console_url: 'http://console.test',
    });
    expect(mail.statusCode).toBe(200);
  });
  afterEach(async () => {
    await t.close();
  });

  /** Invites `email` as `token`'s admin with `body`, completes the registration from the mail, and logs in. */
  async function inviteAndRegister(token: string, body: Record<string, unknown>) {
    const since = smtp.mails.length;
    const res = await call(t.app, token, 'POST', '/restapi/admin/', body);
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ pending: true, invitation_sent: true, '2fa_enabled': false, is_default: false });
    const mail = await smtp.waitFor(String(body.email), { since });
    expect(mail.text).toContain('http://console.test/register?token=');
    const reg = await call(t.app, undefined, 'POST', '/restapi/auth/adminregister/', {
      token: linkToken(mail.text),
      password: 'N3w-admin-pass',
      password_confirmation: 'N3w-admin-pass',
    });
    expect(reg.statusCode, reg.body).toBe(200);
    return { admin: res.json(), token: await login(t.app, String(body.email), 'N3w-admin-pass') };
  }

  it('lists each level: system and sales for a system admin, an MSP’s, a customer’s; paging, sort and search', async () => {
    const sys = (await call(t.app, t.rootToken, 'GET', '/restapi/admin')).json();
    expect(sys.data.map((x: { role: number }) => x.role)).toEqual([1]);
    const msp = (await call(t.app, t.rootToken, 'GET', `/restapi/admin?msp_id=${a.mspId}`)).json();
    expect(msp).toMatchObject({ total: 1, data: [{ email: a.mspEmail, role: 3, is_default: true, msp_id: a.mspId }] });
    const cust = (await call(t.app, a.mspToken, 'GET', `/restapi/admin?user_id=${a.customerId}`)).json();
    expect(cust).toMatchObject({ total: 1, data: [{ email: a.customerEmail, role: 4, user_id: a.customerId }] });
    expect((await call(t.app, a.mspToken, 'GET', '/restapi/admin')).json().data[0].email).toBe(a.mspEmail);
    expect((await call(t.app, a.customerToken, 'GET', '/restapi/admin')).json().data[0].email).toBe(a.customerEmail);
    // A customer admin cannot list its MSP's admins, an MSP admin not another MSP's.
    expect((await call(t.app, a.customerToken, 'GET', `/restapi/admin?msp_id=${a.mspId}`)).statusCode).toBe(404);
    expect((await call(t.app, a.mspToken, 'GET', `/restapi/admin?msp_id=${b.mspId}`)).statusCode).toBe(404);

    for (const n of [1, 2, 3]) {
      await call(t.app, a.mspToken, 'POST', '/restapi/admin/', {
        email: `ops${n}@msp1.test`,
        full_name: `Ops ${4 - n}`,
      });
    }
    const page = (
      await call(t.app, a.mspToken, 'GET', '/restapi/admin?limit=2&offset=0&sortkey=name&sortdir=asc')
    ).json();
    expect(page.total).toBe(4);
    expect(page.data.map((x: { full_name: string }) => x.full_name)).toEqual([a.mspEmail, 'Ops 1']);
    const sorted = (await call(t.app, a.mspToken, 'GET', '/restapi/admin?sortkey=email&sortdir=desc&limit=10')).json();
    expect(sorted.data.map((x: { email: string }) => x.email)).toEqual([
      'ops3@msp1.test',
      'ops2@msp1.test',
      'ops1@msp1.test',
      a.mspEmail,
    ]);
    const found = (await call(t.app, a.mspToken, 'GET', '/restapi/admin?filter=OPS 3')).json();
    expect(found).toMatchObject({ total: 1, data: [{ full_name: 'Ops 3' }] });
    expect((await call(t.app, a.mspToken, 'GET', '/restapi/admin?sortkey=password_hash')).statusCode).toBe(400);
  });

  it('invites an admin at every level; the invitation is single use; a pending admin cannot log in', async () => {
    const sysAdmin = await inviteAndRegister(t.rootToken, { email: 'second@cordon.test', full_name: 'Second Root' });
    expect(sysAdmin.admin).toMatchObject({ role: 1, msp_id: null, user_id: null });
    const mspAdmin = await inviteAndRegister(a.mspToken, { email: 'ops@msp1.test', full_name: 'Ops' });
    expect(mspAdmin.admin).toMatchObject({ role: 3, msp_id: a.mspId, user_id: null });
    const custAdmin = await inviteAndRegister(a.customerToken, { email: 'it@cust1.test', full_name: 'IT' });
    expect(custAdmin.admin).toMatchObject({ role: 4, msp_id: a.mspId, user_id: a.customerId });
    const custByMsp = await inviteAndRegister(a.mspToken, {
      email: 'it2@cust1.test',
      full_name: 'IT 2',
      user_id: a.customerId,
    });
    expect(custByMsp.admin).toMatchObject({ role: 4, user_id: a.customerId });
    const sales = await inviteAndRegister(t.rootToken, { email: 'sales@cordon.test', full_name: 'Sales', role: 2 });
    expect(sales.admin.role).toBe(2);
    const listed = (await call(t.app, t.rootToken, 'GET', `/restapi/admin/${custAdmin.admin.id}`)).json();
    expect(listed.pending).toBe(false);

    // Pending: no password works; the link works once; a wrong or reused token changes nothing.
    const since = smtp.mails.length;
    await call(t.app, a.mspToken, 'POST', '/restapi/admin/', { email: 'late@msp1.test', full_name: 'Late' });
    const mail = await smtp.waitFor('late@msp1.test', { since });
    const token = linkToken(mail.text);
    for (const password of ['', '!invited', 'anything']) {
      expect((await authorize(t.app, 'late@msp1.test', password)).statusCode).toBe(401);
    }
    const mismatch = await call(t.app, undefined, 'POST', '/restapi/auth/adminregister/', {
      token,
      password: 'N3w-admin-pass',
      password_confirmation: 'N3w-admin-other',
    });
    expect(mismatch.statusCode).toBe(400);
    expect(mismatch.json().fields.password_confirmation).toBe('Passwords must match.');
    const ok = { token, password: 'L4te-pass!', password_confirmation: 'L4te-pass!' };
    expect((await call(t.app, undefined, 'POST', '/restapi/auth/adminregister/', ok)).statusCode).toBe(200);
    const again = await call(t.app, undefined, 'POST', '/restapi/auth/adminregister/', ok);
    expect(again.statusCode).toBe(400);
    expect(again.json().error).toBe('This link is not valid or has expired.');
    const stored = await t.handle.db.selectFrom('account_tokens').select('token_hash').execute();
    expect(JSON.stringify(stored)).not.toContain(token);
  });

  it('expires an invitation after 72 hours and re-sends a new one', async () => {
    const since = smtp.mails.length;
    const created = (
      await call(t.app, a.mspToken, 'POST', '/restapi/admin/', { email: 'slow@msp1.test', full_name: 'Slow' })
    ).json();
    const first = linkToken((await smtp.waitFor('slow@msp1.test', { since })).text);
    t.clock.now += 72 * 3600_000 + 1;
    const mspToken = await login(t.app, a.mspEmail, TENANT_PASSWORD);
    const body = { token: first, password: 'Sl0w-pass!', password_confirmation: 'Sl0w-pass!' };
    expect((await call(t.app, undefined, 'POST', '/restapi/auth/adminregister/', body)).statusCode).toBe(400);
    const since2 = smtp.mails.length;
    expect((await call(t.app, mspToken, 'POST', `/restapi/admin/${created.id}/invite`)).json()).toEqual({
      invitation_sent: true,
    });
    const second = linkToken((await smtp.waitFor('slow@msp1.test', { since: since2 })).text);
    expect(
      (await call(t.app, undefined, 'POST', '/restapi/auth/adminregister/', { ...body, token: second })).statusCode,
    ).toBe(200);
    expect((await call(t.app, mspToken, 'POST', `/restapi/admin/${created.id}/invite`)).statusCode).toBe(409);
  });

  it('refuses role escalation: an MSP admin cannot create a system admin, move an admin or raise its own role', async () => {
    const before = await t.handle.db.selectFrom('admins').selectAll().orderBy('id').execute();
    const cases: Array<[string, string, string, unknown, number]> = [
      [
        'MSP creates a system admin',
        a.mspToken,
        'POST /restapi/admin/',
        { email: 'x@x.test', full_name: 'X', role: 1 },
        403,
      ],
      [
        'MSP creates a sales admin',
        a.mspToken,
        'POST /restapi/admin/',
        { email: 'x@x.test', full_name: 'X', role: 2 },
        403,
      ],
      [
        'MSP creates an admin in another MSP',
        a.mspToken,
        'POST /restapi/admin/',
        { email: 'x@x.test', full_name: 'X', msp_id: b.mspId },
        404,
      ],
      [
        'customer creates an MSP admin',
        a.customerToken,
        'POST /restapi/admin/',
        { email: 'x@x.test', full_name: 'X', role: 3 },
        403,
      ],
      [
        'customer creates into its MSP',
        a.customerToken,
        'POST /restapi/admin/',
        { email: 'x@x.test', full_name: 'X', msp_id: a.mspId },
        403,
      ],
      ['MSP raises its own role', a.mspToken, `PUT /restapi/admin/${a.mspAdminId}`, { role: 1 }, 403],
      [
        'MSP moves its admin to another MSP',
        a.mspToken,
        `PUT /restapi/admin/${a.mspAdminId}`,
        { msp_id: b.mspId },
        403,
      ],
      [
        'MSP moves a customer admin to another customer',
        a.mspToken,
        `PUT /restapi/admin/${a.customerAdminId}`,
        { user_id: b.customerId },
        403,
      ],
      [
        'MSP makes a customer admin an MSP admin',
        a.mspToken,
        `PUT /restapi/admin/${a.customerAdminId}`,
        { role: 3 },
        403,
      ],
      ['customer changes its role', a.customerToken, `PUT /restapi/admin/${a.customerAdminId}`, { role: 3 }, 403],
      [
        'customer raises itself to system',
        a.customerToken,
        `PUT /restapi/admin/${a.customerAdminId}`,
        { role: 1 },
        403,
      ],
      ['system demotes the primary MSP admin', t.rootToken, `PUT /restapi/admin/${a.mspAdminId}`, { role: 4 }, 403],
      ['system unsets is_default', t.rootToken, `PUT /restapi/admin/${a.mspAdminId}`, { is_default: false }, 403],
      ['system deletes the primary MSP admin', t.rootToken, `DELETE /restapi/admin/${a.mspAdminId}`, undefined, 409],
      ['system deletes itself', t.rootToken, 'DELETE /restapi/admin/1', undefined, 409],
      ['unknown field', a.mspToken, `PUT /restapi/admin/${a.mspAdminId}`, { password_hash: 'x' }, 400],
    ];
    for (const [name, token, route, body, status] of cases) {
      const [method, url] = route.split(' ') as ['POST' | 'PUT' | 'DELETE', string];
      const res = await call(t.app, token, method, url, body);
      expect(res.statusCode, `${name}: ${res.body}`).toBe(status);
    }
    expect(await t.handle.db.selectFrom('admins').selectAll().orderBy('id').execute()).toEqual(before);
  });

  it('updates and deletes within the rules; a deleted or demoted admin’s token is refused at once; multi-delete through /batch', async () => {
    const ops = await inviteAndRegister(a.mspToken, { email: 'ops@msp1.test', full_name: 'Ops' });
    const upd = await call(t.app, a.mspToken, 'PUT', `/restapi/admin/${ops.admin.id}`, {
      full_name: 'Ops Lead',
      email: 'Lead@MSP1.test',
    });
    expect(upd.statusCode).toBe(200);
    expect(upd.json()).toMatchObject({ full_name: 'Ops Lead', email: 'lead@msp1.test', role: 3 });
    const taken = await call(t.app, a.mspToken, 'PUT', `/restapi/admin/${ops.admin.id}`, { email: b.mspEmail });
    expect(taken.statusCode).toBe(409);
    expect(taken.json().error).toBe('This email address cannot be used.');
    const audit = await t.handle.db
      .selectFrom('audit_log')
      .selectAll()
      .where('action', '=', 'admin.update')
      .executeTakeFirstOrThrow();
    expect(audit.msp_id).toBe(a.mspId);
    expect(audit.after_json).toContain('Ops Lead');
    expect(audit.after_json).not.toMatch(/argon2|password/);

    // A system admin demotes a second system admin to sales: its token is refused at once.
    const root2 = await inviteAndRegister(t.rootToken, { email: 'root2@cordon.test', full_name: 'Root 2' });
    expect((await call(t.app, root2.token, 'GET', '/restapi/admin')).statusCode).toBe(200);
    const demoted = await call(t.app, t.rootToken, 'PUT', `/restapi/admin/${root2.admin.id}`, { role: 2 });
    expect(demoted.json().role).toBe(2);
    expect((await call(t.app, root2.token, 'GET', '/restapi/auth/profile')).statusCode).toBe(401);
    expect((await call(t.app, t.rootToken, 'PUT', `/restapi/admin/${root2.admin.id}`, { role: 3 })).statusCode).toBe(
      400,
    );

    // Deleted: refused at once. Multi-delete through /batch, each authorised as if alone.
    const c1 = await inviteAndRegister(a.customerToken, { email: 'c1@cust1.test', full_name: 'C1' });
    const c2 = await inviteAndRegister(a.customerToken, { email: 'c2@cust1.test', full_name: 'C2' });
    const batch = await call(t.app, a.customerToken, 'POST', '/restapi/batch', {
      one: { method: 'DELETE', path: `/admin/${c1.admin.id}` },
      two: { method: 'DELETE', path: `/admin/${c2.admin.id}` },
      primary: { method: 'DELETE', path: `/admin/${a.customerAdminId}` },
      foreign: { method: 'DELETE', path: `/admin/${b.customerAdminId}` },
    });
    expect(batch.statusCode).toBe(200);
    const out = batch.json();
    expect([out.one.status, out.two.status, out.primary.status, out.foreign.status]).toEqual([200, 200, 409, 404]);
    expect((await call(t.app, c1.token, 'GET', '/restapi/auth/profile')).statusCode).toBe(401);
    expect((await call(t.app, a.customerToken, 'GET', '/restapi/auth/profile')).statusCode).toBe(200);
    expect(await login(t.app, b.customerEmail, TENANT_PASSWORD)).toBeTruthy();
  });

  it('answers invitation_sent false when no mail settings apply, and the invitation can be sent later', async () => {
    await t.handle.db.deleteFrom('mail_settings').execute();
    const res = await call(t.app, t.rootToken, 'POST', '/restapi/admin/', {
      email: 'nomail@cordon.test',
      full_name: 'No Mail',
    });
    expect(res.statusCode).toBe(201);
    expect(res.json().invitation_sent).toBe(false);
    const again = await call(t.app, t.rootToken, 'POST', `/restapi/admin/${res.json().id}/invite`);
    expect(again.statusCode).toBe(422);
  });
});
