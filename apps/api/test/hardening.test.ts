import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { createChangeFeed } from '@cordon/db';
import { createTestDatabase, testDialects } from '@cordon/db/testing';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildApp, ensureSystemAdmin } from '../src/index.ts';
import {
  ADMIN,
  authorize,
  authorizeQuery,
  basic,
  call,
  createTenant,
  createTestApp,
  login,
  snapshot,
  type TenantFixture,
  type TestApp,
} from './helpers.ts';

/** The security headers Helmet puts on every answer (docs/security.md). */
const SECURITY_HEADER_NAMES = [
  'content-security-policy',
  'cross-origin-opener-policy',
  'cross-origin-resource-policy',
  'origin-agent-cluster',
  'referrer-policy',
  'x-content-type-options',
  'x-dns-prefetch-control',
  'x-download-options',
  'x-frame-options',
  'x-permitted-cross-domain-policies',
  'x-xss-protection',
];

const pick = (headers: Record<string, unknown>) =>
  Object.fromEntries(SECURITY_HEADER_NAMES.map((name) => [name, headers[name]]));

/** Sends raw bytes to a listening server; resolves with what it answered before closing. */
function rawRequest(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
    socket.end(request);
  });
}

/** Status, lower-cased headers and body of a raw HTTP/1.1 answer. */
function parseRaw(text: string): { status: number; headers: Record<string, string>; body: string } {
  const [head = '', body = ''] = text.split('\r\n\r\n');
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: Number(statusLine.split(' ')[1]), headers, body };
}

describe('answers made before routing (issue 5)', () => {
  let app: FastifyInstance;
  let port: number;
  beforeEach(async () => {
    const db = await createTestDatabase('sqlite');
    app = await buildApp({ db, changes: createChangeFeed(db), jwtSecret: randomBytes(32) });
    app.addHook('onClose', () => db.close());
    await app.listen({ host: '127.0.0.1', port: 0 });
    port = (app.server.address() as { port: number }).port;
  });
  afterEach(async () => {
    await app.close();
  });

  it('answers a malformed URL with the 400 envelope and the security headers, never echoing it', async () => {
    const reference = pick((await app.inject({ url: '/restapi/msp' })).headers);
    expect(reference['content-security-policy']).toContain("script-src 'self'");
    for (const url of ['/restapi/%', '/restapi/users/%zz/stats/today', '/%E0%A4%A']) {
      const res = await app.inject({ url });
      expect(res.statusCode, url).toBe(400);
      expect(res.json(), url).toEqual({ error: 'The request URL is malformed.', code: 'ERR_VALIDATION' });
      expect(pick(res.headers), url).toEqual(reference);
      expect(res.headers['cache-control']).toBe('no-store');
    }
  });

  it('answers oversized headers with 431 in the error envelope and the security headers', async () => {
    const reference = pick((await app.inject({ url: '/restapi/msp' })).headers);
    const raw = await rawRequest(
      port,
      `GET /restapi/msp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${'a'.repeat(20_000)}\r\n\r\n`,
    );
    const res = parseRaw(raw);
    expect(res.status).toBe(431);
    expect(JSON.parse(res.body)).toEqual({
      error: 'Client error: Request header fields too large.',
      code: 'ERR_HEADERS_TOO_LARGE',
    });
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(res.body));
    expect(pick(res.headers)).toEqual(reference);
    // A request the HTTP parser cannot read at all gets the 400 envelope the same way.
    const garbage = parseRaw(await rawRequest(port, 'GARBAGE\r\n\r\n'));
    expect(garbage.status).toBe(400);
    expect(JSON.parse(garbage.body)).toEqual({ error: 'The request is malformed.', code: 'ERR_VALIDATION' });
    expect(pick(garbage.headers)).toEqual(reference);
  });
});

