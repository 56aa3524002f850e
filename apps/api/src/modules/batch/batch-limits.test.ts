import { randomBytes } from 'node:crypto';
import { createChangeFeed } from '@cordon/db';
import { testDialects } from '@cordon/db/testing';
import {
  batchNestedMessage,
  batchPathMessage,
  Constants,
  ErrorCatalogue,
  ErrorTexts,
  normalizeBatchPath,
} from '@cordon/shared';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ADMIN,
  call,
  createTenant,
  createTestApp,
  login,
  snapshot,
  type TenantFixture,
  type TestApp,
} from '../../../test/helpers.ts';
import { buildApp } from '../../index.ts';
import { BATCH_ITEM_HEADER } from './routes.ts';

describe('normalizeBatchPath (docs/api.md "Batch")', () => {
  it('decodes unreserved characters and refuses every other encoding, dot and empty segments', () => {
    expect(normalizeBatchPath('/%62atch')).toBe('/batch');
    expect(normalizeBatchPath('/%70olicies/%31%32')).toBe('/policies/12');
    expect(normalizeBatchPath('/policies/')).toBe('/policies/');
    for (const bad of [
      '/%2e%2e/batch',
      '/%2E/batch',
      '/policies/%2e',
      '/policies/..',
      '/./batch',
      '/%2Fbatch',
      '/batch%2f',
      '/%5cbatch',
      '/%252e%252e/batch',
      '/%3Fx',
      '/%G1',
      '/%6',
      '//batch',
      '/policies//1',
      '/policies?x=1',
      '/policies#x',
      '/p\\q',
      'policies',
      `/${'a'.repeat(2048)}`,
    ]) {
      expect(normalizeBatchPath(bad), bad).toBeNull();
    }
  });
});

describe.each(testDialects())('POST /batch limits (issue 30) on %s', (dialect) => {
  let t: TestApp;
  let a: TenantFixture;
  beforeEach(async () => {
    t = await createTestApp(dialect);
    a = await createTenant(t, 1);
  });
  afterEach(async () => {
    await t.close();
  });

  const batch = (token: string, body: unknown) => call(t.app, token, 'POST', '/restapi/batch', body);

  it('refuses a batch inside a batch however its path is spelt, running nothing', async () => {
    const before = await snapshot(t.handle);
    const del = { method: 'DELETE', path: `/policies/${a.policyId}` };
    const inner = { first: del };
    for (const path of ['/%62atch', '/%62%61%74%63%68/', '/Batch', '/BATCH//', '/b%61tch', '/%42atch']) {
      const res = await batch(a.customerToken, { first: del, inner: { method: 'POST', path, parameters: inner } });
      expect(res.statusCode, path).toBe(400);
      expect(res.json().fields, path).toEqual({ 'inner.path': batchNestedMessage });
    }
    for (const path of ['/%2e/batch', '/policies/%2e%2e/batch', '/%2fbatch', '/%252e%252e/batch']) {
      const res = await batch(a.customerToken, { first: del, inner: { method: 'POST', path, parameters: inner } });
      expect(res.statusCode, path).toBe(400);
      expect(res.json().fields, path).toEqual({ 'inner.path': batchPathMessage });
    }
    expect(await snapshot(t.handle)).toBe(before);
    // Even a request reaching /batch with the sub-request mark (as a nested one would) is refused.
    const marked = await t.app.inject({
      method: 'POST',
      url: '/restapi/batch',
      headers: { authorization: `Bearer ${a.customerToken}`, [BATCH_ITEM_HEADER]: '1' },
      payload: { first: del },
    });
    expect(marked.statusCode).toBe(400);
    expect(marked.json()).toMatchObject({ code: 'ERR_VALIDATION', error: batchNestedMessage });
    expect(await snapshot(t.handle)).toBe(before);
    // An encoded unreserved character is only another spelling: the normalised path runs.
    const ok = await batch(a.customerToken, { list: { method: 'GET', path: '/%70olicies' } });
    expect(ok.json().list.status).toBe(200);
  });

  it('caps the answer: the item passing 1 MiB and every later one answer 413, the later ones not run', async () => {
    // The OpenAPI document (a public route, ≈ 0.2 MiB) six times, then a write.
    const docs = Object.fromEntries(
      Array.from({ length: 6 }, (_, i) => [`d${i}`, { method: 'GET', path: '/docs/json' }]),
    );
    const never = { method: 'POST', path: '/policies', parameters: { user_id: a.customerId, name: 'Never' } };
    const res = await batch(a.customerToken, { ...docs, never });
    expect(res.statusCode).toBe(200);
    expect(res.body.length).toBeLessThan(Constants.batchMaxResponseBytes + 4096);
    const out = res.json() as Record<string, { status: number; body: unknown }>;
    const statuses = Object.values(out).map((r) => r.status);
    const served = statuses.indexOf(413);
    // Some documents fit, the one that would pass 1 MiB and everything after it answer 413.
    expect(served).toBeGreaterThan(0);
    expect(served).toBeLessThan(6);
    expect(statuses.slice(0, served).every((s) => s === 200)).toBe(true);
    expect(statuses.slice(served).every((s) => s === 413)).toBe(true);
    const tooLarge = { error: ErrorCatalogue.ERR_BATCH_TOO_LARGE.message, code: 'ERR_BATCH_TOO_LARGE' };
    expect(out.never).toEqual({ status: 413, body: tooLarge });
    const policies = await call(t.app, a.customerToken, 'GET', '/restapi/policies?filter=Never');
    expect(policies.json().total).toBe(0);
  });
});

describe.each(testDialects())('POST /batch counts each item against the caller (issue 30) on %s', (dialect) => {
  const clock = { now: Date.UTC(2025, 5, 15, 12, 0, 0) };
  let app: FastifyInstance;
  let close: () => Promise<void>;
  beforeEach(async () => {
    const t = await createTestApp(dialect);
    // A second app on the same database with a small budget: 150 sub-requests a minute per admin.
    app = await buildApp({
      db: t.handle,
      changes: createChangeFeed(t.handle),
      jwtSecret: randomBytes(32),
      now: () => clock.now,
      batchRate: { entries: 150, perMs: 60_000 },
    });
    close = async () => {
      await app.close();
      await t.close();
    };
  });
  afterEach(async () => {
    await close();
  });

  it('refuses, whole and with Retry-After, a batch the caller’s budget cannot cover', async () => {
    const token = await login(app, ADMIN.email, ADMIN.password);
    const reads = (n: number) =>
      Object.fromEntries(Array.from({ length: n }, (_, i) => [`r${i}`, { method: 'GET', path: '/auth/profile' }]));
    const first = await call(app, token, 'POST', '/restapi/batch', reads(Constants.batchMaxRequests));
    expect(first.statusCode).toBe(200);
    const refused = await call(app, token, 'POST', '/restapi/batch', reads(Constants.batchMaxRequests));
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toEqual({ error: ErrorTexts.tooManyRequests, code: 'ERR_RATE_LIMITED' });
    // 50 left of 150, 50 more come back in 20 s.
    expect(refused.headers['retry-after']).toBe('20');
    expect((await call(app, token, 'POST', '/restapi/batch', reads(50))).statusCode).toBe(200);
    expect((await call(app, token, 'POST', '/restapi/batch', reads(1))).statusCode).toBe(429);
    clock.now += 40_000;
    expect((await call(app, token, 'POST', '/restapi/batch', reads(Constants.batchMaxRequests))).statusCode).toBe(200);
  });
});
