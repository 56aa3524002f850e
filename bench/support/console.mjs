/**
 * What the console benchmarks share (bench/console-first-paint.mjs, bench/console-overview.mjs):
 * Cordon's production bundle started on loopback, logins through the API and the login form, and
 * Debian's headless Chromium with the flags docs/contributing.md names.
 */
import { execFileSync, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const BUNDLE = join(root, 'apps/cli/dist/cordon.mjs');

/** A free TCP port on loopback (the OS picks it). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Starts `cordon serve` from the bundle and resolves once it prints its boot line. */
export async function startCordon(env) {
  if (!existsSync(BUNDLE)) throw new Error(`${BUNDLE} is missing: run npm run build`);
  const child = spawn(process.execPath, [BUNDLE, 'serve'], {
    cwd: root,
    env: { ...process.env, CORDON_DOH_ADDR: 'off', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = [];
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`cordon serve did not boot:\n${output.join('\n')}`)), 120_000);
    const onData = (d) => {
      for (const line of d.toString().split('\n').filter(Boolean)) {
        output.push(line);
        if (line.startsWith('cordon serving:')) {
          clearTimeout(timer);
          resolve();
        }
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`cordon serve exited with ${code}:\n${output.join('\n')}`));
    });
  });
  return child;
}

/** Logs in through the API (the console's PKCE flow, spec-notes §7 Auth); returns a JSON caller. */
export async function apiLogin(base, who) {
  const verifier = randomBytes(64).toString('hex');
  const query = new URLSearchParams({
    client_id: '2',
    response_type: 'code',
    redirect_uri: `${base}/`,
    state: randomBytes(20).toString('hex'),
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    code_verifier: verifier,
  });
  const res = await fetch(`${base}/restapi/oauth/authorize?${query}`, {
    headers: { authorization: `Basic ${Buffer.from(`${who.email}:${who.password}`).toString('base64')}` },
  });
  if (res.status !== 200) throw new Error(`login ${who.email}: ${res.status} ${await res.text()}`);
  const { access_token: token } = await res.json();
  return async (method, path, body) => {
    const answer = await fetch(`${base}/restapi${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!answer.ok) throw new Error(`${method} ${path}: ${answer.status} ${await answer.text()}`);
    return answer.json();
  };
}

/** Logs `who` in through the login form (unthrottled) and returns the browser storage it leaves. */
export async function loginState(browser, base, who) {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${base}/`);
  await page.getByLabel('Email').fill(who.email);
  await page.getByLabel('Password').fill(who.password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.waitForURL((url) => url.pathname !== '/');
  const state = await context.storageState();
  await context.close();
  return state;
}

/** Debian's Chromium, headless, through playwright-core (`which chromium`). */
export function launchChromium() {
  return chromium.launch({
    executablePath: execFileSync('which', ['chromium'], { encoding: 'utf8' }).trim(),
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'],
  });
}

/** The median of a non-empty list of numbers. */
export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/**
 * `cordon serve` on free loopback ports with a fresh SQLite data directory (`cordon-<label>-*` in the
 * temporary directory) and `admin` seeded; nothing is resolved (an unused port stands for the
 * upstream). Returns the console's base URL and `stop()`, which ends the server and removes the data.
 */
export async function startLoopbackCordon(label, admin) {
  const dataDir = mkdtempSync(join(tmpdir(), `cordon-${label}-`));
  const httpPort = await freePort();
  const cordon = await startCordon({
    CORDON_DATA_DIR: dataDir,
    CORDON_HTTP_ADDR: `127.0.0.1:${httpPort}`,
    CORDON_DNS_ADDR: `127.0.0.1:${await freePort()}`,
    CORDON_BLOCKPAGE_ADDR: `127.0.0.1:${await freePort()}`,
    CORDON_BLOCKPAGE_HTTPS_ADDR: `127.0.0.1:${await freePort()}`,
    CORDON_UPSTREAM: `127.0.0.1:${await freePort()}`,
    CORDON_ADMIN_EMAIL: admin.email,
    CORDON_ADMIN_PASSWORD: admin.password,
  });
  return {
    base: `http://127.0.0.1:${httpPort}`,
    async stop() {
      cordon.kill('SIGTERM');
      await new Promise((resolve) => cordon.once('exit', resolve));
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
