import { admins } from '@cordon/core';
import { testDialects } from '@cordon/db/testing';
import { ErrorTexts } from '@cordon/shared';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type AccountsTenant, createAccountsTenant, TENANT_PASSWORD } from '../../../test/accounts-fixture.ts';
import { authorize, authorizeQuery, call, createTestApp, login, type TestApp } from '../../../test/helpers.ts';

/**
 * Issue 30, "Password guessing through the profile": the routes that check the caller's password are
 * throttled like logins, and refused passwords, 2FA codes and tokens leave audit rows in the admin's
 * tenant (docs/security.md "Logins", "Accounts").
 */
describe.each(testDialects())('password guessing through the profile on %s', (dialect) => {
  let t: TestApp;
  let a: AccountsTenant;
  beforeEach(async () => {
    t = await createTestApp(dialect);
    a = await createAccountsTenant(t, 1);
  });
  afterEach(async () => {
    await t.close();
  });

  const changeBody = (current: string) => ({
    current_password: current,
    password: 'Changed-1',
    password_confirmation: 'Changed-1',
  });

  /** The audit rows of `action` as the MSP admin reads them (its own tenant's log). */
  async function mspAudit(action: string) {
    const res = await call(t.app, a.mspToken, 'GET', `/restapi/audit?action=${encodeURIComponent(action)}&limit=100`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json().data as Array<{
      action: string;
      admin_id: number | null;
      msp_id: number | null;
      user_id: number | null;
      after: string | null;
      client_ip: string | null;
    }>;
  }

  it('throttles parallel wrong current passwords on PUT /auth/password and audits each one', async () => {
    const guesses = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        call(t.app, a.customerToken, 'PUT', '/restapi/auth/password', changeBody(`Guess-${i}x`)),
      ),
    );
    const statuses = guesses.map((r) => r.statusCode);
    expect(statuses.filter((s) => s === 400)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(35);
    const refused = guesses.find((r) => r.statusCode === 429);
    expect(refused?.json()).toEqual({ error: ErrorTexts.tooManyRequests, code: 'ERR_RATE_LIMITED' });
    expect(refused?.headers['retry-after']).toBe('2');
    // While throttled, even the right password is not checked; after the delay it is.
    const early = await call(t.app, a.customerToken, 'PUT', '/restapi/auth/password', changeBody(TENANT_PASSWORD));
    expect(early.statusCode).toBe(429);
    t.clock.now += 2000;
    const changed = await call(t.app, a.customerToken, 'PUT', '/restapi/auth/password', changeBody(TENANT_PASSWORD));
    expect(changed.statusCode, changed.body).toBe(200);

    // Each checked wrong password left a row in the customer's tenant, which its MSP admin reads; no secret in it.
    const failed = await mspAudit('admin.password_change_failed');
    expect(failed).toHaveLength(5);
    for (const row of failed) {
      expect(row).toMatchObject({
        admin_id: a.customerAdminId,
        msp_id: a.mspId,
        user_id: a.customerId,
        client_ip: '127.0.0.1',
      });
      expect(JSON.parse(row.after ?? 'null')).toEqual({ reason: 'wrong current password' });
    }
    expect(JSON.stringify(failed)).not.toMatch(/Guess-|Changed-1/);
  });

  it('counts DELETE /auth/two-factor-auth guesses on the same per-admin counter, not the login’s', async () => {
    for (let i = 0; i < 3; i++) {
      const res = await call(t.app, a.mspToken, 'PUT', '/restapi/auth/password', changeBody(`Guess-${i}x`));
      expect(res.statusCode).toBe(400);
    }
    for (let i = 0; i < 2; i++) {
      const res = await call(t.app, a.mspToken, 'DELETE', '/restapi/auth/two-factor-auth', { password: `Nope-${i}x` });
      expect(res.statusCode).toBe(400);
      expect(res.json().fields).toEqual({ password: 'The password is not correct.' });
    }
    const refused = await call(t.app, a.mspToken, 'DELETE', '/restapi/auth/two-factor-auth', {
      password: TENANT_PASSWORD,
    });
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toBe('2');
    // The admin still logs in, and another admin's profile is not slowed.
    expect((await authorize(t.app, a.mspEmail, TENANT_PASSWORD)).statusCode).toBe(200);
    const other = await call(t.app, a.customerToken, 'PUT', '/restapi/auth/password', changeBody('Guess-x1'));
    expect(other.statusCode).toBe(400);
    expect((await mspAudit('admin.2fa_disable_failed')).map((r) => r.admin_id)).toEqual([a.mspAdminId, a.mspAdminId]);
    // A right password that fails for another reason (2FA is off: 409) is not counted as a guess.
    t.clock.now += 2000;
    for (let i = 0; i < 3; i++) {
      const off = await call(t.app, a.mspToken, 'DELETE', '/restapi/auth/two-factor-auth', {
        password: TENANT_PASSWORD,
      });
      expect(off.statusCode).toBe(409);
    }
  });

  it('audits refused 2FA codes at enrolment and at login, in the admin’s tenant', async () => {
    const offer = (await call(t.app, a.customerToken, 'POST', '/restapi/auth/two-factor-auth', {})).json();
    const wrong = admins.totpCode(offer.secret, t.clock.now) === '000000' ? '111111' : '000000';
    const refused = await call(t.app, a.customerToken, 'POST', '/restapi/auth/two-factor-auth', { code: wrong });
    expect(refused.json().error).toBe('Invalid code');
    const enrolled = await call(t.app, a.customerToken, 'POST', '/restapi/auth/two-factor-auth', {
      code: admins.totpCode(offer.secret, t.clock.now),
    });
    expect(enrolled.statusCode, enrolled.body).toBe(200);
    t.clock.now += 30_000;
    const loginWrong = admins.totpCode(offer.secret, t.clock.now) === '000000' ? '111111' : '000000';
    const atLogin = await authorize(t.app, a.customerEmail, TENANT_PASSWORD, authorizeQuery({ code: loginWrong }));
    expect(atLogin.json().error).toBe('Invalid code');

    const codes = await mspAudit('auth.2fa_code_refused');
    expect(codes).toHaveLength(1);
    expect(codes[0]).toMatchObject({ admin_id: a.customerAdminId, msp_id: a.mspId, user_id: a.customerId });
    const logins = await mspAudit('auth.login_failed');
    expect(logins.map((r) => JSON.parse(r.after ?? 'null'))).toContainEqual({ reason: 'ERR_2FA_INVALID_CODE' });
    expect(JSON.stringify([...codes, ...logins])).not.toContain(wrong);
  });

  it('lets the owner finish a 2FA login right after the delay: the password step is uncounted', async () => {
    const offer = (await call(t.app, a.customerToken, 'POST', '/restapi/auth/two-factor-auth', {})).json();
    const enrolled = await call(t.app, a.customerToken, 'POST', '/restapi/auth/two-factor-auth', {
      code: admins.totpCode(offer.secret, t.clock.now),
    });
    expect(enrolled.statusCode, enrolled.body).toBe(200);
    t.clock.now += 30_000;
    for (let i = 0; i < 5; i++) expect((await authorize(t.app, a.customerEmail, 'Wrong-1x')).statusCode).toBe(401);
    expect((await authorize(t.app, a.customerEmail, TENANT_PASSWORD)).statusCode).toBe(429);
    t.clock.now += 2000;
    const step = await authorize(t.app, a.customerEmail, TENANT_PASSWORD);
    expect(step.json().error).toBe('2FA is enabled');
    const code = admins.totpCode(offer.secret, t.clock.now);
    const done = await authorize(t.app, a.customerEmail, TENANT_PASSWORD, authorizeQuery({ code }));
    expect(done.statusCode, done.body).toBe(200);
  });

  it('audits genuine tokens refused after a logout or a password change, not forged ones', async () => {
    const token = await login(t.app, a.customerEmail, TENANT_PASSWORD);
    expect((await call(t.app, token, 'POST', '/restapi/auth/logout')).statusCode).toBe(200);
    expect((await call(t.app, token, 'GET', '/restapi/auth/profile')).statusCode).toBe(401);
    const changed = await call(t.app, a.customerToken, 'PUT', '/restapi/auth/password', changeBody(TENANT_PASSWORD));
    expect(changed.statusCode).toBe(200);
    expect((await call(t.app, a.customerToken, 'GET', '/restapi/auth/profile')).statusCode).toBe(401);
    const forged = `${a.mspToken.slice(0, -4)}AAAA`;
    expect((await call(t.app, forged, 'GET', '/restapi/auth/profile')).statusCode).toBe(401);

    const rows = await mspAudit('auth.token_refused');
    expect(rows.map((r) => JSON.parse(r.after ?? 'null').reason).sort()).toEqual(['revoked', 'superseded']);
    for (const row of rows) {
      expect(row).toMatchObject({ admin_id: a.customerAdminId, msp_id: a.mspId, user_id: a.customerId });
    }
  });
});
