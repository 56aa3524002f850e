import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '@cordon/db';
import { describe, expect, it } from 'vitest';
import { CLI, startCordon } from '../../../e2e/support/cordon.ts';
import { ConfigError, describeConfig, parseTrustProxy, resolveServeConfig } from '../src/config.ts';

const BASE_ENV = { CORDON_UPSTREAM: '127.0.0.1:53' };
const modeOf = (path: string) => statSync(path).mode & 0o777;

describe('trust-proxy and key settings', () => {
  it('parses --trust-proxy like Fastify: false, true, a hop count, or proxy addresses and CIDRs', () => {
    const what = '--trust-proxy / CORDON_TRUST_PROXY';
    expect(parseTrustProxy('false', what)).toBe(false);
    expect(parseTrustProxy('0', what)).toBe(false);
    expect(parseTrustProxy('TRUE', what)).toBe(true);
    expect(parseTrustProxy('2', what)).toBe(2);
    expect(parseTrustProxy('10.0.0.2, 192.168.0.0/16,::1,fd00::/8,loopback', what)).toEqual([
      '10.0.0.2',
      '192.168.0.0/16',
      '::1',
      'fd00::/8',
      'loopback',
    ]);
    for (const bad of ['yes', '10.0.0.0/33', '10.0.0.1/8/2', 'proxy.example', '::1/129']) {
      expect(() => parseTrustProxy(bad, what), bad).toThrow(ConfigError);
      expect(() => parseTrustProxy(bad, what), bad).toThrow(/--trust-proxy \/ CORDON_TRUST_PROXY/);
    }
  });

  it('defaults to no trusted proxy and the key file in the data directory; the variable wins', () => {
    const c = resolveServeConfig({ dataDir: '/srv/cordon' }, BASE_ENV);
    expect(c.trustProxy).toBe(false);
    expect(c.jwtKeyFile).toBe('/srv/cordon/jwt.key');
    expect(c.jwtKey).toBeUndefined();
    const key = randomBytes(32).toString('base64url');
    const fromEnv = resolveServeConfig(
      { trustProxy: '127.0.0.1' },
      { ...BASE_ENV, CORDON_JWT_KEY_FILE: '/etc/cordon/jwt.key', CORDON_JWT_KEY: key },
    );
    expect(fromEnv.trustProxy).toEqual(['127.0.0.1']);
    expect(fromEnv.jwtKeyFile).toBe('/etc/cordon/jwt.key');
    expect(fromEnv.jwtKey).toBe(key);
    const line = describeConfig(fromEnv, 'x');
    expect(line).toContain('trust_proxy=127.0.0.1');
    expect(line).toContain('jwt_key=CORDON_JWT_KEY');
    expect(line).not.toContain(key);
  });
});

/** The HTTP port of a running `cordon serve`, from its boot line. */
function httpPort(output: string[]): number {
  const line = output.find((l) => l.startsWith('cordon serving:')) ?? '';
  return Number(/ http=[^ ]*:(\d+) /.exec(line)?.[1]);
}

/** Logs in over HTTP; returns the access token. */
async function loginOverHttp(port: number, email: string, password: string): Promise<string> {
  const verifier = randomBytes(64).toString('hex');
  const query = new URLSearchParams({
    client_id: '2',
    response_type: 'code',
    redirect_uri: 'http://localhost/cb',
    state: randomBytes(20).toString('hex'),
    code_verifier: verifier,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
  });
  const res = await fetch(`http://127.0.0.1:${port}/restapi/oauth/authorize?${query}`, {
    headers: { authorization: `Basic ${Buffer.from(`${email}:${password}`).toString('base64')}` },
  });
  if (res.status !== 200) throw new Error(`login: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { access_token: string }).access_token;
}

describe('cordon serve secrets at rest (docs/security.md)', () => {
  it('makes a fresh data directory private and keeps the signing key in a 0600 file across restarts', async () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), 'cordon-secrets-')), 'data');
    const env = {
      ...BASE_ENV,
      CORDON_DATA_DIR: dataDir,
      CORDON_ROLES: 'api',
      CORDON_HTTP_ADDR: '127.0.0.1:0',
      CORDON_ADMIN_EMAIL: 'root@cordon.test',
      CORDON_ADMIN_PASSWORD: 'Sup3r-secret',
    };
    const first = await startCordon(env, 60_000, CLI);
    let token: string;
    try {
      expect(first.output.join('\n')).toContain(`access-token signing key created in ${join(dataDir, 'jwt.key')}`);
      token = await loginOverHttp(httpPort(first.output), 'root@cordon.test', 'Sup3r-secret');
      expect(modeOf(dataDir)).toBe(0o700);
      expect(first.output.join('\n')).toContain(`root CA secret created in ${join(dataDir, 'ca.key-secret')}`);
      for (const file of ['cordon.sqlite', 'cordon.sqlite-wal', 'cordon.sqlite-shm', 'jwt.key', 'ca.key-secret']) {
        expect(existsSync(join(dataDir, file)), file).toBe(true);
        expect(modeOf(join(dataDir, file)), file).toBe(0o600);
      }
    } finally {
      await first.stop();
    }
    const handle = openDatabase({ sqlitePath: join(dataDir, 'cordon.sqlite') });
    try {
      const settings = await handle.db.selectFrom('settings').select('key').execute();
      expect(settings.map((s) => s.key)).not.toContain('jwt_secret');
      // The root CA's key is in the database only sealed (docs/decisions.md "Root CA").
      const ca = await handle.db.selectFrom('root_ca').selectAll().executeTakeFirstOrThrow();
      expect(ca.key_sealed).not.toContain('PRIVATE KEY');
    } finally {
      await handle.close();
    }
    // A restart reads the same key: the token issued before still works.
    const second = await startCordon(env, 60_000, CLI);
    try {
      expect(second.output.join('\n')).not.toContain('signing key created');
      expect(second.output.join('\n')).not.toContain('root CA secret created');
      const res = await fetch(`http://127.0.0.1:${httpPort(second.output)}/restapi/msp`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('no-store');
    } finally {
      await second.stop();
    }
  }, 120_000);

  it('takes the keys from CORDON_JWT_KEY without writing a key file', async () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), 'cordon-secrets-')), 'data');
    const cordon = await startCordon(
      {
        ...BASE_ENV,
        CORDON_DATA_DIR: dataDir,
        CORDON_ROLES: 'api',
        CORDON_HTTP_ADDR: '127.0.0.1:0',
        CORDON_ADMIN_EMAIL: 'root@cordon.test',
        CORDON_ADMIN_PASSWORD: 'Sup3r-secret',
        CORDON_JWT_KEY: randomBytes(32).toString('base64url'),
        CORDON_CA_SECRET: randomBytes(32).toString('base64url'),
      },
      60_000,
      CLI,
    );
    try {
      expect(await loginOverHttp(httpPort(cordon.output), 'root@cordon.test', 'Sup3r-secret')).toMatch(/\./);
      expect(existsSync(join(dataDir, 'jwt.key'))).toBe(false);
      expect(existsSync(join(dataDir, 'ca.key-secret'))).toBe(false);
    } finally {
      await cordon.stop();
    }
  }, 120_000);
});