describe.each(testDialects())('API hardening on %s', (dialect) => {
  let t: TestApp;
  let a: TenantFixture;
  let b: TenantFixture;
  beforeEach(async () => {
    t = await createTestApp(dialect);
    a = await createTenant(t, 1);
    b = await createTenant(t, 2);
  });
  afterEach(async () => {
    await t.close();
  });

  it('sends Cache-Control: no-store on the token answer and on authenticated answers', async () => {
    const token = await authorize(t.app, ADMIN.email, ADMIN.password);
    expect(token.statusCode).toBe(200);
    expect(token.headers['cache-control']).toBe('no-store');
    for (const url of [
      '/restapi/msp',
      `/restapi/users/${a.customerId}`,
      `/restapi/users/${a.customerId}/stats/today`,
    ]) {
      const res = await call(t.app, t.rootToken, 'GET', url);
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['cache-control'], url).toBe('no-store');
    }
    // Refusals too (they may carry field values back).
    expect((await call(t.app, undefined, 'GET', '/restapi/msp')).headers['cache-control']).toBe('no-store');
    expect((await authorize(t.app, ADMIN.email, 'Wr0ng-pass')).headers['cache-control']).toBe('no-store');
  });

  it('accepts ids only as decimal digits in paths, query strings and bodies', async () => {
    const before = await snapshot(t.handle);
    for (const bad of ['0x1', '%201', '1.0', '1e0', '%2B1', '1%20', '-1', 'abc']) {
      for (const url of [`/restapi/msp/${bad}`, `/restapi/users/${bad}`, `/restapi/users/${bad}/stats/today`]) {
        const res = await call(t.app, t.rootToken, 'GET', url);
        expect(res.statusCode, url).toBe(400);
        expect(res.json(), url).toMatchObject({
          code: 'ERR_VALIDATION',
          fields: { id: 'Must be a positive integer.' },
        });
      }
      const listed = await call(t.app, t.rootToken, 'GET', `/restapi/users/?msp_id=${bad}`);
      expect(listed.statusCode, bad).toBe(400);
    }
    // The same id in decimal works; written any other way it aliased id 1 before.
    expect((await call(t.app, t.rootToken, 'GET', `/restapi/msp/${a.mspId}`)).statusCode).toBe(200);
    for (const msp_id of [`0x${a.mspId.toString(16)}`, ` ${a.mspId}`, `${a.mspId}.0`, `${a.mspId}e0`, 1.5]) {
      const res = await call(t.app, t.rootToken, 'POST', '/restapi/users/', { accountName: 'Aliased', msp_id });
      expect(res.statusCode, String(msp_id)).toBe(400);
      expect(res.json().fields).toEqual({ msp_id: 'Must be a positive integer.' });
    }
    expect(await snapshot(t.handle)).toBe(before);
  });

  it('refuses control characters in names with a field message and changes nothing', async () => {
    const before = await snapshot(t.handle);
    const message = 'Control characters are not allowed.';
    const attempts: Array<[string, string, Record<string, unknown>, string]> = [
      ['POST', '/restapi/msp', { name: 'Evil\u0007MSP', company_name: 'X' }, 'name'],
      ['POST', '/restapi/msp', { name: 'Fine', company_name: 'Bad\u001b[31m Ltd' }, 'company_name'],
      [
        'POST',
        '/restapi/msp',
        {
          name: 'Fine',
          company_name: 'X',
          admin_email: 'n@x.test',
          admin_password: 'Passw0rd!',
          admin_name: 'A\u0085B',
        },
        'admin_name',
      ],
      ['PUT', `/restapi/msp/${a.mspId}`, { name: 'Tab\tName' }, 'name'],
      ['POST', '/restapi/users/', { accountName: 'Line\nBreak', msp_id: a.mspId }, 'accountName'],
      ['POST', `/restapi/users/${a.customerId}`, { accountName: 'Del\u007f' }, 'accountName'],
      ['POST', '/restapi/policies', { user_id: a.customerId, name: 'Nul\u0000Policy' }, 'name'],
      ['PUT', `/restapi/policies/${a.policyId}`, { name: 'C1\u009bName' }, 'name'],
      [
        'POST',
        `/restapi/users/${a.customerId}/locations/staticip`,
        { name: 'Office\r2', addresses: ['192.0.2.1'] },
        'name',
      ],
    ];
    for (const [method, url, body, field] of attempts) {
      const res = await call(t.app, t.rootToken, method as 'POST' | 'PUT', url, body);
      expect(res.statusCode, `${method} ${url}`).toBe(400);
      expect(res.json(), `${method} ${url}`).toMatchObject({ error: message, fields: { [field]: message } });
    }
    expect(await snapshot(t.handle)).toBe(before);
  });

  it('limits stats dates to 2000-01-01 through tomorrow in the customer time zone', async () => {
    // The clock is 2025-06-15T12:00Z; the customer is in Europe/Berlin.
    const get = (date: string) => call(t.app, t.rootToken, 'GET', `/restapi/users/${a.customerId}/stats/${date}`);
    const traffic = (day: string) =>
      call(t.app, t.rootToken, 'GET', `/restapi/users/${a.customerId}/stats/traffic/${day}`);
    for (const ok of ['2000-01-01', '2025-06-15', '2025-06-16']) {
      expect((await get(ok)).statusCode, ok).toBe(200);
    }
    for (const bad of ['1999-12-31', '0000-01-01', '0099-12-31', '2025-06-17', '9999-12-31']) {
      const res = await get(bad);
      expect(res.statusCode, bad).toBe(400);
      expect(res.json().fields, bad).toEqual({ date: 'date must be a day between 2000-01-01 and tomorrow.' });
      const hourly = await traffic(bad);
      expect(hourly.statusCode, bad).toBe(400);
      expect(hourly.json().fields, bad).toEqual({ day: 'day must be a day between 2000-01-01 and tomorrow.' });
    }
  });

  it('never tells an MSP admin that an e-mail or MSP name belongs to another tenant', async () => {
    const otherTenantsAdmin = 'cust1@example.test';
    const res = await call(t.app, b.mspToken, 'POST', '/restapi/users/', {
      accountName: 'Probe',
      admin_email: otherTenantsAdmin,
      admin_password: 'Passw0rd!',
    });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({
      error: 'This email address cannot be used.',
      code: 'ERR_CONFLICT',
      fields: { admin_email: 'This email address cannot be used.' },
    });
    expect(res.body).not.toMatch(/in use|exist|cust1|MSP 1|Customer 1/);
    const rename = await call(t.app, b.mspToken, 'PUT', `/restapi/msp/${b.mspId}`, { name: 'MSP 1' });
    expect(rename.statusCode).toBe(409);
    expect(rename.json()).toEqual({
      error: 'This name cannot be used.',
      code: 'ERR_CONFLICT',
      fields: { name: 'This name cannot be used.' },
    });
    // The system admin sees every tenant anyway and gets the precise texts.
    const asRoot = await call(t.app, t.rootToken, 'POST', '/restapi/users/', {
      accountName: 'Probe',
      msp_id: b.mspId,
      admin_email: otherTenantsAdmin,
      admin_password: 'Passw0rd!',
    });
    expect(asRoot.json().error).toBe('This email address is already in use.');
    const rootRename = await call(t.app, t.rootToken, 'PUT', `/restapi/msp/${b.mspId}`, { name: 'MSP 1' });
    expect(rootRename.json().error).toBe('An MSP with this name already exists.');
  });
});

