/**
 * Issue #2's story, end to end as a person would do it: start Cordon with the README's command,
 * import the UT1 lists, log in as the system admin in Chromium, create an MSP, a customer, a
 * Moderate policy and a static-IP location 127.0.0.1/32, then query the resolver with dig and read
 * the counts on the customer overview. Screenshots of every step land in e2e/artifacts/.
 */
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openDatabase } from '@cordon/db';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiLogin } from './support/api.ts';
import { launchBrowser } from './support/browser.ts';
import { type CordonProcess, runCordon, startCordon } from './support/cordon.ts';
import { gamblingNames, suffixes, UT1_DIR, workloadNames } from './support/data.ts';
import { dig, type FakeUpstream, freePort, kdig, startFakeUpstream } from './support/dns.ts';

const ARTIFACTS = fileURLToPath(new URL('./artifacts/', import.meta.url));
const ADMIN_EMAIL = 'admin@example.com';
const ADMIN_PASSWORD = 'Story-test-1';
const MSP_ADMIN_EMAIL = 'nora@northwind.test';
const MSP_ADMIN_PASSWORD = 'Msp-admin-1';

describe('walking skeleton story (issue #2)', () => {
  let upstream: FakeUpstream;
  let cordon: CordonProcess;
  let browser: Browser;
  let page: Page;
  let env: NodeJS.ProcessEnv;
  let dataDir: string;
  let httpPort: number;
  let dnsPort: number;
  let unlistedName = '';
  const browserProblems: string[] = [];
  let stopped = false;

  const shot = (name: string) => page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    upstream = await startFakeUpstream();
    dataDir = mkdtempSync(join(tmpdir(), 'cordon-e2e-'));
    httpPort = await freePort();
    dnsPort = await freePort();
    env = {
      CORDON_DATA_DIR: dataDir,
      CORDON_HTTP_ADDR: `127.0.0.1:${httpPort}`,
      CORDON_DNS_ADDR: `127.0.0.1:${dnsPort}`,
      CORDON_BLOCKPAGE_ADDR: `127.0.0.1:${await freePort()}`,
      CORDON_BLOCKPAGE_HTTPS_ADDR: `127.0.0.1:${await freePort()}`,
      CORDON_UPSTREAM: `127.0.0.1:${upstream.port}`,
      CORDON_ADMIN_EMAIL: ADMIN_EMAIL,
      CORDON_ADMIN_PASSWORD: ADMIN_PASSWORD,
    };
    cordon = await startCordon(env);
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    // The console must run under the API's CSP without violations or uncaught errors.
    page.on('pageerror', (err) => browserProblems.push(`page error: ${err.message}`));
    page.on('console', (msg) => {
      if (msg.type() === 'error' && /Content Security Policy|Refused to/i.test(msg.text()))
        browserProblems.push(msg.text());
    });
  });

  afterAll(async () => {
    await browser?.close();
    if (!stopped) await cordon?.stop();
    await upstream?.close();
  });

  it('imports the UT1 category lists into the running service', async () => {
    const result = await runCordon(['categories', 'import', '--format', 'ut1', UT1_DIR], { CORDON_DATA_DIR: dataDir });
    expect(result.code, result.output.join('\n')).toBe(0);
    expect(result.output.join('\n')).toMatch(/imported \d+ domain categorisations/);
  });

  it('logs in as the system admin and lands on the system overview', async () => {
    await page.goto(`http://127.0.0.1:${httpPort}/`);
    await page.getByLabel('Email').fill(ADMIN_EMAIL);
    await page.getByLabel('Password').fill(ADMIN_PASSWORD);
    await shot('01-login');
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL('**/system/overview');
    await expect.poll(() => page.title()).toBe('Cordon | Overview');
    await shot('02-system-overview');
  });

  it('creates an MSP and opens it', async () => {
    await page.getByRole('button', { name: 'New MSP' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('MSP name').fill('Northwind MSP');
    await dialog.getByLabel('Company name').fill('Northwind Networks Ltd');
    // The MSP's primary admin, created with it (docs/architecture.md "Tenancy"); used below to check role guards.
    await dialog.getByLabel('Admin email').fill(MSP_ADMIN_EMAIL);
    await dialog.getByLabel('Admin name').fill('Nora Northwind');
    await dialog.getByLabel('Admin password').fill(MSP_ADMIN_PASSWORD);
    await shot('03-new-msp');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await page.getByRole('link', { name: 'Northwind MSP' }).click();
    await page.waitForURL('**/msp/overview');
    await shot('04-msp-overview');
  });

  it('creates a customer and opens it', async () => {
    await page.getByRole('button', { name: 'New customer' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Account name').fill('Springfield School');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await page.getByRole('link', { name: 'Springfield School' }).click();
    await page.waitForURL('**/customer/overview');
    await shot('05-customer-overview-empty');
  });

  it('creates a Moderate policy', async () => {
    await page.getByRole('link', { name: 'Policies' }).click();
    await page.waitForURL('**/customer/content_filtering/policies');
    await page.getByRole('button', { name: 'New policy' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Name').fill('Students');
    await dialog.getByLabel('Filtering level').click();
    await page.getByRole('option', { name: /^Moderate/ }).click();
    await shot('06-new-policy');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await expect.poll(() => page.getByTestId('policies-table').textContent()).toContain('Students');
    await shot('07-policies');
  });

  it('creates a static-IP location 127.0.0.1/32 using that policy', async () => {
    await page.getByRole('link', { name: 'Locations' }).click();
    await page.waitForURL('**/customer/environment/locations');
    await page.getByRole('button', { name: 'New location' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Name').fill('Main campus');
    await dialog.getByLabel('Policy').click();
    await page.getByRole('option', { name: 'Students' }).click();
    await dialog.getByLabel('Address 1').fill('127.0.0.1/32');
    await shot('08-new-location');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await dialog.waitFor({ state: 'hidden' });
    // The new location's own page opens, listing its address.
    await page.waitForURL('**/customer/environment/locations/staticip/*');
    await expect.poll(() => page.getByLabel('Address 1').inputValue()).toBe('127.0.0.1/32');
    await shot('09-location');
    // And the list has it.
    await page.getByRole('link', { name: 'Locations', exact: true }).first().click();
    await page.waitForURL('**/customer/environment/locations');
    await expect.poll(() => page.getByRole('table').textContent()).toContain('Main campus');
  });

  it('answers a UT1 gambling name with the block-page address', async () => {
    const blocked = gamblingNames()[0] ?? '';
    // The location was created through the API; the resolver enforces it within a second.
    await expect
      .poll(async () => (await dig(dnsPort, blocked)).answers.map((a) => a.data), { timeout: 3000, interval: 200 })
      .toEqual(['127.0.0.1']);
    const answer = await dig(dnsPort, blocked);
    expect(answer.status).toBe('NOERROR');
    expect(answer.answers[0]?.ttl).toBe(60);
  });

  it("answers a workload name in no list with the upstream's answer", async () => {
    const handle = openDatabase({ sqlitePath: join(dataDir, 'cordon.sqlite') });
    let unlisted: string | undefined;
    try {
      for (const name of workloadNames(200)) {
        const hit = await handle.db
          .selectFrom('category_domains')
          .select('domain')
          .where('domain', 'in', suffixes(name))
          .executeTakeFirst();
        if (!hit) {
          unlisted = name;
          break;
        }
      }
    } finally {
      await handle.close();
    }
    expect(unlisted).toBeDefined();
    const answer = await dig(dnsPort, unlisted ?? '');
    expect(answer.status).toBe('NOERROR');
    expect(answer.answers.map((a) => a.data)).toEqual([upstream.ipv4]);
    expect(upstream.asked).toContain(unlisted);
    unlistedName = unlisted ?? '';
    // Knot's kdig over TCP sees the same answer (served from the shared cache this time).
    expect(await kdig(dnsPort, unlistedName, 'A', ['+tcp'])).toEqual({ status: 'NOERROR', data: [upstream.ipv4] });
  });

  it('refuses the same query from a source no location claims', async () => {
    const answer = await dig(dnsPort, gamblingNames()[0] ?? '', 'A', ['-b', '127.0.0.2']);
    expect(answer.status).toBe('REFUSED');
  });

  it('shows the requests, allowed and blocked counts on the customer overview', async () => {
    await page.getByRole('link', { name: 'Overview' }).first().click();
    await page.waitForURL('**/customer/overview');
    const value = async (id: string) => Number(await page.getByTestId(id).getAttribute('data-value'));
    // The blocked name was answered twice from 127.0.0.1 (the poll's first success, then the
    // check), the unlisted name twice (dig, kdig); REFUSED queries belong to no customer.
    // Poll with reloads: the query log is written in batches (every 500 ms).
    await expect
      .poll(
        async () => {
          await page.reload();
          await page.getByTestId('stat-requests').waitFor();
          return {
            requests: await value('stat-requests'),
            unique_domains: await value('stat-unique-domains'),
            allowed: await value('stat-allowed'),
            blocked: await value('stat-blocked'),
          };
        },
        { timeout: 10_000, interval: 500 },
      )
      .toEqual({ requests: 4, unique_domains: 2, allowed: 2, blocked: 2 });
    // Let the chart's entry animation finish before the picture.
    await page.getByTestId('traffic-chart').locator('svg').waitFor();
    await page.waitForTimeout(1500);
    await shot('10-customer-overview-counts');
    expect(browserProblems).toEqual([]);
  });

  it("keeps an MSP admin to its own area: /403 for the system area, a 404 page, the spec's messages", async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    const msp = await context.newPage();
    try {
      await msp.goto(`http://127.0.0.1:${httpPort}/`);
      await msp.getByLabel('Email').fill(MSP_ADMIN_EMAIL);
      await msp.getByLabel('Password').fill(MSP_ADMIN_PASSWORD);
      await msp.getByRole('button', { name: 'Log in' }).click();
      await msp.waitForURL('**/msp/overview');
      await expect.poll(() => msp.getByTestId('customers-table').textContent()).toContain('Springfield School');

      // spec-notes §5: a required field left empty shows the spec's message and nothing is created.
      await msp.getByRole('button', { name: 'New customer' }).click();
      const dialog = msp.getByRole('dialog');
      await dialog.getByRole('button', { name: 'Create' }).click();
      await dialog.getByText('This is a required field.').waitFor();
      await msp.screenshot({ path: join(ARTIFACTS, '11-msp-admin-required-field.png'), fullPage: true });
      await dialog.getByRole('button', { name: 'Cancel' }).click();

      // spec-notes §2/§6: a route for another role sends the user to /403.
      await msp.goto(`http://127.0.0.1:${httpPort}/system/overview`);
      await msp.waitForURL('**/403');
      await expect.poll(() => msp.title()).toBe('Cordon | Forbidden');
      await msp.screenshot({ path: join(ARTIFACTS, '12-msp-admin-403.png'), fullPage: true });

      // An unknown path renders the 404 page.
      await msp.goto(`http://127.0.0.1:${httpPort}/no/such/page`);
      await expect.poll(() => msp.title()).toBe('Cordon | Page not found');
      await msp.getByText('The page you are looking for does not exist.').waitFor();
    } finally {
      await context.close();
    }
  });

  it("refuses an MSP admin's hijack of another customer's address and an open-resolver claim (issue 5)", async () => {
    // As an attacker would: straight at the API with the MSP admin's own token, for a customer of its own.
    const nora = await apiLogin(httpPort, MSP_ADMIN_EMAIL, MSP_ADMIN_PASSWORD);
    const created = await nora.call('POST', '/users/', { accountName: 'Intruder Academy' });
    expect(created.status).toBe(201);
    const intruder = (created.body as { id: number }).id;
    const claim = (addresses: string[]) =>
      nora.call('POST', `/users/${intruder}/locations/staticip`, { name: 'Claim', addresses, policy_id: null });
    // The victim's 127.0.0.1/32 written as IPv4-mapped IPv6 is read as 127.0.0.1/32 itself: a loopback
    // address no MSP admin may claim (and a claim of another customer), refused naming no tenant.
    const hijack = await claim(['::ffff:127.0.0.1/128']);
    expect(hijack.status).toBe(400);
    expect((hijack.body as { fields?: Record<string, string> }).fields?.['addresses']).toMatch(/loopback/i);
    expect(JSON.stringify(hijack.body)).not.toContain('Springfield');
    // Wide and special-purpose claims would make Cordon answer everyone: refused with a field message.
    for (const wide of ['0.0.0.0/0', '::/0', '127.0.0.0/8', '::ffff:0:0/96']) {
      const open = await claim([wide]);
      expect(open.status, wide).toBe(400);
      expect((open.body as { fields?: Record<string, string> }).fields?.['addresses'], wide).toBeTruthy();
    }
    // The resolver still answers the victim's source with the victim's policy, and nobody else.
    const blocked = await dig(dnsPort, gamblingNames()[0] ?? '', 'A', ['-b', '127.0.0.1']);
    expect(blocked).toMatchObject({ status: 'NOERROR' });
    expect(blocked.answers.map((a) => a.data)).toEqual(['127.0.0.1']);
    expect((await dig(dnsPort, unlistedName, 'A', ['-b', '127.0.0.2'])).status).toBe('REFUSED');
  });

  it('shuts down cleanly on SIGTERM, flushing the query log', async () => {
    // Answered just before the signal: still in the buffer (flushed every 500 ms) when it arrives.
    expect((await dig(dnsPort, unlistedName)).status).toBe('NOERROR');
    const code = await cordon.stop();
    stopped = true;
    expect(code).toBe(0);
    expect(cordon.output).toContain('cordon: stopped');
    const handle = openDatabase({ sqlitePath: join(dataDir, 'cordon.sqlite') });
    try {
      const rows = await handle.db.selectFrom('query_log').select(['qname', 'action']).orderBy('id').execute();
      // 4 counted on the overview, the hijack check's blocked answer, the one just before the signal.
      expect(rows).toHaveLength(6);
      expect(rows.at(-1)).toEqual({ qname: unlistedName, action: 'allowed' });
    } finally {
      await handle.close();
    }
  });
});
