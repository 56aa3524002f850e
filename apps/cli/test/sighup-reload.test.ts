import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, type CordonProcess, startCordon } from '../../../e2e/support/cordon.ts';
import { type FakeUpstream, startFakeUpstream } from '../../resolver/test/helpers/fake-upstream.ts';
import { askA, seedFixtureTenants, selfSigned } from './helpers/serve-test.ts';

const ADMIN = { email: 'root@sighup.test', password: 'Sup3r-secret' };

/** The SHA-256 fingerprint of the certificate a TLS server at `port` presents. */
function servedFingerprint(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: '127.0.0.1', port, rejectUnauthorized: false, ALPNProtocols: ['h2'] }, () => {
      resolve(socket.getPeerX509Certificate()?.fingerprint256 ?? '');
      socket.destroy();
    });
    socket.on('error', reject);
  });
}

/** Resolves with the first output line matching `pattern` from now on, or rejects after `ms`. */
function nextLine(cordon: CordonProcess, pattern: RegExp, ms = 15_000): Promise<string> {
  const from = cordon.output.length;
  return new Promise((resolve, reject) => {
    const deadline = Date.now() + ms;
    const poll = setInterval(() => {
      const line = cordon.output.slice(from).find((l) => pattern.test(l));
      if (line) {
        clearInterval(poll);
        resolve(line);
      } else if (Date.now() > deadline) {
        clearInterval(poll);
        reject(new Error(`no line matching ${pattern}:\n${cordon.output.slice(from).join('\n')}`));
      }
    }, 50);
  });
}

/** The RCODE of one A question over UDP, or null without an answer within 3 s. */
async function query(port: number, name: string): Promise<number | null> {
  return (await askA(port, name, '127.0.0.1', 3000))?.rcode ?? null;
}

describe('SIGHUP reloads upstreams, log level and certificates without dropping DNS', () => {
  let dir: string;
  let a: FakeUpstream;
  let b: FakeUpstream;
  let cordon: CordonProcess;
  let dns: number;
  let doh: number;
  let settingsFile: string;
  let certFile: string;
  let keyFile: string;
  let second: { cert: string; key: string };

  beforeAll(async () => {
    [a, b] = await Promise.all([startFakeUpstream(), startFakeUpstream()]);
    dir = mkdtempSync(join(tmpdir(), 'cordon-sighup-'));
    const first = selfSigned(dir, 'first', 30);
    second = selfSigned(dir, 'second', 30);
    certFile = join(dir, 'doh.crt');
    keyFile = join(dir, 'doh.key');
    writeFileSync(certFile, first.cert);
    writeFileSync(keyFile, first.key);
    settingsFile = join(dir, 'cordon.env');
    writeFileSync(
      settingsFile,
      `# as /etc/cordon/cordon.env\nCORDON_UPSTREAM=127.0.0.1:${a.port}\nCORDON_LOG_LEVEL=warn\n`,
    );
    cordon = await startCordon(
      {
        CORDON_CONFIG_FILE: settingsFile,
        CORDON_DATA_DIR: join(dir, 'data'),
        CORDON_HTTP_ADDR: '127.0.0.1:0',
        CORDON_DNS_ADDR: '127.0.0.1:0',
        CORDON_DOH_ADDR: '127.0.0.1:0',
        CORDON_DOH_CERT: certFile,
        CORDON_DOH_KEY: keyFile,
        CORDON_BLOCKPAGE_ADDR: '127.0.0.1:0',
        CORDON_BLOCKPAGE_HTTPS_ADDR: '127.0.0.1:0',
        CORDON_ADMIN_EMAIL: ADMIN.email,
        CORDON_ADMIN_PASSWORD: ADMIN.password,
      },
      90_000,
      CLI,
    );
    const line = cordon.output.find((l) => l.startsWith('cordon serving:')) ?? '';
    const http = Number(/ http=127\.0\.0\.1:(\d+)/.exec(line)?.[1]);
    dns = Number(/ dns=127\.0\.0\.1:(\d+)/.exec(line)?.[1]);
    doh = Number(/ doh=127\.0\.0\.1:(\d+)/.exec(line)?.[1]);
    expect(line).toContain(`upstream=127.0.0.1:${a.port}`);
    // A customer whose location claims 127.0.0.1 (the seed of the upgrade fixture).
    await seedFixtureTenants(http, ADMIN);
    for (let i = 0; (await query(dns, `warm-${i}.example`)) !== 0; i++) {
      expect(i).toBeLessThan(50);
      await new Promise((r) => setTimeout(r, 100));
    }
  }, 120_000);

  afterAll(async () => {
    await cordon?.stop();
    await Promise.all([a?.close(), b?.close()]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('applies the new upstream and certificate, names what needs a restart, and answers throughout', async () => {
    const firstFingerprint = await servedFingerprint(doh);
    expect(firstFingerprint).toBe(new X509Certificate(readFileSync(certFile)).fingerprint256);

    // Queries go on, one after another, across the reload.
    let loading = true;
    const outcomes: Array<number | null> = [];
    const load = (async () => {
      for (let i = 0; loading; i++) outcomes.push(await query(dns, `during-${i}.example`));
    })();
    await new Promise((r) => setTimeout(r, 300));

    writeFileSync(settingsFile, `CORDON_UPSTREAM=127.0.0.1:${b.port}\nCORDON_LOG_LEVEL=info\nCORDON_RRL_RATE=1000\n`);
    writeFileSync(certFile, second.cert);
    writeFileSync(keyFile, second.key);
    const reloaded = nextLine(cordon, /^cordon: SIGHUP:/);
    cordon.child.kill('SIGHUP');
    expect(await reloaded).toBe(
      'cordon: SIGHUP: reloaded upstreams, logLevel, dohCertFile; changed but applied only after a restart: rrlRate',
    );
    await new Promise((r) => setTimeout(r, 300));
    loading = false;
    await load;
    expect(outcomes.length).toBeGreaterThan(10);
    expect(outcomes.filter((o) => o !== 0)).toEqual([]);

    // New questions go to the new upstream only.
    const beforeA = a.received.length;
    for (let i = 0; i < 5; i++) expect(await query(dns, `after-${i}.example`)).toBe(0);
    expect(b.received.filter((q) => q.name.startsWith('after-')).length).toBe(5);
    expect(a.received.slice(beforeA).filter((q) => q.name.startsWith('after-'))).toEqual([]);
    // New TLS connections get the renewed certificate.
    expect(await servedFingerprint(doh)).toBe(new X509Certificate(second.cert).fingerprint256);
  }, 60_000);

  it('keeps the running settings when the settings file is bad', async () => {
    writeFileSync(settingsFile, `CORDON_UPSTREAM=not-an-address\n`);
    const failed = nextLine(cordon, /^cordon: SIGHUP:/);
    cordon.child.kill('SIGHUP');
    expect(await failed).toMatch(/^cordon: SIGHUP: reload failed, the running settings stay: .*CORDON_UPSTREAM/);
    expect(await query(dns, 'still-b.example')).toBe(0);
    expect(b.received.some((q) => q.name === 'still-b.example')).toBe(true);
    writeFileSync(settingsFile, `CORDON_UPSTREAM=127.0.0.1:${b.port}\nNOT_A_SETTING=1\n`);
    const refused = nextLine(cordon, /^cordon: SIGHUP:/);
    cordon.child.kill('SIGHUP');
    expect(await refused).toMatch(/line 2: NOT_A_SETTING is not a Cordon setting/);
  }, 30_000);
});
