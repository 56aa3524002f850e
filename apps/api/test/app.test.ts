import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { createChangeFeed, type DatabaseHandle } from '@cordon/db';
import { createTestDatabase, testDialects } from '@cordon/db/testing';
import { ErrorTexts } from '@cordon/shared';
import type { FastifyInstance } from 'fastify';
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

  it('answers a path id that cannot exist as a missing resource, and a bad path value with its message', async () => {
    // docs/api.md: a path naming id 0 (digits naming nothing) is refused as missing, like an unknown id.
    for (const url of ['/restapi/msp/0', '/restapi/users/00', '/restapi/msp/99999999999999999999']) {
      const res = await call(t.app, t.rootToken, 'GET', url);
      expect(res.statusCode, url).toBe(404);
      expect(res.json()).toEqual({ error: 'Client error: Resource not found.', code: 'ERR_NOT_FOUND' });
    }
    // Anything but decimal digits is a malformed id (issue 5): 400 with the spec-notes §5 message.
    for (const url of ['/restapi/msp/abc', '/restapi/users/-1']) {
      const res = await call(t.app, t.rootToken, 'GET', url);
      expect(res.statusCode, url).toBe(400);
      expect(res.json()).toMatchObject({ code: 'ERR_VALIDATION', fields: { id: 'Must be a positive integer.' } });
    }
    const badDate = await call(t.app, t.rootToken, 'GET', '/restapi/users/1/stats/tomorrow');
    expect(badDate.statusCode).toBe(400);
    expect(badDate.json()).toMatchObject({
      code: 'ERR_VALIDATION',
      fields: { date: expect.stringContaining('today') },
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
  let handle: DatabaseHandle;
  let app: FastifyInstance;
  let dir: string;
  beforeEach(async () => {
    handle = await createTestDatabase(dialect);
    dir = mkdtempSync(join(tmpdir(), 'cordon-console-'));
    mkdirSync(join(dir, 'assets'));
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>Cordon</title>');
    writeFileSync(join(dir, 'app.js'), 'console.log(1)');
    writeFileSync(join(dir, 'assets', 'index-AbC123.js'), 'console.log(2)');
    app = await buildApp({
      db: handle,
      changes: createChangeFeed(handle),
      jwtSecret: new Uint8Array(32),
      consoleDir: dir,
    });
  });
  afterEach(async () => {
    await app.close();
    await handle.close();
  });

  it('serves the SPA with an index.html fallback for client routes only', async () => {
    const file = await app.inject({ method: 'GET', url: '/app.js' });
    expect(file.statusCode).toBe(200);
    expect(file.body).toBe('console.log(1)');
    for (const url of ['/', '/customer/overview', '/msp/3/customers?tab=all']) {
      const page = await app.inject({ method: 'GET', url });
      expect(page.statusCode, url).toBe(200);
      expect(page.headers['content-type'], url).toContain('text/html');
      expect(page.body, url).toContain('<title>Cordon</title>');
    }
    const api = await app.inject({ method: 'GET', url: '/restapi/unknown' });
    expect(api.statusCode).toBe(404);
    expect(api.json().code).toBe('ERR_NOT_FOUND');
    // The catch-all file route does not make every path "known": API paths still answer 405, others 404.
    expect((await app.inject({ method: 'PATCH', url: '/restapi/msp/1' })).statusCode).toBe(405);
    expect((await app.inject({ method: 'POST', url: '/customer/overview' })).statusCode).toBe(404);
  });

  it('answers 404, never index.html, for a missing asset or any missing file with an extension', async () => {
    for (const url of ['/assets/index-Old999.js', '/assets/logo', '/missing.js', '/deep/path/style.css']) {
      const res = await app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(404);
      expect(res.headers['content-type'], url).not.toContain('text/html');
      expect(res.json(), url).toEqual({ error: ErrorTexts.notFound, code: 'ERR_NOT_FOUND' });
    }
  });

  it('serves files added after start (a rebuild) without a restart', async () => {
    expect((await app.inject({ method: 'GET', url: '/assets/index-New456.js' })).statusCode).toBe(404);
    writeFileSync(join(dir, 'assets', 'index-New456.js'), 'console.log(3)');
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>Cordon 2</title>');
    const chunk = await app.inject({ method: 'GET', url: '/assets/index-New456.js' });
    expect(chunk.statusCode).toBe(200);
    expect(chunk.body).toBe('console.log(3)');
    expect((await app.inject({ method: 'GET', url: '/customer/overview' })).body).toContain('Cordon 2');
  });

  it('sends no-cache for index.html and immutable caching for hashed assets', async () => {
    for (const url of ['/', '/index.html', '/customer/overview']) {
      const res = await app.inject({ method: 'GET', url });
      expect(res.headers['cache-control'], url).toBe('no-cache');
    }
    const asset = await app.inject({ method: 'GET', url: '/assets/index-AbC123.js' });
    expect(asset.statusCode).toBe(200);
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    // An unhashed file may change with a rebuild: revalidated like index.html.
    expect((await app.inject({ method: 'GET', url: '/app.js' })).headers['cache-control']).toBe('no-cache');
  });

  it('serves the precompressed brotli or gzip copy to a client that accepts it, the plain file otherwise', async () => {
    const plain = 'console.log("precompressed");'.repeat(100);
    writeFileSync(join(dir, 'assets', 'big-Zz9.js'), plain);
    writeFileSync(join(dir, 'assets', 'big-Zz9.js.br'), brotliCompressSync(plain));
    writeFileSync(join(dir, 'assets', 'big-Zz9.js.gz'), gzipSync(plain));
    const url = '/assets/big-Zz9.js';
    const br = await app.inject({ method: 'GET', url, headers: { 'accept-encoding': 'gzip, deflate, br' } });
    expect(br.statusCode).toBe(200);
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers.vary).toContain('accept-encoding');
    expect(br.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(brotliDecompressSync(br.rawPayload).toString()).toBe(plain);
    const gz = await app.inject({ method: 'GET', url, headers: { 'accept-encoding': 'gzip' } });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.rawPayload).toString()).toBe(plain);
    const identity = await app.inject({ method: 'GET', url });
    expect(identity.headers['content-encoding']).toBeUndefined();
    expect(identity.body).toBe(plain);
  });
});
