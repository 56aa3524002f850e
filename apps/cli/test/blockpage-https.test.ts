import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tls from 'node:tls';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI, startCordon } from '../../../e2e/support/cordon.ts';

const ADMIN = { email: 'root@cordon.test', password: 'Sup3r-secret' };
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A `host=…:port` field of the boot line. */
function portOf(output: string[], field: string): number {
  const line = output.find((l) => l.startsWith('cordon serving:')) ?? '';
  return Number(new RegExp(` ${field}=[^ ]*:(\\d+)( |$)`).exec(line)?.[1]);
}

/** Logs in with the password grant the console uses (PKCE code flow), over HTTP. */
async function token(port: number): Promise<string> {
  const { createHash, randomBytes } = await import('node:crypto');
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
    headers: { authorization: `Basic ${Buffer.from(`${ADMIN.email}:${ADMIN.password}`).toString('base64')}` },
  });
  return ((await res.json()) as { access_token: string }).access_token;
}

/** A TLS handshake and one GET, trusting only `ca`; resolves with whether it verified and the answer. */
function tlsGet(port: number, servername: string, ca: string): Promise<{ authorized: boolean; response: string }> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: '127.0.0.1', port, servername, ca }, () => {
      socket.write(`GET / HTTP/1.1\r\nHost: ${servername}\r\nConnection: close\r\n\r\n`);
      let response = '';
      socket.setEncoding('utf8');
      socket.on('data', (c: string) => {
        response += c;
      });
      socket.on('end', () => resolve({ authorized: socket.authorized, response }));
    });
    socket.on('error', reject);
  });
}

describe('cordon serve: the HTTPS block page with the downloaded root (docs/architecture.md "Block page")', () => {
  it('serves a leaf for the blocked host that the downloaded root verifies, and keeps the root across restarts', async () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), 'cordon-https-')), 'data');
    dirs.push(dataDir);
    const env = {
      CORDON_UPSTREAM: '127.0.0.1:53',
      CORDON_DATA_DIR: dataDir,
      CORDON_ROLES: 'api,blockpage',
      CORDON_HTTP_ADDR: '127.0.0.1:0',
      CORDON_BLOCKPAGE_ADDR: '127.0.0.1:0',
      CORDON_BLOCKPAGE_HTTPS_ADDR: '127.0.0.1:0',
      CORDON_ADMIN_EMAIL: ADMIN.email,
      CORDON_ADMIN_PASSWORD: ADMIN.password,
    };
    const download = async (output: string[]) => {
      const http = portOf(output, 'http');
      const res = await fetch(`http://127.0.0.1:${http}/restapi/certificates/machine/download?type=pem`, {
        headers: { authorization: `Bearer ${await token(http)}` },
      });
      expect(res.status).toBe(200);
      return res.text();
    };
    const first = await startCordon(env, 60_000, CLI);
    let root: string;
    try {
      root = await download(first.output);
      expect(root).toMatch(/^-----BEGIN CERTIFICATE-----/);
      const { authorized, response } = await tlsGet(portOf(first.output, 'blockpage_https'), 'blocked.example', root);
      expect(authorized).toBe(true);
      expect(response).toMatch(/^HTTP\/1\.1 200/);
      expect(response).toContain('This site is blocked');
      expect(response).toContain('blocked.example');
    } finally {
      await first.stop();
    }
    const second = await startCordon(env, 60_000, CLI);
    try {
      expect(await download(second.output)).toBe(root);
      expect((await tlsGet(portOf(second.output, 'blockpage_https'), 'other.example', root)).authorized).toBe(true);
    } finally {
      await second.stop();
    }
  }, 120_000);
});
