/**
 * `cordon config check` (docs/operations.md "Configuration check and reload"): what it finds in the
 * settings and files, without starting anything or creating a file. Certificates are made by
 * openssl; their validity is checked against an injected clock.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCordon } from '../../../e2e/support/cordon.ts';
import { checkConfig } from '../src/commands/config-check.ts';
import { selfSigned } from './helpers/serve-test.ts';

describe('cordon config check', () => {
  let dir: string;
  let dataDir: string;
  let good: { cert: string; key: string };
  let other: { cert: string; key: string };
  /** The pair's file names, as the settings take them. */
  const files = (p: ReturnType<typeof selfSigned>) => ({ cert: p.certFile, key: p.keyFile });
  const base = () => ({ CORDON_DATA_DIR: dataDir, CORDON_UPSTREAM: '127.0.0.1:53' });
  const levels = (findings: { level: string; check: string }[]) =>
    Object.fromEntries(findings.map((f) => [f.check, f.level]));

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'cordon-config-check-'));
    dataDir = join(dir, 'data');
    good = files(selfSigned(dir, 'dns', 90));
    other = files(selfSigned(dir, 'other', 90));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('passes a fresh configuration and creates nothing', async () => {
    const { findings } = await checkConfig({}, base());
    expect(findings.filter((f) => f.level === 'error')).toEqual([]);
    expect(findings.find((f) => f.check === 'access-token keys')?.detail).toMatch(/created at first start/);
    expect(existsSync(dataDir)).toBe(false);
  });

  it('reports a bad value as the one error, with the flag and variable', async () => {
    const { findings, config } = await checkConfig({}, { ...base(), CORDON_RRL_RATE: 'lots' });
    expect(config).toBeNull();
    expect(findings).toEqual([
      { level: 'error', check: 'settings', detail: expect.stringContaining('--rrl-rate / CORDON_RRL_RATE') },
    ]);
  });

  it('checks the DoH/DoT pair: matching, the key of another certificate, one file alone', async () => {
    const env = { ...base(), CORDON_DOH_ADDR: '127.0.0.1:8053' };
    const ok = await checkConfig({}, { ...env, CORDON_DOH_CERT: good.cert, CORDON_DOH_KEY: good.key });
    expect(levels(ok.findings)['DoH/DoT certificate']).toBe('ok');
    expect(ok.findings.find((f) => f.check === 'DoH/DoT certificate')?.detail).toMatch(
      /CN=dns\.example, valid (89|90) more days/,
    );
    const mismatch = await checkConfig({}, { ...env, CORDON_DOH_CERT: good.cert, CORDON_DOH_KEY: other.key });
    expect(mismatch.findings.find((f) => f.check === 'DoH/DoT certificate')).toEqual({
      level: 'error',
      check: 'DoH/DoT certificate',
      detail: `${other.key} is not the key of ${good.cert}`,
    });
    const notPem = await checkConfig({}, { ...env, CORDON_DOH_CERT: good.key, CORDON_DOH_KEY: good.key });
    expect(notPem.findings.find((f) => f.check === 'DoH/DoT certificate')?.detail).toMatch(/not a PEM certificate/);
  });

  it('warns of a certificate expiring within 30 days and refuses an expired one (clock injected)', async () => {
    const env = { ...base(), CORDON_DOH_CERT: good.cert, CORDON_DOH_KEY: good.key };
    const day = 86_400_000;
    const soon = await checkConfig({}, env, Date.now() + 80 * day);
    expect(soon.findings.find((f) => f.check === 'DoH/DoT certificate')?.level).toBe('warn');
    const expired = await checkConfig({}, env, Date.now() + 100 * day);
    expect(expired.findings.find((f) => f.check === 'DoH/DoT certificate')?.detail).toMatch(/is not valid now/);
  });

  it('refuses key files others can read, and a short CA secret', async () => {
    const data = join(dir, 'keys');
    execFileSync('mkdir', ['-p', data]);
    const jwt = join(data, 'jwt.key');
    writeFileSync(jwt, `${'k'.repeat(43)}\n`, { mode: 0o644 });
    chmodSync(jwt, 0o644);
    const secret = join(data, 'ca.key-secret');
    writeFileSync(secret, 'short\n', { mode: 0o600 });
    const { findings } = await checkConfig({}, { ...base(), CORDON_DATA_DIR: data });
    expect(findings.find((f) => f.check === 'access-token keys')?.detail).toBe(
      `${jwt} is readable by others (mode 644): chmod 600 ${jwt}`,
    );
    expect(findings.find((f) => f.check === 'CA secret')).toEqual({
      level: 'error',
      check: 'CA secret',
      detail: `${secret}: shorter than 32 characters`,
    });
    expect(readdirSync(data).sort()).toEqual(['ca.key-secret', 'jwt.key']);
  });

  it('exits 0 on a good configuration and 1 on a bad one', async () => {
    const fine = await runCordon(['config', 'check'], base());
    expect(fine.code).toBe(0);
    expect(fine.output.at(-1)).toBe('configuration ok');
    const bad = await runCordon(['config', 'check', '--dns-addr', 'nope'], base());
    expect(bad.code).toBe(1);
    expect(bad.output.join('\n')).toContain('error settings: --dns-addr / CORDON_DNS_ADDR');
  });
});
