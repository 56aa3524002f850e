/**
 * Issue #7's story, end to end as a customer admin would live it: a policy's Blocked list edited in
 * the console, the resolver answering the listed name (and its subdomains) with the block address,
 * the block page branded in the console (a logo upload, refused when too large or too wide; a title
 * and a support contact), the HTTPS block page, with that branding, served with a certificate minted from the deployment's root CA (trusted by
 * Chromium through that CA's SPKI pin), a cloud key created in the console and entered on the block
 * page lifting the block for that device only, and a CSV import with a bad line refused as a whole.
 * Screenshots of every step land in e2e/artifacts/cf-*.png.
 */

import { createHash, randomBytes, X509Certificate } from 'node:crypto';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations, formatViolations } from './axe.ts';
import { type ApiSession, apiLogin } from './support/api.ts';
import { chromiumPath, horizontalOverflow, launchBrowser, visit } from './support/browser.ts';
import { type CordonProcess, startCordon } from './support/cordon.ts';
import { dig, type FakeUpstream, freePort, startFakeUpstream } from './support/dns.ts';
import { solidPng } from './support/png.ts';

const ARTIFACTS = fileURLToPath(new URL('./artifacts/', import.meta.url));
const ADMIN_EMAIL = 'admin@example.com';
const ADMIN_PASSWORD = 'Story-test-1';
const CUSTOMER_EMAIL = 'carla@springfield.test';
const CUSTOMER_PASSWORD = 'Customer-admin-1';
const BLOCKED = 'blocked-by-list.example';
const CLOUD_KEY = 'springfield-teachers-2026';

/**
 * Downloads the deployment's root CA as PEM text (`GET /certificates/machine/download?type=pem`),
 * logged in as `email` with the same PKCE login as `apiLogin` (the answer is a file, not JSON).
 */
async function downloadRootCa(httpPort: number, email: string, password: string): Promise<string> {
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
    headers: { authorization: `Basic ${Buffer.from(`${email}:${password}`).toString('base64')}` },
  });
  if (login.status !== 200) throw new Error(`login ${email}: ${login.status} ${await login.text()}`);
  const token = ((await login.json()) as { access_token: string }).access_token;
  const res = await fetch(`${base}/certificates/machine/download?type=pem`, {
    headers: { authorization: `Bearer ${token}` },
  });
  if (res.status !== 200) throw new Error(`CA download: ${res.status} ${await res.text()}`);
  return res.text();
}

/** The base64 SHA-256 of a certificate's SubjectPublicKeyInfo, as `--ignore-certificate-errors-spki-list` wants. */
function spkiHash(pem: string): string {
  const spki = new X509Certificate(pem).publicKey.export({ type: 'spki', format: 'der' });
  return createHash('sha256').update(spki).digest('base64');
}

