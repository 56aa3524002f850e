import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createChangeFeed, type DatabaseHandle } from '@cordon/db';
import { createTestDatabase, testDialects } from '@cordon/db/testing';
import type { FastifyInstance } from 'fastify';
import { SignJWT } from 'jose';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ADMIN, call, claimsOf, login } from '../../../test/helpers.ts';
import { buildApp, ensureSystemAdmin, jwtKeyRing, loadJwtKeyRing, parseJwtKeys } from '../../index.ts';
import { kidOf } from './keys.ts';

const HOUR = 3600;

describe('access-token key files (docs/security.md)', () => {
  const dir = () => mkdtempSync(join(tmpdir(), 'cordon-keys-'));

  it('creates the key file 0600 with one random key on first start, and reads the same key after', () => {
    const file = join(dir(), 'data', 'jwt.key');
    const first = loadJwtKeyRing({ file });
    expect(first.created).toBe(true);
    expect(first.source).toBe('file');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(first.ring.signing.secret.byteLength).toBe(32);
    const again = loadJwtKeyRing({ file });
    expect(again.created).toBe(false);
    expect(again.ring.signing.kid).toBe(first.ring.signing.kid);
    expect(Buffer.from(again.ring.signing.secret)).toEqual(Buffer.from(first.ring.signing.secret));
  });

  it('reads several keys, the first signing, all verifying; CORDON_JWT_KEY wins over the file', () => {
    const a = randomBytes(32).toString('base64url');
    const b = randomBytes(48).toString('base64');
    const file = join(dir(), 'jwt.key');
    writeFileSync(file, `# rotated\n${a}\n\n${b}\n`);
    const { ring } = loadJwtKeyRing({ file });
    expect(ring.byKid.size).toBe(2);
    expect(ring.signing.kid).toBe(kidOf(Buffer.from(a, 'base64url')));
    const fromEnv = loadJwtKeyRing({ file, keys: `${b},${a}` });
    expect(fromEnv.source).toBe('env');
    expect(fromEnv.ring.signing.kid).toBe(kidOf(Buffer.from(b, 'base64')));
  });

  it('refuses a short, malformed or missing key with a message naming its source', () => {
    expect(() => parseJwtKeys(randomBytes(16).toString('base64url'), 'CORDON_JWT_KEY')).toThrow(
      /CORDON_JWT_KEY: a key holds 16 bytes; at least 32/,
    );
    expect(() => parseJwtKeys(`${'k'.repeat(43)}!`, '/x/jwt.key')).toThrow(/\/x\/jwt.key: a key is not base64url/);
    expect(() => parseJwtKeys('# only a comment\n', '/x/jwt.key')).toThrow(/no key found/);
    expect(() => jwtKeyRing([new Uint8Array(31)])).toThrow(/at least 32 bytes/);
  });
});