describe('secrets in logs (docs/security.md)', () => {
  it('never logs the PKCE verifier, state, code, secret, password or tokens, even at trace level', async () => {
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
      const query = authorizeQuery({ code: '918273', secret: 'TOTPSECRETVALUE42' });
      const ok = await app.inject({
        method: 'GET',
        url: '/restapi/oauth/authorize',
        query,
        headers: { authorization: basic(ADMIN.email, ADMIN.password) },
      });
      expect(ok.statusCode).toBe(200);
      const token = ok.json().access_token as string;
      const failed = authorizeQuery();
      expect((await authorize(app, ADMIN.email, 'Wr0ng-Secret-99', failed)).statusCode).toBe(401);
      const invalid = authorizeQuery({ state: 'short-state-value' });
      expect((await authorize(app, ADMIN.email, ADMIN.password, invalid)).statusCode).toBe(400);
      expect((await call(app, token, 'GET', '/restapi/msp?secret=LEAKME123&limit=5')).statusCode).toBe(200);
      await login(app, ADMIN.email, ADMIN.password);

      const log = lines.join('\n');
      expect(log).toContain('/restapi/oauth/authorize'); // requests are logged, only without their secrets
      expect(log).toContain('limit=5');
      const secrets = [
        query.code_verifier,
        query.code_challenge,
        query.state,
        'TOTPSECRETVALUE42',
        '918273',
        failed.code_verifier,
        failed.state,
        'short-state-value',
        ADMIN.password,
        'Wr0ng-Secret-99',
        basic(ADMIN.email, ADMIN.password).slice('Basic '.length),
        basic(ADMIN.email, 'Wr0ng-Secret-99').slice('Basic '.length),
        token,
        token.split('.')[2],
        'LEAKME123',
      ];
      for (const secret of secrets) expect(log, secret).not.toContain(secret);
    } finally {
      await app.close();
      await handle.close();
    }
  });
});
