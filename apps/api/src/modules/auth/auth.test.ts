import { randomBytes } from 'node:crypto';
import { createChangeFeed } from '@cordon/db';
import { createTestDatabase, testDialects } from '@cordon/db/testing';
import { ErrorTexts, tokenClaimsSchema } from '@cordon/shared';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ADMIN,
  authorize,
  authorizeQuery,
  call,
  claimsOf,
  createTenant,
  createTestApp,
  login,
  type TestApp,
} from '../../../test/helpers.ts';
import { buildApp, ensureSystemAdmin } from '../../index.ts';

describe.each(testDialects())('auth on %s', (dialect) => {
  let t: TestApp;
  beforeEach(async () => {
    t = await createTestApp(dialect);
  });
  afterEach(async () => {
    await t.close();
  });

  it('logs in with a real PKCE pair and issues exactly the spec claims', async () => {
    const claims = claimsOf(t.rootToken);
    expect(Object.keys(claims).sort()).toEqual(
      [
        'sub',
        'name',
        'email',
        'account_name',
        '2fa_enabled',
        'vue_role',
        'msp_id',
        'is_default',
        'user_id',
        'jti',
        'iat',
        'exp',
      ].sort(),
    );
    expect(tokenClaimsSchema.parse(claims)).toMatchObject({
      email: ADMIN.email,
      account_name: 'System',
      vue_role: 1,
      msp_id: null,
      user_id: null,
      '2fa_enabled': false,
    });
    expect((claims.exp as number) - (claims.iat as number)).toBe(12 * 3600);
    expect(claims.iat).toBe(Math.floor(t.clock.now / 1000));
  });

  it('gives MSP and customer admins their account names and tenant ids', async () => {
    const a = await createTenant(t, 1);
    expect(claimsOf(a.mspToken)).toMatchObject({
      vue_role: 3,
      msp_id: a.mspId,
      user_id: null,
      account_name: 'MSP 1',
      is_default: true,
    });
    expect(claimsOf(a.customerToken)).toMatchObject({
      vue_role: 4,
      msp_id: a.mspId,
      user_id: a.customerId,
      account_name: 'Customer 1',
    });
  });

  it('answers a wrong password and an unknown e-mail with the same 401', async () => {
    const wrong = await authorize(t.app, ADMIN.email, 'Wr0ng-password');
    const unknown = await authorize(t.app, 'nobody@cordon.test', ADMIN.password);
    expect(wrong.statusCode).toBe(401);
    expect(unknown.statusCode).toBe(401);
    expect(wrong.json()).toEqual({ error: ErrorTexts.badCredentials, code: 'ERR_BAD_CREDENTIALS' });
    expect(unknown.json()).toEqual(wrong.json());
  });

  it('refuses missing Basic credentials with 401', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/restapi/oauth/authorize', query: authorizeQuery() });
    expect(res.statusCode).toBe(401);
    expect(res.json().code).toBe('ERR_BAD_CREDENTIALS');
  });

  it('refuses a challenge that does not match the verifier with 400', async () => {
    const other = authorizeQuery();
    const res = await authorize(
      t.app,
      ADMIN.email,
      ADMIN.password,
      authorizeQuery({ code_challenge: other.code_challenge! }),
    );
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'ERR_VALIDATION', fields: { code_challenge: expect.any(String) } });
  });

  it('refuses a bad client_id, response_type or verifier with 400 field errors', async () => {
    for (const [field, value] of [
      ['client_id', '3'],
      ['response_type', 'token'],
      ['code_verifier', 'abc'],
      ['state', 'short'],
    ] as const) {
      const res = await authorize(t.app, ADMIN.email, ADMIN.password, authorizeQuery({ [field]: value }));
      expect(res.statusCode, field).toBe(400);
      expect(res.json().code).toBe('ERR_VALIDATION');
      expect(Object.keys(res.json().fields)).toContain(field);
    }
  });

  it('answers 422 "2FA is enabled" when the admin has two-factor on', async () => {
    await t.handle.db.updateTable('admins').set({ twofa_enabled: 1 }).where('email', '=', ADMIN.email).execute();
    const res = await authorize(t.app, ADMIN.email, ADMIN.password);
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({ error: '2FA is enabled', code: 'ERR_2FA_ENABLED' });
  });

  it('revokes the token on logout; the token then gets 401 with 401 in its text', async () => {
    expect((await call(t.app, t.rootToken, 'GET', '/restapi/msp')).statusCode).toBe(200);
    // Sent as clients often do: a JSON content type and no body.
    const out = await t.app.inject({
      method: 'POST',
      url: '/restapi/auth/logout',
      headers: { authorization: `Bearer ${t.rootToken}`, 'content-type': 'application/json' },
    });
    expect(out.statusCode).toBe(200);
    expect(out.json()).toEqual({ logged_out: true });
    const after = await call(t.app, t.rootToken, 'GET', '/restapi/msp');
    expect(after.statusCode).toBe(401);
    expect(after.json().error).toContain('401');
    // A new login still works.
    const again = await login(t.app, ADMIN.email, ADMIN.password);
    expect((await call(t.app, again, 'GET', '/restapi/msp')).statusCode).toBe(200);
  });

  it('refuses missing, forged and expired tokens with 401', async () => {
    expect((await call(t.app, undefined, 'GET', '/restapi/msp')).statusCode).toBe(401);
    const [h, p] = t.rootToken.split('.');
    const forged = `${h}.${p}.${'A'.repeat(43)}`;
    const res = await call(t.app, forged, 'GET', '/restapi/msp');
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ code: 'ERR_UNAUTHENTICATED', error: expect.stringContaining('401') });
    t.clock.now += 12 * 3600 * 1000 + 1000;
    expect((await call(t.app, t.rootToken, 'GET', '/restapi/msp')).statusCode).toBe(401);
  });

  it('drops the access of an admin whose MSP is deleted', async () => {
    const a = await createTenant(t, 1);
    expect((await call(t.app, a.mspToken, 'GET', `/restapi/msp/${a.mspId}`)).statusCode).toBe(200);
    expect((await call(t.app, t.rootToken, 'DELETE', `/restapi/msp/${a.mspId}?confirm_name=MSP%201`)).statusCode).toBe(
      200,
    );
    expect((await call(t.app, a.mspToken, 'GET', `/restapi/msp/${a.mspId}`)).statusCode).toBe(401);
  });
});