describe.each(testDialects())('access tokens on %s', (dialect) => {
  let handle: DatabaseHandle;
  let app: FastifyInstance;
  const clock = { now: Date.UTC(2025, 5, 15, 12, 0, 0) };
  const key = randomBytes(32);
  const nowS = () => Math.floor(clock.now / 1000);

  /** A token signed with the app's real key, with the real claims of `template` and `overrides`. */
  function forge(template: string, claims: Record<string, unknown>, header: Record<string, unknown> = {}) {
    const { iat, exp, ...rest } = { ...claimsOf(template), ...claims } as Record<string, unknown>;
    return new SignJWT(rest)
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT', kid: kidOf(key), ...header })
      .setIssuedAt(iat as number)
      .setExpirationTime(exp as number)
      .sign(key);
  }

  beforeEach(async () => {
    clock.now = Date.UTC(2025, 5, 15, 12, 0, 0);
    handle = await createTestDatabase(dialect);
    await ensureSystemAdmin(handle, { email: ADMIN.email, password: ADMIN.password });
    app = await buildApp({ db: handle, changes: createChangeFeed(handle), jwtSecret: key, now: () => clock.now });
  });
  afterEach(async () => {
    await app.close();
    await handle.close();
  });

  it('signs with a kid and accepts its own tokens', async () => {
    const token = await login(app, ADMIN.email, ADMIN.password);
    const header = JSON.parse(Buffer.from(token.split('.')[0] ?? '', 'base64url').toString());
    expect(header).toEqual({ alg: 'HS256', typ: 'JWT', kid: kidOf(key) });
    expect((await call(app, token, 'GET', '/restapi/msp')).statusCode).toBe(200);
    // A forged copy with the same claims is accepted too: the forging below is faithful.
    expect((await call(app, await forge(token, {}), 'GET', '/restapi/msp')).statusCode).toBe(200);
  });

  it('refuses tokens signed with the real key whose iat or lifetime are out of bounds', async () => {
    const token = await login(app, ADMIN.email, ADMIN.password);
    const tenYears = 10 * 365 * 24 * HOUR;
    const cases: Array<[string, Record<string, unknown>]> = [
      ['10-year exp, future iat', { iat: nowS() + tenYears - HOUR, exp: nowS() + tenYears }],
      ['10-year exp, iat now', { iat: nowS(), exp: nowS() + tenYears }],
      ['iat one hour ahead', { iat: nowS() + HOUR, exp: nowS() + 2 * HOUR }],
      ['iat older than 12 h, exp ahead', { iat: nowS() - 13 * HOUR, exp: nowS() + HOUR }],
      ['lifetime 12 h + 1 s', { iat: nowS() - 10, exp: nowS() + 12 * HOUR - 9 }],
      ['expired', { iat: nowS() - 12 * HOUR, exp: nowS() }],
    ];
    for (const [name, claims] of cases) {
      const res = await call(app, await forge(token, claims), 'GET', '/restapi/msp');
      expect(res.statusCode, name).toBe(401);
      expect(res.json().code, name).toBe('ERR_UNAUTHENTICATED');
    }
    // A few seconds of clock difference between API processes is tolerated on iat.
    const skewed = await forge(token, { iat: nowS() + 5, exp: nowS() + 5 + 12 * HOUR });
    expect((await call(app, skewed, 'GET', '/restapi/msp')).statusCode).toBe(200);
  });

  it('refuses tokens without a kid or with an unknown kid', async () => {
    const token = await login(app, ADMIN.email, ADMIN.password);
    const noKid = await new SignJWT({ ...claimsOf(token) }).setProtectedHeader({ alg: 'HS256' }).sign(key);
    expect((await call(app, noKid, 'GET', '/restapi/msp')).statusCode).toBe(401);
    const otherKid = await forge(token, {}, { kid: 'AAAAAAAAAAAAAAAA' });
    expect((await call(app, otherKid, 'GET', '/restapi/msp')).statusCode).toBe(401);
  });

  it('rotates: a ring with a new first key signs with it and still verifies the old key until it is removed', async () => {
    const oldToken = await login(app, ADMIN.email, ADMIN.password);
    const newKey = randomBytes(32);
    const rotated = await buildApp({
      db: handle,
      changes: createChangeFeed(handle),
      jwtKeys: jwtKeyRing([newKey, key]),
      now: () => clock.now,
    });
    const retired = await buildApp({
      db: handle,
      changes: createChangeFeed(handle),
      jwtKeys: jwtKeyRing([newKey]),
      now: () => clock.now,
    });
    try {
      expect((await call(rotated, oldToken, 'GET', '/restapi/msp')).statusCode).toBe(200);
      const newToken = await login(rotated, ADMIN.email, ADMIN.password);
      expect(JSON.parse(Buffer.from(newToken.split('.')[0] ?? '', 'base64url').toString()).kid).toBe(kidOf(newKey));
      expect((await call(retired, newToken, 'GET', '/restapi/msp')).statusCode).toBe(200);
      expect((await call(retired, oldToken, 'GET', '/restapi/msp')).statusCode).toBe(401);
    } finally {
      await rotated.close();
      await retired.close();
    }
  });

  it('keeps no signing key in the database', async () => {
    await login(app, ADMIN.email, ADMIN.password);
    const rows = await handle.db.selectFrom('settings').select('key').execute();
    expect(rows.map((r) => r.key)).not.toContain('jwt_secret');
  });
});

describe('key file on a fresh data directory', () => {
  it('is created next to nothing else readable', () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), 'cordon-keys-')), 'data');
    const { ring } = loadJwtKeyRing({ file: join(dataDir, 'jwt.key') });
    expect(existsSync(dataDir)).toBe(true);
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    expect(readFileSync(join(dataDir, 'jwt.key'), 'utf8')).toContain(
      Buffer.from(ring.signing.secret).toString('base64url'),
    );
  });
});
