import { createHash, randomBytes } from 'node:crypto';
import { admins } from '@cordon/core';
import { createChangeFeed } from '@cordon/db';
import { createTestDatabase, testDialects } from '@cordon/db/testing';
import { ErrorTexts } from '@cordon/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN,
  call,
  createTenant,
  createTestApp,
  login,
  type TenantFixture,
  type TestApp,
} from '../../../test/helpers.ts';
import { buildApp, ensureSystemAdmin } from '../../index.ts';

const PASSWORD = 'Passw0rd!';
const TOKENS = '/restapi/auth/api-tokens';

describe.each(testDialects())('API tokens on %s (docs/api.md "API tokens")', (dialect) => {
  let t: TestApp;
  let a: TenantFixture;
  let b: TenantFixture;
  beforeAll(async () => {
    t = await createTestApp(dialect);
    a = await createTenant(t, 1);
    b = await createTenant(t, 2);
  });
  afterAll(async () => {
    await t.close();
  });

  /** Creates a token as `session` (a login token) and returns the answer's JSON. */
  async function mint(session: string, body: Record<string, unknown> = {}, password = PASSWORD) {
    const res = await call(t.app, session, 'POST', TOKENS, {
      name: 'automation',
      access: 'read-write',
      current_password: password,
      ...body,
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json();
  }
  const audits = (action: string) =>
    t.handle.db.selectFrom('audit_log').selectAll().where('action', '=', action).orderBy('id').execute();

  it('creates a prefixed secret shown once, stores only its SHA-256, lists it without the secret, audits it', async () => {
    const res = await call(t.app, a.mspToken, 'POST', TOKENS, {
      name: 'Provisioning',
      access: 'read-write',
      expires_in_days: 30,
      current_password: PASSWORD,
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.headers['cache-control']).toBe('no-store');
    const created = res.json();
    expect(created.secret).toMatch(/^cdn_[0-9A-Za-z]{12}_[A-Za-z0-9_-]{43}$/);
    expect(created.secret.slice(4, 16)).toBe(created.prefix);
    expect(created.expires_at).toBe(new Date(t.clock.now + 30 * 86_400_000).toISOString());
    const row = await t.handle.db
      .selectFrom('api_tokens')
      .selectAll()
      .where('id', '=', created.id)
      .executeTakeFirstOrThrow();
    expect(row.secret_hash).toBe(createHash('sha256').update(created.secret).digest('hex'));
    expect(JSON.stringify(row)).not.toContain(created.secret.slice(17));
    const list = (await call(t.app, a.mspToken, 'GET', TOKENS)).json();
    expect(list.data).toEqual([
      expect.objectContaining({ id: created.id, name: 'Provisioning', access: 'read-write' }),
    ]);
    expect(JSON.stringify(list)).not.toContain(created.secret);
    const [audit] = await audits('admin.api_token_create');
    expect(audit).toMatchObject({ admin_id: a.mspAdminId, msp_id: a.mspId, entity_id: created.id });
    expect(JSON.stringify(audit)).not.toContain(created.secret.slice(17));
  });

  it('refuses a wrong password (400 on current_password, nothing stored) and a bad expiry', async () => {
    const before = (await t.handle.db.selectFrom('api_tokens').select('id').execute()).length;
    const wrong = await call(t.app, a.customerToken, 'POST', TOKENS, {
      name: 'x',
      access: 'read',
      current_password: 'Wr0ng-password',
    });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().fields).toEqual({ current_password: 'The current password is not correct.' });
    expect((await audits('admin.api_token_create_failed')).at(-1)).toMatchObject({ admin_id: a.customerAdminId });
    const past = await call(t.app, a.customerToken, 'POST', TOKENS, {
      name: 'x',
      access: 'read',
      expires_at: '2020-01-01',
      current_password: PASSWORD,
    });
    expect(past.statusCode).toBe(400);
    expect(past.json().fields).toEqual({ expires_at: 'The expiry must be in the future.' });
    const both = await call(t.app, a.customerToken, 'POST', TOKENS, {
      name: 'x',
      access: 'read',
      expires_at: '2030-01-01',
      expires_in_days: 3,
      current_password: PASSWORD,
    });
    expect(both.statusCode).toBe(400);
    expect((await t.handle.db.selectFrom('api_tokens').select('id').execute()).length).toBe(before);
  });

  it("acts as its admin with the same tenancy: own data answered, a foreign tenant's ids refused (404)", async () => {
    const { secret } = await mint(a.mspToken);
    const users = await call(t.app, secret, 'GET', '/restapi/users');
    expect(users.json().data.map((c: { id: number }) => c.id)).toEqual([a.customerId]);
    for (const [method, url, body] of [
      ['GET', `/restapi/users/${b.customerId}`],
      ['GET', `/restapi/policies/${b.policyId}`],
      ['PUT', `/restapi/policies/${b.policyId}`, { name: 'Hijacked' }],
      ['DELETE', `/restapi/users/${b.customerId}/locations/staticip/${b.locationId}`],
      ['GET', `/restapi/msp/${b.mspId}`],
    ] as const) {
      const res = await call(t.app, secret, method, url, body);
      expect(res.statusCode, `${method} ${url}`).toBe(404);
      expect(res.json()).toEqual({ error: ErrorTexts.notFound, code: 'ERR_NOT_FOUND' });
    }
    const own = await call(t.app, secret, 'PUT', `/restapi/policies/${a.policyId}`, { name: 'Renamed by token' });
    expect(own.statusCode, own.body).toBe(200);
  });

  it('names the token in the audit row of every change it makes', async () => {
    const created = await mint(a.mspToken, { name: 'CI robot' });
    const res = await call(t.app, created.secret, 'PUT', `/restapi/policies/${a.policyId}`, { description: 'by CI' });
    expect(res.statusCode, res.body).toBe(200);
    const row = await t.handle.db.selectFrom('audit_log').selectAll().orderBy('id', 'desc').executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      action: 'policy.update',
      admin_id: a.mspAdminId,
      api_token_id: created.id,
      api_token_name: 'CI robot',
    });
    const listed = (await call(t.app, a.mspToken, 'GET', '/restapi/audit?action=policy.update')).json();
    expect(listed.data[0]).toMatchObject({ api_token_id: created.id, api_token_name: 'CI robot' });
  });

  it('refuses a read-only token anything but GET (403) and any token the person-only routes', async () => {
    const { secret } = await mint(a.customerToken, { access: 'read' });
    expect((await call(t.app, secret, 'GET', `/restapi/policies/${a.policyId}`)).statusCode).toBe(200);
    const write = await call(t.app, secret, 'PUT', `/restapi/policies/${a.policyId}`, { description: 'no' });
    expect(write.statusCode).toBe(403);
    expect(write.json()).toMatchObject({
      code: 'ERR_FORBIDDEN',
      error: 'This API token is read-only: it may only read (GET).',
    });
    const rw = (await mint(a.customerToken)).secret;
    for (const [method, url] of [
      ['POST', TOKENS],
      ['POST', '/restapi/auth/logout'],
      ['POST', '/restapi/auth/logout/all'],
      ['PUT', '/restapi/auth/password'],
    ] as const) {
      const res = await call(t.app, rw, method, url, { name: 'x', access: 'read', current_password: PASSWORD });
      expect(res.statusCode, `${method} ${url}`).toBe(403);
    }
    expect((await call(t.app, rw, 'GET', '/restapi/auth/profile')).statusCode).toBe(200);
  });

  it("refuses at once a revoked token (and another admin's token id answers 404)", async () => {
    const created = await mint(a.mspToken);
    expect((await call(t.app, created.secret, 'GET', '/restapi/users')).statusCode).toBe(200);
    const foreign = await call(t.app, b.mspToken, 'DELETE', `${TOKENS}/${created.id}`);
    expect(foreign.statusCode).toBe(404);
    expect((await call(t.app, created.secret, 'GET', '/restapi/users')).statusCode).toBe(200);
    const revoked = await call(t.app, a.mspToken, 'DELETE', `${TOKENS}/${created.id}`);
    expect(revoked.statusCode, revoked.body).toBe(200);
    expect(revoked.json().revoked_at).toBe(new Date(t.clock.now).toISOString());
    const next = await call(t.app, created.secret, 'GET', '/restapi/users');
    expect(next.statusCode).toBe(401);
    expect(next.body).toContain('401');
    expect((await audits('auth.token_refused')).at(-1)).toMatchObject({ entity: 'api_token', entity_id: created.id });
  });

  it('refuses a token from its expiry on, an unknown or altered secret, and a JWT path is untouched', async () => {
    const { secret } = await mint(a.customerToken, { expires_in_days: 1 });
    expect((await call(t.app, secret, 'GET', '/restapi/auth/profile')).statusCode).toBe(200);
    const start = t.clock.now;
    try {
      t.clock.now = start + 86_400_000 - 1;
      expect((await call(t.app, secret, 'GET', '/restapi/auth/profile')).statusCode).toBe(200);
      t.clock.now = start + 86_400_000;
      expect((await call(t.app, secret, 'GET', '/restapi/auth/profile')).statusCode).toBe(401);
    } finally {
      t.clock.now = start;
    }
    const live = (await mint(a.customerToken)).secret;
    const altered = `${live.slice(0, -1)}${live.endsWith('A') ? 'B' : 'A'}`;
    expect((await call(t.app, altered, 'GET', '/restapi/auth/profile')).statusCode).toBe(401);
    expect((await call(t.app, 'cdn_nonsense', 'GET', '/restapi/auth/profile')).statusCode).toBe(401);
    expect((await call(t.app, a.customerToken, 'GET', '/restapi/auth/profile')).statusCode).toBe(200);
  });

  it('refuses at once the tokens of a demoted or deleted admin', async () => {
    const create = await call(t.app, t.rootToken, 'POST', '/restapi/admin/', {
      email: 'ops@cordon.test',
      full_name: 'Ops',
      role: 1,
    });
    expect(create.statusCode, create.body).toBe(201);
    const opsId = create.json().id as number;
    await t.handle.db
      .updateTable('admins')
      .set({ password_hash: await admins.hashPassword(PASSWORD) })
      .where('id', '=', opsId)
      .execute();
    const session = await login(t.app, 'ops@cordon.test', PASSWORD);
    const { secret } = await mint(session);
    expect((await call(t.app, secret, 'GET', '/restapi/msp')).statusCode).toBe(200);
    const demote = await call(t.app, t.rootToken, 'PUT', `/restapi/admin/${opsId}`, { role: 2 });
    expect(demote.statusCode, demote.body).toBe(200);
    expect((await call(t.app, secret, 'GET', '/restapi/msp')).statusCode).toBe(401);
    const session2 = await login(t.app, 'ops@cordon.test', PASSWORD);
    const second = (await mint(session2)).secret;
    expect((await call(t.app, second, 'GET', '/restapi/msp')).statusCode).toBe(200);
    expect((await call(t.app, t.rootToken, 'DELETE', `/restapi/admin/${opsId}`)).statusCode).toBe(200);
    expect((await call(t.app, second, 'GET', '/restapi/msp')).statusCode).toBe(401);
  });

  it('records the last use and address at most once a minute', async () => {
    const created = await mint(a.mspToken);
    const lastUsed = async () =>
      t.handle.db
        .selectFrom('api_tokens')
        .select(['last_used_at', 'last_used_ip'])
        .where('id', '=', created.id)
        .executeTakeFirstOrThrow();
    expect(await lastUsed()).toEqual({ last_used_at: null, last_used_ip: null });
    const start = t.clock.now;
    try {
      await call(t.app, created.secret, 'GET', '/restapi/users');
      expect(await lastUsed()).toEqual({ last_used_at: new Date(start).toISOString(), last_used_ip: '127.0.0.1' });
      t.clock.now = start + 59_000;
      await call(t.app, created.secret, 'GET', '/restapi/users');
      expect((await lastUsed()).last_used_at).toBe(new Date(start).toISOString());
      t.clock.now = start + 61_000;
      await call(t.app, created.secret, 'GET', '/restapi/users');
      expect((await lastUsed()).last_used_at).toBe(new Date(start + 61_000).toISOString());
    } finally {
      t.clock.now = start;
    }
  });

  it('asks for the 2FA code when 2FA is on', async () => {
    const offer = (await call(t.app, b.customerToken, 'POST', '/restapi/auth/two-factor-auth', {})).json();
    const done = await call(t.app, b.customerToken, 'POST', '/restapi/auth/two-factor-auth', {
      code: admins.totpCode(offer.secret, t.clock.now),
    });
    expect(done.statusCode, done.body).toBe(200);
    const body = { name: 'x', access: 'read', current_password: PASSWORD };
    const start = t.clock.now;
    try {
      t.clock.now = start + 30_000; // the enrolment used this step's code
      const none = await call(t.app, b.customerToken, 'POST', TOKENS, body);
      expect(none.statusCode).toBe(422);
      expect(none.json().error).toBe('2FA is enabled');
      const ok = await call(t.app, b.customerToken, 'POST', TOKENS, {
        ...body,
        code: admins.totpCode(offer.secret, t.clock.now),
      });
      expect(ok.statusCode, ok.body).toBe(201);
    } finally {
      t.clock.now = start;
    }
  });

  it('throttles wrong passwords like PUT /auth/password (429 with Retry-After after five)', async () => {
    const session = await login(t.app, ADMIN.email, ADMIN.password);
    const body = { name: 'x', access: 'read', current_password: 'Wr0ng-password' };
    for (let i = 0; i < 5; i++) expect((await call(t.app, session, 'POST', TOKENS, body)).statusCode).toBe(400);
    const sixth = await call(t.app, session, 'POST', TOKENS, { ...body, current_password: ADMIN.password });
    expect(sixth.statusCode).toBe(429);
    expect(Number(sixth.headers['retry-after'])).toBeGreaterThan(0);
  });
});

