/**
 * The API while PostgreSQL is away (issue 30; docs/operations.md "When the database goes away";
 * docs/api.md "Conventions"): every route that needs the database answers 503 `ERR_UNAVAILABLE`
 * with `Retry-After`, never 500, and the app answers again by itself when the database returns —
 * its connection cut by a loopback proxy, or terminated by the server (`pg_terminate_backend`).
 */
import { randomBytes } from 'node:crypto';
import { createChangeFeed, type DatabaseHandle, openDatabase } from '@cordon/db';
import { createTestDatabase } from '@cordon/db/testing';
import { createSecretBox } from '@cordon/pki';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type PgProxy, pgTarget, startPgProxy, throughProxy } from '../../../packages/db/test/helpers/pg-proxy.ts';
import { buildApp, ensureSystemAdmin } from '../src/index.ts';
import { ADMIN, authorize, login } from './helpers.ts';

const PG = process.env.CORDON_TEST_DATABASE_URL;

const UNAVAILABLE = {
  code: 'ERR_UNAVAILABLE',
  error: 'Service unavailable: the database cannot be reached. Please try again shortly.',
};

describe.runIf(PG)('the API while PostgreSQL is away', () => {
  let base: DatabaseHandle;
  let handle: DatabaseHandle;
  let proxy: PgProxy;
  let app: FastifyInstance;
  let token = '';
  const name = `cordon_api_${randomBytes(4).toString('hex')}`;

  const profile = () =>
    app.inject({ method: 'GET', url: '/restapi/auth/profile', headers: { authorization: `Bearer ${token}` } });

  beforeEach(async () => {
    base = await createTestDatabase('postgres');
    await ensureSystemAdmin(base, { email: ADMIN.email, password: ADMIN.password });
    const schema = /search_path=(\S+)/.exec(String(base.pgPool?.options.options))![1]!;
    proxy = await startPgProxy(pgTarget(PG!));
    handle = openDatabase({ url: throughProxy(PG!, proxy, name), pgSchema: schema, pgPoolSize: 3 });
    app = await buildApp({
      db: handle,
      changes: createChangeFeed(handle),
      jwtSecret: new Uint8Array(randomBytes(32)),
      secrets: createSecretBox(randomBytes(32)),
    });
    await app.ready();
    token = await login(app, ADMIN.email, ADMIN.password);
  });
  afterEach(async () => {
    await app.close();
    await handle.close();
    await proxy.close();
    await base.close();
  });

  it('answers 503 ERR_UNAVAILABLE with Retry-After while the connection is cut, then 200 by itself', async () => {
    expect((await profile()).statusCode).toBe(200);
    await proxy.cut();
    for (const res of [
      await profile(),
      await authorize(app, ADMIN.email, ADMIN.password),
      await app.inject({
        method: 'POST',
        url: '/restapi/msp',
        headers: { authorization: `Bearer ${token}` },
        payload: { name: 'Down MSP', company_name: 'Down Ltd' },
      }),
    ]) {
      expect({ status: res.statusCode, retryAfter: res.headers['retry-after'], body: res.json() }).toEqual({
        status: 503,
        retryAfter: '5',
        body: UNAVAILABLE,
      });
    }
    await proxy.restore();
    expect((await profile()).statusCode).toBe(200);
    expect((await authorize(app, ADMIN.email, ADMIN.password)).statusCode).toBe(200);
  });

  it('answers 200 or 503, never 500, when the server terminates its connections, and 200 after', async () => {
    expect((await profile()).statusCode).toBe(200);
    const terminated = await base.pgPool!.query<{ n: number }>(
      'select count(pg_terminate_backend(pid))::int as n from pg_stat_activity where application_name = $1',
      [name],
    );
    expect(terminated.rows[0]!.n).toBeGreaterThan(0);
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await profile()).statusCode);
    expect(statuses.filter((s) => s !== 200 && s !== 503)).toEqual([]);
    await expect.poll(async () => (await profile()).statusCode, { timeout: 10_000 }).toBe(200);
    expect((await authorize(app, ADMIN.email, ADMIN.password)).statusCode).toBe(200);
  });
});