describe.each(testDialects())('bootstrap on %s', (dialect) => {
  it('creates the first system admin once, with a generated password returned once', async () => {
    const handle = await createTestDatabase(dialect);
    try {
      const first = await ensureSystemAdmin(handle, {});
      expect(first).toMatchObject({
        created: true,
        email: 'admin@cordon.local',
        generatedPassword: expect.any(String),
      });
      expect(first.generatedPassword!.length).toBeGreaterThanOrEqual(16);
      const second = await ensureSystemAdmin(handle, { email: 'x@y.test', password: 'An0ther-pass' });
      expect(second).toEqual({ created: false, email: 'admin@cordon.local' });
      const admins = await handle.db.selectFrom('admins').selectAll().execute();
      expect(admins).toHaveLength(1);
      expect(admins[0]!.password_hash).toMatch(/^\$argon2id\$/);

      // The generated password logs in.
      const app = await buildApp({ db: handle, changes: createChangeFeed(handle), jwtSecret: randomBytes(32) });
      try {
        expect((await login(app, 'admin@cordon.local', first.generatedPassword!)).split('.')).toHaveLength(3);
      } finally {
        await app.close();
      }
    } finally {
      await handle.close();
    }
  });

  it('refuses a weak first-run password', async () => {
    const handle = await createTestDatabase(dialect);
    try {
      await expect(ensureSystemAdmin(handle, { email: 'a@b.test', password: 'short' })).rejects.toThrow(/password/i);
      expect(await handle.db.selectFrom('admins').selectAll().execute()).toHaveLength(0);
    } finally {
      await handle.close();
    }
  });
});
