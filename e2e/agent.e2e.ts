/**
 * Issue 8's roaming story, end to end with real processes: `cordon serve` (its DoH listener on a
 * leaf minted from the deployment root CA) and `cordon agent` started as a person would — with the
 * customer's install key from the API — then `dig` through the agent's loopback port: the device
 * appears with its last contact, the logged-in user the agent reports becomes an internal user whose
 * group policy then applies, a device exception sends one domain to the resolver it names and
 * another to the system resolver, and `kdig +https` to a virtual location's key is filtered by that
 * location's policy. Runs the TypeScript sources (no build needed).
 */

import { type ChildProcess, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations, formatViolations } from './axe.ts';
import { type ApiSession, apiLogin } from './support/api.ts';
import { launchBrowser } from './support/browser.ts';
import { CLI, type CordonProcess, cordonCommand, REPO_ROOT, startCordon } from './support/cordon.ts';
import { dig, type FakeUpstream, freePort, kdig, startFakeUpstream } from './support/dns.ts';

const ADMIN_EMAIL = 'admin@example.com';
const ADMIN_PASSWORD = 'Agent-story-1';
const BLOCK_ADDRESS = '127.0.0.1';
const CUSTOMER_EMAIL = 'fiona@fieldsales.test';
const CUSTOMER_PASSWORD = 'Customer-admin-1';
const ARTIFACTS = fileURLToPath(new URL('./artifacts/', import.meta.url));

/** The deployment's root CA as PEM (`GET /certificates/machine/download?type=pem`, a file, not JSON). */
async function downloadRootCa(httpPort: number): Promise<string> {
  const base = `http://127.0.0.1:${httpPort}/restapi`;
  const verifier = randomBytes(64).toString('hex');
  const query = new URLSearchParams({
    client_id: '2',
    response_type: 'code',
    redirect_uri: `http://127.0.0.1:${httpPort}/`,
    state: randomBytes(20).toString('hex'),
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    code_verifier: verifier,
  });
  const login = await fetch(`${base}/oauth/authorize?${query}`, {
    headers: { authorization: `Basic ${Buffer.from(`${ADMIN_EMAIL}:${ADMIN_PASSWORD}`).toString('base64')}` },
  });
  const token = ((await login.json()) as { access_token: string }).access_token;
  const res = await fetch(`${base}/certificates/machine/download?type=pem`, {
    headers: { authorization: `Bearer ${token}` },
  });
  if (res.status !== 200) throw new Error(`CA download: ${res.status}`);
  return res.text();
}