describe('API token secrets in logs (docs/security.md "API tokens")', () => {
  it('never logs a token secret or the password that created it, even at trace level', async () => {
    const handle = await createTestDatabase('sqlite');
    const lines: string[] = [];
    const app = await buildApp({
      db: handle,
      changes: createChangeFeed(handle),
      jwtSecret: randomBytes(32),
      logger: { level: 'trace', stream: { write: (line: string) => void lines.push(line) } },
    });
    try {
      await ensureSystemAdmin(handle, { email: ADMIN.email, password: ADMIN.password });
      const session = await login(app, ADMIN.email, ADMIN.password);
      const made = await call(app, session, 'POST', TOKENS, {
        name: 'logged?',
        access: 'read',
        current_password: ADMIN.password,
      });
      expect(made.statusCode, made.body).toBe(201);
      const secret = made.json().secret as string;
      expect((await call(app, secret, 'GET', '/restapi/msp?limit=7')).statusCode).toBe(200);
      expect((await call(app, `${secret.slice(0, -1)}x`, 'GET', '/restapi/msp')).statusCode).toBe(401);
      const log = lines.join('\n');
      expect(log).toContain('limit=7'); // the request is logged, without its secret
      for (const s of [secret, secret.slice(17), ADMIN.password]) expect(log, s).not.toContain(s);
    } finally {
      await app.close();
      await handle.close();
    }
  });
});