describe('content filtering story (issue #7)', () => {
  let upstream: FakeUpstream;
  let cordon: CordonProcess;
  let browser: Browser;
  let blockBrowser: Browser | undefined;
  let page: Page;
  let httpPort: number;
  let dnsPort: number;
  let httpsPort: number;
  let customer: ApiSession;
  let policyId = 0;
  const browserProblems: string[] = [];

  const shot = (p: Page, name: string) => p.screenshot({ path: join(ARTIFACTS, `cf-${name}.png`), fullPage: true });
  const blockedCount = async () => {
    const answer = await customer.call('GET', `/policies/${policyId}/domains/block`);
    expect(answer.status).toBe(200);
    return (answer.body as { total: number }).total;
  };

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    upstream = await startFakeUpstream();
    httpPort = await freePort();
    dnsPort = await freePort();
    httpsPort = await freePort();
    cordon = await startCordon({
      CORDON_DATA_DIR: mkdtempSync(join(tmpdir(), 'cordon-e2e-cf-')),
      CORDON_HTTP_ADDR: `127.0.0.1:${httpPort}`,
      CORDON_DNS_ADDR: `127.0.0.1:${dnsPort}`,
      CORDON_BLOCKPAGE_ADDR: `127.0.0.1:${await freePort()}`,
      CORDON_BLOCKPAGE_HTTPS_ADDR: `127.0.0.1:${httpsPort}`,
      CORDON_UPSTREAM: `127.0.0.1:${upstream.port}`,
      CORDON_ADMIN_EMAIL: ADMIN_EMAIL,
      CORDON_ADMIN_PASSWORD: ADMIN_PASSWORD,
    });
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    page.on('pageerror', (err) => browserProblems.push(`page error: ${err.message}`));
    page.on('console', (msg) => {
      if (msg.type() === 'error' && /Content Security Policy|Refused to/i.test(msg.text()))
        browserProblems.push(msg.text());
    });
  });

  afterAll(async () => {
    await blockBrowser?.close();
    await browser?.close();
    await cordon?.stop();
    await upstream?.close();
  });

  it('sets up an MSP, a customer with its admin and a static-IP location 127.0.0.1/32 through the API', async () => {
    const system = await apiLogin(httpPort, ADMIN_EMAIL, ADMIN_PASSWORD);
    const msp = await system.call('POST', '/msp', { name: 'Northwind MSP', company_name: 'Northwind Networks Ltd' });
    expect(msp.status, JSON.stringify(msp.body)).toBe(201);
    const created = await system.call('POST', '/users/', {
      accountName: 'Springfield School',
      msp_id: (msp.body as { id: number }).id,
      admin_email: CUSTOMER_EMAIL,
      admin_name: 'Carla Springfield',
      admin_password: CUSTOMER_PASSWORD,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const { id: customerId, default_policy_id } = created.body as { id: number; default_policy_id: number | null };
    expect(default_policy_id).not.toBeNull();
    policyId = default_policy_id ?? 0;
    const location = await system.call('POST', `/users/${customerId}/locations/staticip`, {
      name: 'Main campus',
      addresses: ['127.0.0.1/32'],
      policy_id: policyId,
    });
    expect(location.status, JSON.stringify(location.body)).toBe(201);
    customer = await apiLogin(httpPort, CUSTOMER_EMAIL, CUSTOMER_PASSWORD);
    expect(await blockedCount()).toBe(0);
  });

  it('adds blocked-by-list.example to the Blocked list in the console as the customer admin', async () => {
    await page.goto(`http://127.0.0.1:${httpPort}/`);
    await page.getByLabel('Email').fill(CUSTOMER_EMAIL);
    await page.getByLabel('Password').fill(CUSTOMER_PASSWORD);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL('**/customer/overview');
    await shot(page, '00-customer-overview');
    // The menu's groups start open: Content filtering → Domains.
    await page.getByRole('link', { name: 'Domains', exact: true }).click();
    await page.waitForURL('**/customer/content_filtering/domains**');
    await expect.poll(() => page.title()).toBe('Cordon | Domains');
    await page.getByRole('tab', { name: 'Blocked' }).click();
    await page.getByTestId('domains-empty').waitFor();
    await shot(page, '01-domains-empty');

    await page.getByRole('button', { name: 'Add domain' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText('Blocked', { exact: true }).click();
    await dialog.getByRole('textbox', { name: /^Domain/ }).fill(BLOCKED);
    await dialog.getByRole('checkbox', { name: /^Include subdomains/ }).check();
    await shot(page, '02-add-domain');
    await dialog.getByRole('button', { name: 'Add domain' }).click();
    await page.getByText(`${BLOCKED} added`).waitFor();
    await dialog.waitFor({ state: 'hidden' });
    await expect.poll(() => page.getByTestId('domains-table').textContent()).toContain(BLOCKED);
    await shot(page, '03-domain-added');
    expect(await blockedCount()).toBe(1);
  });

  it('answers the listed name and its subdomains with the block address', async () => {
    for (const name of [BLOCKED, `www.${BLOCKED}`]) {
      await expect
        .poll(async () => (await dig(dnsPort, name)).answers.map((a) => a.data), { timeout: 5000, interval: 200 })
        .toEqual(['127.0.0.1']);
    }
    expect(upstream.asked).not.toContain(BLOCKED);
  });

  it("brands the customer's block page in the console: a logo, a title and a support contact", async () => {
    await page.getByRole('link', { name: 'Block page', exact: true }).click();
    await page.waitForURL('**/customer/content_filtering/block_page');
    const logoSection = page.getByRole('region', { name: 'Logo' });
    const picker = logoSection.locator('input[type="file"]');
    // Too large for the 1 MB limit: refused in the page before anything is sent.
    await picker.setInputFiles({ name: 'huge.png', mimeType: 'image/png', buffer: Buffer.alloc(1024 * 1024 + 1) });
    await logoSection.getByText('File size exceeds maximum of 1mb.').waitFor();
    // Too wide: the server's dimension message under the field, nothing stored.
    await picker.setInputFiles({ name: 'wide.png', mimeType: 'image/png', buffer: solidPng(2000, 10) });
    await page.getByRole('button', { name: 'Upload logo' }).click();
    await logoSection.getByText('The image dimensions are too big.').waitFor();
    await picker.setInputFiles({ name: 'springfield.png', mimeType: 'image/png', buffer: solidPng(160, 48) });
    await page.getByRole('button', { name: 'Upload logo' }).click();
    await page.getByText('Logo uploaded.').waitFor();
    await page.getByRole('img', { name: 'Current logo' }).waitFor();
    await page.getByLabel('Title').fill('Springfield School network');
    await page.getByLabel('Support contact').fill('helpdesk@springfield.test');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Block page saved.').waitFor();
    await shot(page, '03b-block-page-branding');
  });

  it('serves the HTTPS block page with a certificate from the root CA, the host and the reason', async () => {
    const pem = await downloadRootCa(httpPort, CUSTOMER_EMAIL, CUSTOMER_PASSWORD);
    expect(pem).toMatch(/^-----BEGIN CERTIFICATE-----/);
    const hash = spkiHash(pem);
    blockBrowser = await chromium.launch({
      executablePath: chromiumPath(),
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--no-first-run',
        `--ignore-certificate-errors-spki-list=${hash}`,
        `--host-resolver-rules=MAP ${BLOCKED} 127.0.0.1:${httpsPort}`,
      ],
    });
    const blockPage = await blockBrowser.newPage({ viewport: { width: 1000, height: 700 } });
    const response = await blockPage.goto(`https://${BLOCKED}/`);
    expect(response?.status()).toBe(200);
    // A TLS connection Chromium accepted: no interstitial, and the leaf names the host.
    const tls = await response?.securityDetails();
    expect(tls?.subjectName).toBe(BLOCKED);
    expect(tls?.protocol).toMatch(/TLS/);
    // The customer's branding: its title, its support contact and its logo, loaded over the same TLS.
    expect(await blockPage.title()).toBe('Springfield School network');
    await blockPage.getByRole('heading', { name: 'Springfield School network' }).waitFor();
    await blockPage.getByRole('link', { name: 'helpdesk@springfield.test' }).waitFor();
    const logo = blockPage.locator('img.logo');
    await expect
      .poll(() =>
        logo.evaluate((img) => {
          const image = img as unknown as { complete: boolean; naturalWidth: number };
          return image.complete && image.naturalWidth;
        }),
      )
      .toBe(160);
    await blockPage.getByText(BLOCKED, { exact: true }).waitFor();
    await blockPage.getByText('This site is on your organisation’s block list.').waitFor();
    await blockPage.getByLabel('Cloud key').waitFor();
    await shot(blockPage, '04-https-block-page');
  });

  it('creates a cloud key in the console and unblocks this device with it on the block page', async () => {
    await page.getByRole('link', { name: 'Cloud Keys', exact: true }).click();
    await page.waitForURL('**/customer/content_filtering/cloud_keys');
    await page.getByRole('button', { name: 'New cloud key' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('textbox', { name: /^Key/ }).fill(CLOUD_KEY);
    await dialog.getByLabel('Description').fill('For teachers');
    // An out-of-range number is refused with the rule, not silently clamped to the minimum.
    await dialog.getByLabel('Maximum uses').fill('0');
    await dialog.getByLabel('Description').focus();
    expect(await dialog.getByLabel('Maximum uses').inputValue()).toBe('0');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await dialog.getByText('Must be a positive integer.').waitFor();
    await dialog.getByLabel('Maximum uses').fill('');
    await shot(page, '05-new-cloud-key');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await page.getByText('Cloud Key added').waitFor();
    await dialog.waitFor({ state: 'hidden' });
    await expect.poll(() => page.getByTestId('cloudkeys-table').textContent()).toContain(CLOUD_KEY);
    await shot(page, '06-cloud-keys');

    const blockPage = blockBrowser?.contexts()[0]?.pages()[0];
    if (!blockPage) throw new Error('the block page browser is not open');
    // A wrong key first: refused, the block stays.
    await blockPage.getByLabel('Cloud key').fill('not-the-right-key');
    await blockPage.getByRole('button', { name: 'Unblock' }).click();
    await blockPage.getByRole('alert').waitFor();
    await shot(blockPage, '07-cloud-key-refused');
    await blockPage.getByLabel('Cloud key').fill(CLOUD_KEY);
    await blockPage.getByRole('button', { name: 'Unblock' }).click();
    await blockPage.getByText('Access granted').waitFor();
    await shot(blockPage, '08-cloud-key-accepted');

    // The bypass belongs to 127.0.0.1 only: it resolves through the upstream, another source is refused.
    await expect
      .poll(async () => (await dig(dnsPort, BLOCKED)).answers.map((a) => a.data), { timeout: 10_000, interval: 250 })
      .toEqual([upstream.ipv4]);
    expect(upstream.asked).toContain(BLOCKED);
    expect((await dig(dnsPort, BLOCKED, 'A', ['-b', '127.0.0.2'])).status).toBe('REFUSED');
  });

  it('refuses a CSV import with a bad line, naming it, and changes nothing', async () => {
    await page.getByRole('link', { name: 'Domains', exact: true }).click();
    await page.waitForURL('**/customer/content_filtering/domains**');
    await page.getByRole('tab', { name: 'Blocked' }).click();
    await expect.poll(() => page.getByTestId('domains-table').textContent()).toContain(BLOCKED);
    await page.getByRole('button', { name: 'Import CSV' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText('Blocked', { exact: true }).click();
    await dialog.locator('input[type="file"]').setInputFiles({
      name: 'blocked.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from('fine-one.example\nhttps://bad.example/path\nfine-two.example\n'),
    });
    await dialog.getByRole('button', { name: 'Import CSV' }).click();
    const error = dialog.getByTestId('import-error');
    await error.waitFor();
    expect(await error.textContent()).toMatch(/Nothing was imported.*Line 2: .*URLs are not permitted/);
    await shot(page, '09-import-bad-line');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    expect(await blockedCount()).toBe(1);
    const table = (await page.getByTestId('domains-table').textContent()) ?? '';
    expect(table).not.toContain('fine-one.example');
    await shot(page, '10-domains-unchanged');
    expect(browserProblems).toEqual([]);
  });

  it('shows every content-filtering page without a serious or critical axe violation, at desktop and phone width', async () => {
    const pages = [
      '/customer/content_filtering/policies',
      `/customer/content_filtering/policies/${policyId}/domains`,
      '/customer/content_filtering/domains',
      '/customer/content_filtering/block_page',
      '/customer/content_filtering/cloud_keys',
      '/customer/settings/default_policy',
      '/customer/settings/default_policy/domains',
      '/customer/settings/static_routes',
      '/customer/settings/certificates',
    ];
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 860 });
      for (const path of pages) {
        await visit(page, `http://127.0.0.1:${httpPort}${path}`);
        const violations = await axeViolations(page);
        expect(violations, `${path} at ${width} px: ${formatViolations(violations)}`).toEqual([]);
        // Nothing wider than the screen: tables scroll inside their own box.
        const overflow = await horizontalOverflow(page);
        expect(overflow, `${path} at ${width} px is wider than the screen`).toBeLessThanOrEqual(0);
      }
      await shot(page, `11-last-page-${width}px`);
    }
    // The default policy's domains tab lists the same Blocked list as its policy page.
    await page.setViewportSize({ width: 1280, height: 860 });
    await page.goto(`http://127.0.0.1:${httpPort}/customer/settings/default_policy/domains`);
    await page.getByRole('tab', { name: 'Blocked', exact: true }).click();
    await expect.poll(() => page.getByTestId('domains-table').textContent()).toContain(BLOCKED);
  });

  it('lets the system admin add a hosts feed, fill it from a file, and dig answer its names as that category', async () => {
    const system = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    await system.goto(`http://127.0.0.1:${httpPort}/`);
    await system.getByLabel('Email').fill(ADMIN_EMAIL);
    await system.getByLabel('Password').fill(ADMIN_PASSWORD);
    await system.getByRole('button', { name: 'Log in' }).click();
    await system.waitForURL('**/system/overview');
    await system.goto(`http://127.0.0.1:${httpPort}/system/global_settings/category_feeds`);
    await system.getByText('No feeds yet: UT1 is the only source.').waitFor();
    await system.getByRole('button', { name: 'New feed' }).click();
    const dialog = system.getByRole('dialog');
    await dialog.getByRole('textbox', { name: /^Name/ }).fill('Phishing hosts');
    await dialog.getByLabel(/^Category/).click();
    await system.getByRole('option', { name: 'Phishing/Fraud', exact: true }).click();
    await dialog.getByLabel('Address (https://)').fill('http://not-secure.example/hosts');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await dialog.getByText('Please enter a valid URL starting with https://.').waitFor();
    await dialog.getByLabel('Address (https://)').fill('');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await system.getByText('Feed added.').waitFor();
    await dialog.waitFor({ state: 'hidden' });
    await system.getByRole('button', { name: 'Upload a file to Phishing hosts' }).click();
    await system
      .getByRole('dialog')
      .locator('input[type="file"]')
      .setInputFiles({
        name: 'phish.hosts',
        mimeType: 'text/plain',
        buffer: Buffer.from('0.0.0.0 phish-feed.example\n'),
      });
    await system.getByRole('dialog').getByRole('button', { name: 'Upload file' }).click();
    await system.getByText('File imported: 1 names.').waitFor();
    await system.getByRole('dialog').waitFor({ state: 'hidden' });
    await expect.poll(() => system.getByTestId('feeds-table').textContent()).toContain('OK');
    await shot(system, '12-category-feeds');
    const violations = await axeViolations(system);
    expect(violations, formatViolations(violations)).toEqual([]);
    await system.close();
    // Phishing is a security category every policy blocks: the resolver follows within a second or two.
    await expect
      .poll(async () => (await dig(dnsPort, 'phish-feed.example')).answers.map((a) => a.data), {
        timeout: 10_000,
        interval: 250,
      })
      .toEqual(['127.0.0.1']);
    expect(browserProblems).toEqual([]);
  });
});