/** Polls `check` every 100 ms until true; throws after `ms`. */
async function until(ms: number, what: string, check: () => Promise<boolean>): Promise<void> {
  const start = Date.now();
  while (!(await check())) {
    if (Date.now() - start > ms) throw new Error(`${what}: not true within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('roaming agent story (issue 8)', () => {
  let upstream: FakeUpstream;
  let corp: FakeUpstream;
  let system: FakeUpstream;
  let cordon: CordonProcess;
  let agent: ChildProcess;
  /** The agent command the console shows, as the agent below is started with it (after `cordon`). */
  let shownCommand = '';
  const agentOutput: string[] = [];
  let httpPort: number;
  let dnsPort: number;
  let dohPort: number;
  let agentPort: number;
  let api: ApiSession;
  let customerId: number;
  let caFile: string;
  const ids: Record<string, number> = {};
  let virtualKey = '';
  let browser: Browser | undefined;

  const ok = async (p: Promise<{ status: number; body: unknown }>, status = 200) => {
    const r = await p;
    expect(r.status, JSON.stringify(r.body)).toBe(status);
    return r.body as Record<string, unknown>;
  };
  const viaAgent = async (name: string) => {
    const r = await dig(agentPort, name, 'A');
    return r.answers.find((a) => a.type === 'A')?.data ?? r.status;
  };

  beforeAll(async () => {
    upstream = await startFakeUpstream('192.0.2.80');
    corp = await startFakeUpstream('192.0.2.81');
    system = await startFakeUpstream('192.0.2.82');
    httpPort = await freePort();
    dnsPort = await freePort();
    dohPort = await freePort();
    agentPort = await freePort();
    cordon = await startCordon(
      {
        CORDON_DATA_DIR: mkdtempSync(join(tmpdir(), 'cordon-e2e-agent-')),
        CORDON_HTTP_ADDR: `127.0.0.1:${httpPort}`,
        CORDON_DNS_ADDR: `127.0.0.1:${dnsPort}`,
        CORDON_DOH_ADDR: `127.0.0.1:${dohPort}`,
        CORDON_DOH_PUBLIC_URL: `https://localhost:${dohPort}`,
        CORDON_BLOCKPAGE_ADDR: `127.0.0.1:${await freePort()}`,
        CORDON_BLOCKPAGE_HTTPS_ADDR: `127.0.0.1:${await freePort()}`,
        CORDON_UPSTREAM: `127.0.0.1:${upstream.port}`,
        CORDON_ADMIN_EMAIL: ADMIN_EMAIL,
        CORDON_ADMIN_PASSWORD: ADMIN_PASSWORD,
      },
      120_000,
      CLI,
    );
    expect(cordon.output.join('\n')).toContain(`doh=127.0.0.1:${dohPort} (root CA)`);
    api = await apiLogin(httpPort, ADMIN_EMAIL, ADMIN_PASSWORD);
    caFile = join(mkdtempSync(join(tmpdir(), 'cordon-e2e-agent-ca-')), 'root.pem');
    writeFileSync(caFile, await downloadRootCa(httpPort));
  });

  afterAll(async () => {
    await browser?.close();
    agent?.kill('SIGTERM');
    await cordon?.stop();
    await Promise.all([upstream?.close(), corp?.close(), system?.close()]);
  });

  it('sets up a customer with policies, a device configuration and a virtual location through the API', async () => {
    const msp = await ok(api.call('POST', '/msp', { name: 'Roam MSP', company_name: 'Roam Ltd' }), 201);
    customerId = (
      await ok(
        api.call('POST', '/users/', {
          accountName: 'Field Sales',
          msp_id: msp.id,
          admin_email: CUSTOMER_EMAIL,
          admin_name: 'Fiona Field',
          admin_password: CUSTOMER_PASSWORD,
        }),
        201,
      )
    ).id as number;
    const policy = async (name: string, blocked: string) => {
      const p = await ok(api.call('POST', '/policies', { user_id: customerId, name, filtering_level: 'low' }), 201);
      await ok(
        api.call('POST', `/policies/${p.id}/domains/block?user_id=${customerId}`, {
          domain: blocked,
          include_subdomains: true,
        }),
        201,
      );
      return p.id as number;
    };
    ids.office = await policy('Office', 'games.example');
    ids.travel = await policy('Travel', 'social.example');
    ids.kiosk = await policy('Kiosk', 'news.example');
    // Devices without a policy of their own get the customer's device configuration: Office.
    await ok(api.call('POST', `/users/${customerId}/devices/config`, { policy_mode: 'policy', policy_id: ids.office }));
    const virtual = await ok(
      api.call('POST', `/users/${customerId}/locations/virtual`, { name: 'Kiosks', policy_id: ids.kiosk }),
      201,
    );
    expect(typeof virtual.key).toBe('string');
    virtualKey = virtual.key as string;
  });

  it('enrols `cordon agent` with the install key and filters `dig` through its loopback port', async () => {
    const config = await ok(api.call('GET', `/users/${customerId}/devices/config`));
    // The console shows this command (checked in the Chromium step below); it runs as shown.
    expect(config.agent_doh_url).toBe(`https://localhost:${dohPort}`);
    shownCommand = `cordon agent --server http://127.0.0.1:${httpPort} --doh ${config.agent_doh_url} --install-key ${config.install_key}`;
    agent = spawn(
      process.execPath,
      [
        await cordonCommand(),
        'agent',
        ...shownCommand.split(' ').slice(2),
        '--state-dir',
        mkdtempSync(join(tmpdir(), 'cordon-e2e-agent-state-')),
        '--listen',
        `127.0.0.1:${agentPort}`,
        '--system-resolver',
        `127.0.0.1:${system.port}`,
        '--ca-file',
        caFile,
        '--user',
        'alice',
        '--name',
        'alice-laptop',
      ],
      { cwd: REPO_ROOT, env: process.env },
    );
    agent.stdout?.on('data', (d: Buffer) => agentOutput.push(...d.toString().split('\n').filter(Boolean)));
    agent.stderr?.on('data', (d: Buffer) => agentOutput.push(...d.toString().split('\n').filter(Boolean)));
    await until(60_000, `agent listening (${agentOutput.join(' | ')})`, async () =>
      agentOutput.some((l) => l.includes('listening on')),
    );
    expect(agentOutput.join('\n')).toMatch(/enrolled as device \d+/);
    await until(
      5000,
      'games.example blocked through the agent',
      async () => (await viaAgent('games.example')) === BLOCK_ADDRESS,
    );
    expect(await viaAgent('www.example.org')).toBe('192.0.2.80');
    expect(upstream.asked).toContain('www.example.org');
  });

  it('shows the device with its last contact, version and OS, and the user it reported', async () => {
    let device: Record<string, unknown> | undefined;
    await until(10_000, 'device with a last contact', async () => {
      const list = await ok(api.call('GET', `/users/${customerId}/devices`));
      const rows = (list.data ?? list.items ?? []) as Array<Record<string, unknown>>;
      device = rows.find((d) => d.name === 'alice-laptop');
      return Boolean(device?.last_contact);
    });
    ids.device = device!.id as number;
    expect(device!.version).toBe('0.1.0');
    const users = await ok(api.call('GET', `/users/${customerId}/users/`));
    const alice = ((users.data ?? users.items ?? []) as Array<Record<string, unknown>>).find((u) => u.name === 'alice');
    expect(alice).toBeDefined();
    ids.alice = alice!.id as number;
  });

  it('shows the device and its last contact to the customer admin in the console (Chromium)', async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    browser = await launchBrowser();
    const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    await page.goto(`http://127.0.0.1:${httpPort}/`);
    await page.getByLabel('Email').fill(CUSTOMER_EMAIL);
    await page.getByLabel('Password').fill(CUSTOMER_PASSWORD);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL('**/customer/overview');
    await page.goto(`http://127.0.0.1:${httpPort}/customer/environment/devices`);
    const row = page.getByRole('row', { name: /alice-laptop/ });
    await row.waitFor();
    // A last contact is shown (the list says "Never" for a device that never called).
    expect(await row.textContent()).not.toMatch(/Never/);
    await page.screenshot({ path: join(ARTIFACTS, 'agent-01-devices.png'), fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    await page.reload();
    await page.getByText('alice-laptop').waitFor();
    await page.screenshot({ path: join(ARTIFACTS, 'agent-02-devices-390.png'), fullPage: true });
    // The device configuration page shows the very command the agent above was started with.
    await page.setViewportSize({ width: 1280, height: 860 });
    await page.goto(`http://127.0.0.1:${httpPort}/customer/settings/device_configuration`);
    expect((await page.getByTestId('agent-command').textContent())?.trim()).toBe(shownCommand);
  });

  it("applies the user's group policy once the device inherits its group", async () => {
    const group = await ok(
      api.call('POST', `/users/${customerId}/groups`, { name: 'Travellers', policyid: ids.travel }),
      201,
    );
    await ok(api.call('POST', `/users/${customerId}/users/${ids.alice}`, { group_ids: [group.id] }));
    await ok(api.call('POST', `/users/${customerId}/devices/${ids.device}`, { policy_mode: 'group' }));
    await until(
      2000,
      'Travel policy through the agent',
      async () => (await viaAgent('social.example')) === BLOCK_ADDRESS,
    );
    expect(await viaAgent('games.example')).toBe('192.0.2.80');

    // Issue 29 "Why was this blocked / allowed?": the device page names the group's policy and the
    // chain that chose it (device → user → group), at 1280 and 390 px, axe clean.
    const page = await browser!.newPage({ viewport: { width: 1280, height: 860 } });
    await page.goto(`http://127.0.0.1:${httpPort}/`);
    await page.getByLabel('Email').fill(CUSTOMER_EMAIL);
    await page.getByLabel('Password').fill(CUSTOMER_PASSWORD);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL('**/customer/overview');
    await page.goto(`http://127.0.0.1:${httpPort}/customer/environment/devices/${ids.device}`);
    const panel = page.getByTestId('effective-policy');
    await panel.getByText('When alice is signed in').waitFor();
    const text = (await panel.textContent()) ?? '';
    expect(text).toContain('When alice is signed in: Travel');
    expect(text).toMatch(/Device alice-laptop: follows its user's policy or group, else the default policy/);
    expect(text).toContain('User alice: no policy of its own');
    expect(text).toMatch(/Group Travellers \(rank \d+\): chooses → Travel\s*In force/);
    await expect
      .poll(async () => panel.getByRole('link', { name: 'Travel' }).first().getAttribute('href'))
      .toBe(`/customer/content_filtering/policies/${ids.travel}`);
    await page.screenshot({ path: join(ARTIFACTS, 'agent-03-device-policy-in-force.png'), fullPage: true });
    await page.waitForLoadState('networkidle');
    const wide = await axeViolations(page);
    expect(wide, formatViolations(wide)).toEqual([]);
    await page.setViewportSize({ width: 390, height: 844 });
    await page.reload();
    await panel.getByText('When alice is signed in').waitFor();
    await page.screenshot({ path: join(ARTIFACTS, 'agent-04-device-policy-in-force-390.png'), fullPage: true });
    await page.waitForLoadState('networkidle');
    const narrow = await axeViolations(page);
    expect(narrow, formatViolations(narrow)).toEqual([]);
    await page.close();
  });

  it("sends an exception rule's domain to the resolver it names, and ByPass OTG names to the system resolver", async () => {
    const exc = await ok(api.call('POST', `/device_exceptions?user_id=${customerId}`, { name: 'Head office' }), 201);
    await ok(
      api.call('POST', `/device_exceptions/${exc.id}/rules`, {
        domain: 'corp.example',
        resolver: `127.0.0.1:${corp.port}`,
        rule_type: 'Use Specific Resolver',
      }),
      201,
    );
    await ok(
      api.call('POST', `/device_exceptions/${exc.id}/rules`, { domain: 'lan.example', rule_type: 'ByPass OTG' }),
      201,
    );
    await ok(api.call('POST', `/users/${customerId}/devices/${ids.device}`, { device_exception_id: exc.id }));
    agent.kill('SIGHUP'); // heartbeat now rather than at the next period
    await until(
      5000,
      'corp.example from its resolver',
      async () => (await viaAgent('wiki.corp.example')) === '192.0.2.81',
    );
    expect(corp.asked).toContain('wiki.corp.example');
    expect(upstream.asked).not.toContain('wiki.corp.example');
    // Cordon's resolver applies the device's `Use Specific Resolver` rule itself (the device key is in
    // the DoH path) as soon as its snapshot has the change, which can be before the agent's heartbeat
    // has answered; ByPass OTG is the agent's alone, so it waits for that heartbeat.
    await until(
      5000,
      'printer.lan.example from the system resolver',
      async () => (await viaAgent('printer.lan.example')) === '192.0.2.82',
    );
    expect(system.asked).toContain('printer.lan.example');
  });

  it("filters `kdig +https` to the virtual location's key by that location's policy, and 404s an unknown key", async () => {
    const doh = (name: string, path = `/dns-query/${virtualKey}`) =>
      kdig(dohPort, name, 'A', [`+https=${path}`, `+tls-ca=${caFile}`, '+tls-hostname=localhost']);
    expect((await doh('news.example')).data).toEqual([BLOCK_ADDRESS]);
    expect((await doh('games.example')).data).toEqual(['192.0.2.80']);
    const status = (path: string) =>
      new Promise<number>((resolve, reject) => {
        const req = httpsRequest(
          { host: '127.0.0.1', port: dohPort, path, servername: 'localhost', ca: readFileSync(caFile, 'utf8') },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on('error', reject);
        req.end();
      });
    const query = 'AAABAAABAAAAAAAABG5ld3MHZXhhbXBsZQAAAQAB'; // news.example A, base64url
    expect(await status(`/dns-query/${virtualKey}?dns=${query}`)).toBe(200);
    expect(await status(`/dns-query/no-such-key-0000000?dns=${query}`)).toBe(404);
    // Plain DNS from an address no location claims is refused: never an open resolver.
    expect((await dig(dnsPort, 'news.example', 'A', ['-b', '127.0.0.2'])).status).toBe('REFUSED');
  });
});
