import { admins } from '@cordon/core';
import { testDialects } from '@cordon/db/testing';
import { ErrorTexts } from '@cordon/shared';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type SmtpCatcher, startSmtpCatcher } from '../../../../../test/support/smtp-catcher.ts';
import { type AccountsTenant, createAccountsTenant, TENANT_PASSWORD } from '../../../test/accounts-fixture.ts';
import {
  ADMIN,
  authorize,
  authorizeQuery,
  call,
  claimsOf,
  createTestApp,
  login,
  type TestApp,
} from '../../../test/helpers.ts';

function linkToken(text: string): string {
  const m = /token=([A-Za-z0-9_-]{43})/.exec(text);
  if (!m?.[1]) throw new Error(`no link in: ${text}`);
  return m[1];
}

describe.each(testDialects())('accounts: 2FA, passwords, sessions and audit on %s', (dialect) => {
  let t: TestApp;
  let smtp: SmtpCatcher;
  let a: AccountsTenant;
  beforeAll(async () => {
    smtp = await startSmtpCatcher();
  });
  afterAll(async () => {
    await smtp.close();
  });
  beforeEach(async () => {
    t = await createTestApp(dialect);
    a = await createAccountsTenant(t, 1);
  });
  afterEach(async () => {
    await t.close();
  });

  const withCode = (code?: string) => authorizeQuery(code === undefined ? {} : { code });
  const step = () => {
    t.clock.now += 30_000;
  };

  /** Enrols `token`'s admin in 2FA; returns its secret and recovery codes. */
  async function enrol(token: string) {
    const first = await call(t.app, token, 'POST', '/restapi/auth/two-factor-auth', {});
    expect(first.statusCode, first.body).toBe(200);
    const offer = first.json();
    expect(offer.created).toBe(false);
    expect(offer.otpauth_url).toMatch(/^otpauth:\/\/totp\/Cordon:.+secret=/);
    expect(offer.qr_code).toMatch(/^data:image\/png;base64,/);
    const wrong = await call(t.app, token, 'POST', '/restapi/auth/two-factor-auth', {
      code: '000000' === admins.totpCode(offer.secret, t.clock.now) ? '111111' : '000000',
    });
    expect(wrong.json().error).toBe('Invalid code');
    const done = await call(t.app, token, 'POST', '/restapi/auth/two-factor-auth', {
      code: admins.totpCode(offer.secret, t.clock.now),
    });
    expect(done.statusCode, done.body).toBe(200);
    expect(done.json().created).toBe(true);
    expect(done.json().backupCodes).toHaveLength(10);
    step();
    return { secret: offer.secret as string, codes: done.json().backupCodes as string[] };
  }

  it('logs in with TOTP through every 422 of the login flow, and with recovery codes only in order', async () => {
    const { secret, codes } = await enrol(a.mspToken);
    const stored = await t.handle.db.selectFrom('admin_recovery_codes').selectAll().execute();
    expect(stored).toHaveLength(10);
    // The TOTP secret is sealed at rest with the deployment's secret (docs/security.md), never in clear.
    const admin = await t.handle.db
      .selectFrom('admins')
      .select(['twofa_secret'])
      .where('id', '=', a.mspAdminId)
      .executeTakeFirstOrThrow();
    expect(admin.twofa_secret).toMatch(/^sealed:v1\./);
    expect(admin.twofa_secret).not.toContain(secret);
    expect(JSON.stringify(stored)).not.toContain(codes[0]?.replace('-', '') ?? 'x');

    const texts: Array<[string | undefined, number, string]> = [
      [undefined, 422, '2FA is enabled'],
      ['', 422, 'Code required'],
      ['123456' === admins.totpCode(secret, t.clock.now) ? '654321' : '123456', 422, 'Invalid code'],
      [codes[1], 422, 'Incorrect code entered'],
      ['not-a-code', 422, 'Incorrect code entered'],
    ];
    for (const [code, status, text] of texts) {
      const res = await authorize(t.app, a.mspEmail, TENANT_PASSWORD, withCode(code));
      expect(res.statusCode, String(code)).toBe(status);
      expect(res.json().error).toBe(text);
    }
    // Wrong credentials stay a 401 whatever the code.
    expect((await authorize(t.app, a.mspEmail, 'wrong-Pass1', withCode('123456'))).statusCode).toBe(401);

    const ok = await authorize(t.app, a.mspEmail, TENANT_PASSWORD, withCode(admins.totpCode(secret, t.clock.now)));
    expect(ok.statusCode, ok.body).toBe(200);
    expect(claimsOf(ok.json().access_token)['2fa_enabled']).toBe(true);
    // The same code is not accepted twice.
    const replay = await authorize(t.app, a.mspEmail, TENANT_PASSWORD, withCode(admins.totpCode(secret, t.clock.now)));
    expect(replay.json().error).toBe('Invalid code');

    // Recovery codes: the first, then an out-of-order one refused, then the second; each once.
    expect((await authorize(t.app, a.mspEmail, TENANT_PASSWORD, withCode(codes[0]))).statusCode).toBe(200);
    expect((await authorize(t.app, a.mspEmail, TENANT_PASSWORD, withCode(codes[0]))).json().error).toBe(
      'Incorrect code entered',
    );
    expect((await authorize(t.app, a.mspEmail, TENANT_PASSWORD, withCode(codes[2]))).json().error).toBe(
      'Incorrect code entered',
    );
    expect(
      (await authorize(t.app, a.mspEmail, TENANT_PASSWORD, withCode(` ${codes[1]?.toUpperCase()} `))).statusCode,
    ).toBe(200);
    const profile = (await call(t.app, ok.json().access_token, 'GET', '/restapi/auth/profile')).json();
    expect(profile).toMatchObject({ twoFactorAuthEnabled: true, recovery_codes_left: 8 });

    const events = await t.handle.db
      .selectFrom('audit_log')
      .select(['action', 'after_json'])
      .where('action', 'like', 'auth.%')
      .where('admin_id', '=', a.mspAdminId)
      .execute();
    const actions = events.map((e) => e.action);
    // The fixture's login, then TOTP and two recovery codes.
    expect(actions.filter((x) => x === 'auth.login')).toHaveLength(4);
    expect(actions.filter((x) => x === 'auth.recovery_code_used')).toHaveLength(2);
    expect(actions.filter((x) => x === 'auth.login_failed').length).toBeGreaterThanOrEqual(5);
    expect(JSON.stringify(events)).not.toContain(secret);
  });

  it('counts wrong second factors in the login throttle', async () => {
    const { secret } = await enrol(a.mspToken);
    const wrong = '000000' === admins.totpCode(secret, t.clock.now) ? '111111' : '000000';
    let last = 0;
    for (let i = 0; i < 7; i += 1)
      last = (await authorize(t.app, a.mspEmail, TENANT_PASSWORD, withCode(wrong))).statusCode;
    expect(last).toBe(429);
  });

  it('turns 2FA off with the password, regenerates codes, and lets a managing admin reset it', async () => {
    const { codes } = await enrol(a.customerToken);
    const regen = await call(t.app, a.customerToken, 'POST', '/restapi/auth/two-factor-auth/recovery-codes');
    expect(regen.json().backupCodes).toHaveLength(10);
    expect(regen.json().backupCodes[0]).not.toBe(codes[0]);
    expect((await authorize(t.app, a.customerEmail, TENANT_PASSWORD, withCode(codes[0]))).statusCode).toBe(422);
    expect(
      (await call(t.app, a.customerToken, 'DELETE', '/restapi/auth/two-factor-auth', { password: 'nope' })).statusCode,
    ).toBe(400);
    const off = await call(t.app, a.customerToken, 'DELETE', '/restapi/auth/two-factor-auth', {
      password: TENANT_PASSWORD,
    });
    expect(off.json()).toEqual({ disabled: true });
    expect(await t.handle.db.selectFrom('admin_recovery_codes').selectAll().execute()).toEqual([]);
    expect((await authorize(t.app, a.customerEmail, TENANT_PASSWORD)).statusCode).toBe(200);

    const custToken = await login(t.app, a.customerEmail, TENANT_PASSWORD);
    await enrol(custToken);
    // The customer admin cannot reset its own (profile instead) nor its MSP's; its MSP admin resets it.
    expect(
      (await call(t.app, custToken, 'DELETE', `/restapi/auth/${a.customerAdminId}/two-factor-auth/reset`)).statusCode,
    ).toBe(409);
    expect(
      (await call(t.app, custToken, 'DELETE', `/restapi/auth/${a.mspAdminId}/two-factor-auth/reset`)).statusCode,
    ).toBe(404);
    const reset = await call(t.app, a.mspToken, 'DELETE', `/restapi/auth/${a.customerAdminId}/two-factor-auth/reset`);
    expect(reset.json()).toEqual({ reset: true });
    expect((await call(t.app, custToken, 'GET', '/restapi/auth/profile')).statusCode).toBe(401);
    expect((await authorize(t.app, a.customerEmail, TENANT_PASSWORD)).statusCode).toBe(200);
    const listed = (await call(t.app, a.mspToken, 'GET', `/restapi/admin/${a.customerAdminId}`)).json();
    expect(listed['2fa_enabled']).toBe(false);
  });

  it('sends an MSP’s admins without 2FA to enrol with a token good only for enrolment', async () => {
    expect(
      (await call(t.app, a.mspToken, 'GET', `/restapi/auth/msp/${a.mspId}/two-factor-auth/enforce`)).json(),
    ).toEqual({
      enforce_twofa: false,
    });
    const set = await call(t.app, a.mspToken, 'PUT', `/restapi/auth/msp/${a.mspId}/two-factor-auth/enforce`, {
      enforce: true,
    });
    expect(set.json()).toEqual({ enforce_twofa: true });
    expect(
      (
        await call(t.app, a.customerToken, 'PUT', `/restapi/auth/msp/${a.mspId}/two-factor-auth/enforce`, {
          enforce: false,
        })
      ).statusCode,
    ).toBe(403);

    const res = await authorize(t.app, a.customerEmail, TENANT_PASSWORD);
    expect(res.statusCode).toBe(422);
    expect(res.json().error).toBe('2FA is enforced');
    const enrolToken = res.json().token as string;
    expect(enrolToken).toBeTruthy();
    // Good for nothing but enrolment.
    for (const [method, url] of [
      ['GET', '/restapi/auth/profile'],
      ['GET', '/restapi/admin'],
      ['POST', '/restapi/auth/logout'],
    ] as const) {
      expect((await call(t.app, enrolToken, method, url)).statusCode, url).toBe(401);
    }
    const offer = (await call(t.app, enrolToken, 'POST', '/restapi/auth/two-factor-auth', {})).json();
    const done = await call(t.app, enrolToken, 'POST', '/restapi/auth/two-factor-auth', {
      code: admins.totpCode(offer.secret, t.clock.now),
    });
    expect(done.statusCode, done.body).toBe(200);
    expect(done.json().backupCodes).toHaveLength(10);
    const access = done.json().access_token as string;
    expect(claimsOf(access)['2fa_enabled']).toBe(true);
    expect((await call(t.app, access, 'GET', '/restapi/auth/profile')).json().enforce_twofa).toBe(true);
    // The enrolment token is spent once 2FA is on; turning 2FA off is refused while enforced.
    expect((await call(t.app, enrolToken, 'POST', '/restapi/auth/two-factor-auth', {})).statusCode).toBe(401);
    expect(
      (await call(t.app, access, 'DELETE', '/restapi/auth/two-factor-auth', { password: TENANT_PASSWORD })).statusCode,
    ).toBe(409);
    // System admins are not concerned.
    expect((await authorize(t.app, ADMIN.email, ADMIN.password)).statusCode).toBe(200);
    // An enrolment token expires.
    const mspRes = await authorize(t.app, a.mspEmail, TENANT_PASSWORD);
    t.clock.now += 16 * 60_000;
    expect((await call(t.app, mspRes.json().token, 'POST', '/restapi/auth/two-factor-auth', {})).statusCode).toBe(401);
  });

  it('resets a password through the mailed link: single use, 1 hour, no hint whether an address exists', async () => {
    const before = await call(t.app, undefined, 'POST', '/restapi/auth/password/forgot', { email: a.mspEmail });
    expect(before.statusCode).toBe(422);
    expect(before.json().error).toBe(ErrorTexts.passwordResetFailed);
    await call(t.app, t.rootToken, 'POST', '/restapi/mail', {
      server: '127.0.0.1',
      port: smtp.port,
      from_email: 'noreply@cordon.test',
      notification_period: 'daily',
      console_url: 'http://console.test',
    });
    const unknown = await call(t.app, undefined, 'POST', '/restapi/auth/password/forgot', {
      email: 'nobody@example.test',
    });
    const since = smtp.mails.length;
    const known = await call(t.app, undefined, 'POST', '/restapi/auth/password/forgot', {
      email: a.mspEmail.toUpperCase(),
    });
    expect([unknown.statusCode, known.statusCode]).toEqual([200, 200]);
    expect(unknown.body).toBe(known.body);
    const mail = await smtp.waitFor(a.mspEmail, { since });
    expect(mail.text).toContain('http://console.test/reset-password?token=');
    expect(smtp.mails.some((m) => m.to.includes('nobody@example.test'))).toBe(false);
    const token = linkToken(mail.text);

    const mismatch = await call(t.app, undefined, 'POST', '/restapi/auth/password', {
      token,
      password: 'Fresh-pass1',
      password_confirmation: 'Fresh-pass2',
    });
    expect(mismatch.json().fields.password_confirmation).toBe('Passwords must match.');
    const weak = await call(t.app, undefined, 'POST', '/restapi/auth/password', {
      token,
      password: 'abcdefgh',
      password_confirmation: 'abcdefgh',
    });
    expect(weak.json().fields.password).toBe('Password must contain a letter and a number or symbol.');
    const body = { token, password: 'Fresh-pass1', password_confirmation: 'Fresh-pass1' };
    expect((await call(t.app, undefined, 'POST', '/restapi/auth/password', body)).statusCode).toBe(200);
    expect((await call(t.app, undefined, 'POST', '/restapi/auth/password', body)).statusCode).toBe(400);
    // The old password and every older token are refused.
    expect((await authorize(t.app, a.mspEmail, TENANT_PASSWORD)).statusCode).toBe(401);
    expect((await call(t.app, a.mspToken, 'GET', '/restapi/auth/profile')).statusCode).toBe(401);
    expect(await login(t.app, a.mspEmail, 'Fresh-pass1')).toBeTruthy();

    // An hour later a link no longer works.
    const since2 = smtp.mails.length;
    await call(t.app, undefined, 'POST', '/restapi/auth/password/forgot', { email: a.customerEmail });
    const late = linkToken((await smtp.waitFor(a.customerEmail, { since: since2 })).text);
    t.clock.now += 3600_000 + 1;
    const expired = await call(t.app, undefined, 'POST', '/restapi/auth/password', { ...body, token: late });
    expect(expired.json().error).toBe('This link is not valid or has expired.');
    const actions = (await t.handle.db.selectFrom('audit_log').select('action').execute()).map((r) => r.action);
    expect(actions).toContain('auth.password_reset_requested');
    // Requests are throttled per address and client, known or not, apart from the login's counters.
    const statuses: number[] = [];
    // The customer's address was asked for once above: four more are free, the next waits.
    for (const email of [...Array(5).fill(a.customerEmail), 'ghost@example.test']) {
      statuses.push((await call(t.app, undefined, 'POST', '/restapi/auth/password/forgot', { email })).statusCode);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 429, 200]);
    expect(await login(t.app, a.customerEmail, TENANT_PASSWORD)).toBeTruthy();
    expect(actions).toContain('auth.password_reset');
  });

  it('edits the profile, changes the password ("Passwords must match.") and logs out everywhere', async () => {
    const profile = await call(t.app, a.customerToken, 'PUT', '/restapi/auth/profile', {
      full_name: 'Chris Customer',
      lang: 'en',
      timezone: 'Europe/Paris',
    });
    expect(profile.json()).toMatchObject({
      full_name: 'Chris Customer',
      lang: 'en',
      timezone: 'Europe/Paris',
      accountname: 'Customer 1',
      mspAccountName: 'MSP 1',
      twoFactorAuthEnabled: false,
    });
    expect(
      (await call(t.app, a.customerToken, 'PUT', '/restapi/auth/profile', { timezone: 'Mars/Olympus' })).statusCode,
    ).toBe(400);
    const mismatch = await call(t.app, a.customerToken, 'PUT', '/restapi/auth/password', {
      current_password: TENANT_PASSWORD,
      password: 'Changed-1',
      password_confirmation: 'Changed-2',
    });
    expect(mismatch.json().fields.password_confirmation).toBe('Passwords must match.');
    const wrongCurrent = await call(t.app, a.customerToken, 'PUT', '/restapi/auth/password', {
      current_password: 'nope',
      password: 'Changed-1',
      password_confirmation: 'Changed-1',
    });
    expect(wrongCurrent.statusCode).toBe(400);
    const other = await login(t.app, a.customerEmail, TENANT_PASSWORD);
    const changed = await call(t.app, a.customerToken, 'PUT', '/restapi/auth/password', {
      current_password: TENANT_PASSWORD,
      password: 'Changed-1',
      password_confirmation: 'Changed-1',
    });
    expect(changed.statusCode).toBe(200);
    const fresh = changed.json().access_token as string;
    expect((await call(t.app, a.customerToken, 'GET', '/restapi/auth/profile')).statusCode).toBe(401);
    expect((await call(t.app, other, 'GET', '/restapi/auth/profile')).statusCode).toBe(401);
    expect((await call(t.app, fresh, 'GET', '/restapi/auth/profile')).statusCode).toBe(200);

    const second = await login(t.app, a.customerEmail, 'Changed-1');
    expect((await call(t.app, fresh, 'POST', '/restapi/auth/logout/all')).json()).toEqual({
      logged_out: true,
      everywhere: true,
    });
    expect((await call(t.app, fresh, 'GET', '/restapi/auth/profile')).statusCode).toBe(401);
    expect((await call(t.app, second, 'GET', '/restapi/auth/profile')).statusCode).toBe(401);
    expect(await login(t.app, a.customerEmail, 'Changed-1')).toBeTruthy();
    const audit = await t.handle.db
      .selectFrom('audit_log')
      .selectAll()
      .where('action', '=', 'admin.password_change')
      .execute();
    expect(audit).toHaveLength(1);
    expect(JSON.stringify(audit)).not.toMatch(/Changed-1|argon2/);
  });

  it('serves the audit log: everything to a system admin, its MSP and customers to an MSP admin; search, paging and CSV', async () => {
    const b = await createAccountsTenant(t, 2);
    await call(t.app, a.customerToken, 'PUT', '/restapi/auth/profile', { full_name: 'Renamed' });
    await authorize(t.app, a.customerEmail, 'wrong-Pass1');
    await call(t.app, b.mspToken, 'PUT', '/restapi/auth/profile', { full_name: 'Other MSP' });

    const all = (await call(t.app, t.rootToken, 'GET', '/restapi/audit?limit=100')).json();
    expect(all.total).toBe(all.data.length);
    const ats = all.data.map((r: { at: string }) => r.at);
    expect(ats).toEqual([...ats].sort().reverse());
    const mine = (await call(t.app, a.mspToken, 'GET', '/restapi/audit?limit=100')).json();
    expect(mine.data.length).toBeGreaterThan(0);
    expect(
      mine.data.every(
        (r: { msp_id: number | null; user_id: number | null }) => r.msp_id === a.mspId || r.user_id === a.customerId,
      ),
    ).toBe(true);
    expect(mine.data.some((r: { action: string }) => r.action === 'admin.profile')).toBe(true);
    expect(mine.data.some((r: { action: string }) => r.action === 'auth.login_failed')).toBe(true);
    expect(JSON.stringify(mine)).not.toContain('Other MSP');

    const logins = (await call(t.app, t.rootToken, 'GET', '/restapi/audit?action=auth.&limit=100')).json();
    expect(logins.data.every((r: { action: string }) => r.action.startsWith('auth.'))).toBe(true);
    const found = (
      await call(t.app, t.rootToken, 'GET', `/restapi/audit?filter=${encodeURIComponent(a.customerEmail)}&limit=2`)
    ).json();
    expect(found.data).toHaveLength(2);
    expect(found.total).toBeGreaterThan(2);
    expect((await call(t.app, a.mspToken, 'GET', `/restapi/audit?msp_id=${b.mspId}`)).statusCode).toBe(404);
    expect((await call(t.app, a.customerToken, 'GET', '/restapi/audit')).statusCode).toBe(403);

    const csv = await call(t.app, a.mspToken, 'GET', '/restapi/audit/export?action=admin.');
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-type']).toContain('text/csv');
    expect(csv.headers['content-disposition']).toBe('attachment; filename="audit-15-06-2025.csv"');
    const lines = csv.body.trim().split('\r\n');
    expect(lines[0]).toBe('id,at,admin_email,role,msp_id,user_id,action,entity,entity_id,client_ip,before,after');
    expect(lines.slice(1).every((l) => l.includes(',admin.'))).toBe(true);
    expect(csv.body).not.toMatch(/argon2|password_hash/);
  });
});
