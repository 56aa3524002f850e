import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createChangeFeed } from '@cordon/db';
import { createTestDatabase, testDialects } from '@cordon/db/testing';
import { ErrorTexts } from '@cordon/shared';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildApp, ensureSystemAdmin } from '../src/index.ts';
import { call, createTestApp, login, type TestApp } from './helpers.ts';

describe.each(testDialects())('app wiring on %s', (dialect) => {
  let t: TestApp;
  beforeEach(async () => {
    t = await createTestApp(dialect);
  });
  afterEach(async () => {
    await t.close();
  });

  it('answers unknown routes with the 404 envelope and wrong methods with 405', async () => {
    const unknown = await call(t.app, t.rootToken, 'GET', '/restapi/nothing/here');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({ error: ErrorTexts.notFound, code: 'ERR_NOT_FOUND' });
    const wrong = await call(t.app, t.rootToken, 'PATCH', '/restapi/msp/1');
    expect(wrong.statusCode).toBe(405);
    expect(wrong.json()).toEqual({ error: ErrorTexts.methodNotAllowed, code: 'ERR_METHOD_NOT_ALLOWED' });
  });

  it('serves /users and /users/ alike', async () => {
    const a = await call(t.app, t.rootToken, 'GET', '/restapi/users');
    const b = await call(t.app, t.rootToken, 'GET', '/restapi/users/');
    expect(a.statusCode).toBe(200);
    expect(b.body).toBe(a.body);
  });

  it('validates path ids with the spec message', async () => {
    const res = await call(t.app, t.rootToken, 'GET', '/restapi/msp/abc');
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      error: 'Must be a positive integer.',
      code: 'ERR_VALIDATION',
      fields: { id: 'Must be a positive integer.' },
    });
  });

  it('publishes the OpenAPI document listing the routes, without a token', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/restapi/docs/json' });
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    expect(doc.openapi).toMatch(/^3\./);
    for (const path of [
      '/restapi/oauth/authorize',
      '/restapi/msp',
      '/restapi/msp/{id}',
      '/restapi/users/',
      '/restapi/users/{id}',
      '/restapi/policies',
      '/restapi/policies/{id}/categories',
      '/restapi/policies/default',
      '/restapi/users/{id}/locations/{type}',
      '/restapi/users/{id}/locations/staticip/{locId}/addresses/{addrId}',
      '/restapi/users/{id}/stats/{date}',
      '/restapi/users/{id}/stats/traffic/{day}',
    ]) {
      expect(doc.paths, path).toHaveProperty([path]);
    }
    expect(doc.paths['/restapi/msp'].post.requestBody.content['application/json'].schema.properties).toHaveProperty(
      'company_name',
    );
  });
});

describe.each(testDialects())('server errors on %s', (dialect) => {
  it('answers 500 with the spec text, no detail, and logs the error', async () => {
    const handle = await createTestDatabase(dialect);
    const lines: string[] = [];
    const stream = { write: (line: string) => void lines.push(line) };
    const app = await buildApp({
      db: handle,
      changes: createChangeFeed(handle),
      jwtSecret: new Uint8Array(32),
      logger: { level: 'error', stream },
    });
    try {
      await ensureSystemAdmin(handle, { email: 'root@cordon.test', password: 'Sup3r-secret' });
      const token = await login(app, 'root@cordon.test', 'Sup3r-secret');
      // Break the database under the app: the token check's query then fails.
      await sql`drop table revoked_tokens`.execute(handle.db);
      const res = await call(app, token, 'GET', '/restapi/msp');
      expect(res.statusCode).toBe(500);
      expect(res.json()).toEqual({ error: ErrorTexts.serverError, code: 'ERR_INTERNAL' });
      expect(lines.join('\n')).toContain('revoked_tokens');
    } finally {
      await app.close();
      await handle.close();
    }
  });
});

describe.each(testDialects())('console files on %s', (dialect) => {
  it('serves the SPA with an index.html fallback for non-API GETs only', async () => {
    const handle = await createTestDatabase(dialect);
    const dir = mkdtempSync(join(tmpdir(), 'cordon-console-'));
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>Cordon</title>');
    writeFileSync(join(dir, 'app.js'), 'console.log(1)');
    const app = await buildApp({
      db: handle,
      changes: createChangeFeed(handle),
      jwtSecret: new Uint8Array(32),
      consoleDir: dir,
    });
    try {
      const file = await app.inject({ method: 'GET', url: '/app.js' });
      expect(file.statusCode).toBe(200);
      expect(file.body).toBe('console.log(1)');
      const deep = await app.inject({ method: 'GET', url: '/customer/overview' });
      expect(deep.statusCode).toBe(200);
      expect(deep.headers['content-type']).toContain('text/html');
      expect(deep.body).toContain('<title>Cordon</title>');
      const api = await app.inject({ method: 'GET', url: '/restapi/unknown' });
      expect(api.statusCode).toBe(404);
      expect(api.json().code).toBe('ERR_NOT_FOUND');
    } finally {
      await app.close();
      await handle.close();
    }
  });
});
