/**
 * Structured logs (docs/operations.md "Logs"): everything `cordon serve` writes besides its few plain
 * status lines is one JSON object per line with a level, a time, a message and the role that logged
 * it; a slow API request is logged with the request id its answer carries; and no secret — a
 * password, an access token, the key files' contents — appears in any line, at the debug level.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiLogin } from '../../../e2e/support/api.ts';
import { CLI, type CordonProcess, startCordon } from '../../../e2e/support/cordon.ts';
import { type FakeUpstream, startFakeUpstream } from '../../resolver/test/helpers/fake-upstream.ts';
import { bootPort, loopbackServeEnv } from './helpers/serve-test.ts';

const ADMIN = { email: 'root@logs.test', password: 'Adm1n-Secret-Pass' };
const SECRETS = {
  mspAdminPassword: 'Msp-Secret-Pass-7',
  smtpPassword: 'Smtp-Secret-Pass-42',
  wrongPassword: 'Wrong-Secret-Pass-99',
};
/** The plain lines `cordon serve` prints on purpose (boot, first run, signals). */
const PLAIN = /^(cordon serving:|First run:|cordon: )/;

describe('cordon serve logs', () => {
  let dataDir: string;
  let upstream: FakeUpstream;
  let cordon: CordonProcess;
  let http: number;

  beforeAll(async () => {
    upstream = await startFakeUpstream();
    dataDir = mkdtempSync(join(tmpdir(), 'cordon-logs-'));
    cordon = await startCordon(
      {
        ...loopbackServeEnv(dataDir, upstream.port, ADMIN),
        CORDON_LOG_LEVEL: 'debug',
        // Every request counts as slow: each one is logged with its id.
        CORDON_SLOW_REQUEST_MS: '0',
      },
      90_000,
      CLI,
    );
    http = bootPort(cordon, 'http');
  }, 120_000);
  afterAll(async () => {
    await cordon?.stop();
    await upstream?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('logs JSON lines with a role, the slow request with its id, and no secret', async () => {
    const admin = await apiLogin(http, ADMIN.email, ADMIN.password);
    const wrong = await fetch(`http://127.0.0.1:${http}/restapi/oauth/authorize?client_id=2&response_type=code`, {
      headers: { authorization: `Basic ${Buffer.from(`${ADMIN.email}:${SECRETS.wrongPassword}`).toString('base64')}` },
    });
    expect(wrong.status).toBeGreaterThanOrEqual(400);
    const msp = await admin.call('POST', '/msp', {
      name: 'Logged MSP',
      company_name: 'Logged Ltd',
      admin_email: 'msp@logs.test',
      admin_password: SECRETS.mspAdminPassword,
    });
    expect(msp.status).toBe(201);
    const mail = await admin.call('POST', '/mail', {
      server: 'smtp.example.test',
      port: 587,
      security: 'starttls',
      username: 'relay',
      password: SECRETS.smtpPassword,
      from_email: 'filter@logs.test',
      notification_period: 'daily',
    });
    expect(mail.status, JSON.stringify(mail.body)).toBeLessThan(300);
    const profile = await fetch(`http://127.0.0.1:${http}/restapi/auth/profile?password=${SECRETS.wrongPassword}`, {
      headers: { authorization: `Bearer ${admin.token}` },
    });
    const requestId = profile.headers.get('x-request-id');
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
    await new Promise((r) => setTimeout(r, 500));

    const lines = cordon.output;
    const json = lines
      .filter((l) => !PLAIN.test(l))
      .map((l) => {
        // Every other line is one JSON object with level, time, message and role.
        const entry = JSON.parse(l) as { level: number; time: number; msg: string; role?: string };
        expect(typeof entry.level).toBe('number');
        expect(typeof entry.time).toBe('number');
        expect(typeof entry.msg).toBe('string');
        expect(entry.role, l).toMatch(/^(serve|api|worker|resolver|blockpage|resolver,blockpage)$/);
        // One role per line: no key twice.
        expect(l.match(/"role":/g)?.length, l).toBe(1);
        return entry as typeof entry & { reqId?: string; route?: string; status?: number };
      });
    expect(new Set(json.map((e) => e.role))).toEqual(new Set(['serve', 'api', 'worker', 'resolver', 'blockpage']));
    const slow = json.find((e) => e.msg === 'slow request' && e.reqId === requestId);
    expect(slow).toMatchObject({ role: 'api', route: '/restapi/auth/profile', status: 200 });

    const text = lines.join('\n');
    const keyFiles = [
      readFileSync(join(dataDir, 'jwt.key'), 'utf8'),
      readFileSync(join(dataDir, 'ca.key-secret'), 'utf8'),
    ]
      .flatMap((f) => f.split('\n'))
      .filter((l) => l.trim() !== '' && !l.startsWith('#'));
    for (const secret of [ADMIN.password, ...Object.values(SECRETS), admin.token, ...keyFiles]) {
      expect(text.includes(secret.trim()), `a log line holds ${secret.slice(0, 4)}…`).toBe(false);
    }
  }, 60_000);
});
