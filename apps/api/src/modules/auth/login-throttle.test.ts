import { randomBytes } from 'node:crypto';
import { createChangeFeed, type DatabaseHandle } from '@cordon/db';
import { createTestDatabase, testDialects } from '@cordon/db/testing';
import { ErrorTexts } from '@cordon/shared';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ADMIN, authorizeQuery, basic } from '../../../test/helpers.ts';
import { type AppOptions, buildApp, ensureSystemAdmin } from '../../index.ts';
import { clientKey, LOGIN_THROTTLE, type LoginThrottleLimits, throttleDelayMs } from '../../lib/limiter.ts';

const WRONG = 'Wr0ng-password';
const ATTACKER = '198.51.100.7';
const OWNER = '203.0.113.5';

describe('login throttle keys and delays', () => {
  it('keys IPv4 by address, IPv6 by /64, and IPv4-mapped IPv6 as IPv4', () => {
    expect(clientKey('192.0.2.1')).toBe('192.0.2.1');
    expect(clientKey('2001:db8:1:2:3:4:5:6')).toBe('2001:db8:1:2::/64');
    expect(clientKey('2001:db8:1:2::9')).toBe(clientKey('2001:db8:1:2:ffff:ffff:ffff:ffff'));
    expect(clientKey('2001:db8:1:3::9')).not.toBe(clientKey('2001:db8:1:2::9'));
    expect(clientKey('::ffff:192.0.2.7')).toBe('192.0.2.7');
    expect(clientKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
  });

  it('grows the delay as 2^n seconds from the free failures on, capped at 15 minutes', () => {
    const rule = LOGIN_THROTTLE.accountClient;
    expect([4, 5, 6, 7].map((f) => throttleDelayMs(rule, f))).toEqual([0, 2000, 4000, 8000]);
    expect(throttleDelayMs(rule, 14)).toBe(15 * 60_000);
    expect(throttleDelayMs(rule, 1000)).toBe(15 * 60_000);
  });
});

describe.each(testDialects())('login throttling on %s', (dialect) => {
  let handle: DatabaseHandle;
  const clock = { now: Date.UTC(2025, 5, 15, 12, 0, 0) };
  const apps: FastifyInstance[] = [];

  /** An app on the shared test database (each with its own throttle object: only the table is shared). */
  async function app(opts: Partial<AppOptions> = {}): Promise<FastifyInstance> {
    const built = await buildApp({
      db: handle,
      changes: createChangeFeed(handle),
      jwtSecret: randomBytes(32),
      now: () => clock.now,
      ...opts,
    });
    apps.push(built);
    return built;
  }

  /** One login attempt from `remoteAddress`, with extra headers (X-Forwarded-For). */
  function attempt(
    a: FastifyInstance,
    password: string,
    remoteAddress: string,
    headers: Record<string, string> = {},
    email: string = ADMIN.email,
  ) {
    return a.inject({
      method: 'GET',
      url: '/restapi/oauth/authorize',
      query: authorizeQuery(),
      remoteAddress,
      headers: { authorization: basic(email, password), ...headers },
    });
  }

  beforeEach(async () => {
    clock.now = Date.UTC(2025, 5, 15, 12, 0, 0);
    handle = await createTestDatabase(dialect);
    await ensureSystemAdmin(handle, { email: ADMIN.email, password: ADMIN.password });
  });
  afterEach(async () => {
    for (const a of apps.splice(0)) await a.close();
    await handle.close();
  });

  it('throttles a guessing client with a growing Retry-After while the owner logs in from another address', async () => {
    const a = await app();
    for (let i = 0; i < 5; i++) expect((await attempt(a, WRONG, ATTACKER)).statusCode).toBe(401);
    const retries: number[] = [];
    for (let round = 0; round < 11; round++) {
      const refused = await attempt(a, WRONG, ATTACKER);
      expect(refused.statusCode).toBe(429);
      expect(refused.json()).toEqual({ error: ErrorTexts.tooManyRequests, code: 'ERR_RATE_LIMITED' });
      const retryAfter = Number(refused.headers['retry-after']);
      retries.push(retryAfter);
      // While throttled even the right password is not checked from there...
      expect((await attempt(a, ADMIN.password, ATTACKER)).statusCode).toBe(429);
      // ...but the owner, on another address, is not locked out.
      expect((await attempt(a, ADMIN.password, OWNER)).statusCode).toBe(200);
      clock.now += retryAfter * 1000;
      expect((await attempt(a, WRONG, ATTACKER)).statusCode).toBe(401);
    }
    expect(retries).toEqual([2, 4, 8, 16, 32, 64, 128, 256, 512, 900, 900]);
    // 16 wrong passwords from the attacker so far; the account itself is not locked.
    expect((await attempt(a, ADMIN.password, OWNER)).statusCode).toBe(200);
  });

  it('resets the account-from-client counter on a successful login', async () => {
    const a = await app();
    for (let i = 0; i < 4; i++) expect((await attempt(a, WRONG, OWNER)).statusCode).toBe(401);
    expect((await attempt(a, ADMIN.password, OWNER)).statusCode).toBe(200);
    for (let i = 0; i < 5; i++) expect((await attempt(a, WRONG, OWNER)).statusCode).toBe(401);
    expect((await attempt(a, ADMIN.password, OWNER)).statusCode).toBe(429);
  });

  it('shares the counters between two API instances on the same database', async () => {
    const first = await app();
    const second = await app();
    for (let i = 0; i < 3; i++) expect((await attempt(first, WRONG, ATTACKER)).statusCode).toBe(401);
    for (let i = 0; i < 2; i++) expect((await attempt(second, WRONG, ATTACKER)).statusCode).toBe(401);
    const refused = await attempt(first, ADMIN.password, ATTACKER);
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toBe('2');
    expect((await attempt(second, ADMIN.password, ATTACKER)).statusCode).toBe(429);
    expect((await attempt(second, ADMIN.password, OWNER)).statusCode).toBe(200);
  });

  it('counts 100 parallel wrong passwords atomically: five are checked, 95 refused (issue 30)', async () => {
    const a = await app();
    const answers = await Promise.all(Array.from({ length: 100 }, () => attempt(a, WRONG, ATTACKER)));
    const statuses = answers.map((r) => r.statusCode);
    expect(statuses.filter((s) => s === 401)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(95);
    // The five checked attempts are the five free failures; the refused ones were not counted.
    const failures = await handle.db.selectFrom('login_throttle').select('failures').execute();
    expect(failures.map((r) => Number(r.failures)).sort()).toEqual([5, 5, 5]);
    expect((await attempt(a, ADMIN.password, ATTACKER)).statusCode).toBe(429);
    expect((await attempt(a, ADMIN.password, OWNER)).statusCode).toBe(200);
  });

  it('holds the count across two API instances guessing in parallel on one database (issue 30)', async () => {
    const first = await app();
    const second = await app();
    const answers = await Promise.all(
      Array.from({ length: 60 }, (_, i) => attempt(i % 2 === 0 ? first : second, WRONG, ATTACKER)),
    );
    expect(answers.filter((r) => r.statusCode === 401)).toHaveLength(5);
    expect(answers.filter((r) => r.statusCode === 429)).toHaveLength(55);
    // Past the delay, one more guess is checked and the next waits twice as long.
    clock.now += 2000;
    const next = await Promise.all([attempt(first, WRONG, ATTACKER), attempt(second, WRONG, ATTACKER)]);
    expect(next.map((r) => r.statusCode).sort()).toEqual([401, 429]);
    expect(next.find((r) => r.statusCode === 429)?.headers['retry-after']).toBe('4');
  });

  it('does not count the right password answered by a second-factor step, nor a refused attempt', async () => {
    const a = await app();
    for (let i = 0; i < 4; i++) expect((await attempt(a, WRONG, ATTACKER)).statusCode).toBe(401);
    // A malformed PKCE pair is not a guess: it does not use up the fifth free failure.
    const bad = await a.inject({
      method: 'GET',
      url: '/restapi/oauth/authorize',
      query: { ...authorizeQuery(), code_challenge: 'x'.repeat(43) },
      remoteAddress: ATTACKER,
      headers: { authorization: basic(ADMIN.email, WRONG) },
    });
    expect(bad.statusCode).toBe(400);
    expect((await attempt(a, WRONG, ATTACKER)).statusCode).toBe(401);
    expect((await attempt(a, ADMIN.password, ATTACKER)).statusCode).toBe(429);
  });

  it('keys IPv6 clients by /64 behind a trusted proxy', async () => {
    const a = await app({ trustProxy: true });
    const proxy = '10.0.0.2';
    for (let i = 1; i <= 5; i++) {
      const res = await attempt(a, WRONG, proxy, { 'x-forwarded-for': `2001:db8:1:2::${i.toString(16)}` });
      expect(res.statusCode).toBe(401);
    }
    // Another address of the same /64 is the same client...
    const same = await attempt(a, ADMIN.password, proxy, { 'x-forwarded-for': '2001:db8:1:2:ffff:1:2:3' });
    expect(same.statusCode).toBe(429);
    // ...another /64 and another IPv4 client behind the same proxy are not.
    expect((await attempt(a, WRONG, proxy, { 'x-forwarded-for': '2001:db8:1:3::1' })).statusCode).toBe(401);
    expect((await attempt(a, ADMIN.password, proxy, { 'x-forwarded-for': OWNER })).statusCode).toBe(200);
  });

  it('trusts only the configured proxies: a list of addresses or a hop count', async () => {
    const listed = await app({ trustProxy: ['10.0.0.2'] });
    for (let i = 0; i < 5; i++) {
      expect((await attempt(listed, WRONG, '10.0.0.2', { 'x-forwarded-for': ATTACKER })).statusCode).toBe(401);
    }
    expect((await attempt(listed, ADMIN.password, '10.0.0.2', { 'x-forwarded-for': ATTACKER })).statusCode).toBe(429);
    expect((await attempt(listed, ADMIN.password, '10.0.0.2', { 'x-forwarded-for': OWNER })).statusCode).toBe(200);
    // A peer that is not a listed proxy is itself the client, whatever its header says.
    expect((await attempt(listed, ADMIN.password, OWNER, { 'x-forwarded-for': ATTACKER })).statusCode).toBe(200);
    const hops = await app({ trustProxy: 1 });
    expect((await attempt(hops, ADMIN.password, '10.0.0.9', { 'x-forwarded-for': ATTACKER })).statusCode).toBe(429);
  });

  it('ignores X-Forwarded-For with trust-proxy off (the default)', async () => {
    const a = await app();
    for (let i = 0; i < 5; i++) {
      const res = await attempt(a, WRONG, ATTACKER, { 'x-forwarded-for': `192.0.2.${i + 1}` });
      expect(res.statusCode).toBe(401);
    }
    // Rotating the header did not make five clients out of one socket address.
    expect((await attempt(a, ADMIN.password, ATTACKER, { 'x-forwarded-for': OWNER })).statusCode).toBe(429);
    // Nor can a header make the owner look like the attacker.
    expect((await attempt(a, ADMIN.password, OWNER, { 'x-forwarded-for': ATTACKER })).statusCode).toBe(200);
  });

  it('slows a distributed guesser per account, except for clients the account logged in from', async () => {
    const limits: LoginThrottleLimits = {
      ...LOGIN_THROTTLE,
      account: { ...LOGIN_THROTTLE.account, free: 6 },
    };
    const a = await app({ loginThrottle: limits });
    expect((await attempt(a, ADMIN.password, OWNER)).statusCode).toBe(200);
    for (let i = 1; i <= 6; i++) expect((await attempt(a, WRONG, `198.51.100.${i}`)).statusCode).toBe(401);
    // Each source failed once only, yet the account as a whole is now slowed for unknown clients...
    const fresh = await attempt(a, ADMIN.password, '198.51.100.200');
    expect(fresh.statusCode).toBe(429);
    expect(fresh.headers['retry-after']).toBe('2');
    // ...while its owner's known client still gets in, and other accounts are untouched.
    expect((await attempt(a, ADMIN.password, OWNER)).statusCode).toBe(200);
    expect((await attempt(a, WRONG, '198.51.100.200', {}, 'other@cordon.test')).statusCode).toBe(401);
    clock.now += 2000;
    expect((await attempt(a, ADMIN.password, '198.51.100.200')).statusCode).toBe(200);
  });

  it('slows one client guessing across many accounts', async () => {
    const limits: LoginThrottleLimits = { ...LOGIN_THROTTLE, client: { ...LOGIN_THROTTLE.client, free: 6 } };
    const a = await app({ loginThrottle: limits });
    for (let i = 1; i <= 6; i++) {
      expect((await attempt(a, WRONG, ATTACKER, {}, `user${i}@cordon.test`)).statusCode).toBe(401);
    }
    expect((await attempt(a, ADMIN.password, ATTACKER)).statusCode).toBe(429);
    expect((await attempt(a, ADMIN.password, OWNER)).statusCode).toBe(200);
  });

  it('stores no e-mail or address in clear and forgets stale rows', async () => {
    const a = await app();
    await attempt(a, WRONG, ATTACKER, {}, 'typo-Sup3r-secret@cordon.test');
    const rows = await handle.db.selectFrom('login_throttle').selectAll().execute();
    expect(rows).toHaveLength(3);
    expect(JSON.stringify(rows)).not.toMatch(/typo|Sup3r|198\.51/);
    // A day and a minute later the next failure sweeps the old rows.
    clock.now += 24 * 3600_000 + 60_000;
    await attempt(a, WRONG, OWNER, {}, 'someone@cordon.test');
    expect(await handle.db.selectFrom('login_throttle').selectAll().execute()).toHaveLength(3);
  });
});
