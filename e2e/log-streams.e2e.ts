/**
 * Per-MSP query-log destinations in the console (docs/operations.md "Query-log streaming" "Per-MSP
 * destinations"): an MSP admin opens Global settings → Query-log streams (empty), adds an NDJSON
 * destination pointing at a loopback receiver (the operator allows loopback with
 * CORDON_OUTBOUND_ALLOW), sees one toast and the row; `dig` from its customer's location reaches the
 * receiver with the token; the admin disables it, then deletes it through a confirmation naming
 * what stops. The page is axe clean at 1280 px and, with its form, at 390 px without overflow.
 * Screenshots land in e2e/artifacts/ls-*.png.
 */
import { mkdirSync, mkdtempSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations, formatViolations } from './axe.ts';
import { apiLogin } from './support/api.ts';
import { horizontalOverflow, launchBrowser } from './support/browser.ts';
import { type CordonProcess, startCordon } from './support/cordon.ts';
import { dig, type FakeUpstream, freePort, startFakeUpstream } from './support/dns.ts';

const ARTIFACTS = fileURLToPath(new URL('./artifacts/', import.meta.url));
const ADMIN_EMAIL = 'admin@example.com';
const ADMIN_PASSWORD = 'Story-test-1';
const MSP_EMAIL = 'mia@northwind.test';
const MSP_PASSWORD = 'Msp-admin-pass-1';
const TOKEN = 'Splunk e2e-hec-token-0123456789';

describe('query-log streams page (issue 26, per-MSP destinations)', () => {
  let upstream: FakeUpstream;
  let cordon: CordonProcess;
  let browser: Browser;
  let page: Page;
  let httpPort: number;
  let dnsPort: number;
  let receiver: http.Server;
  let receiverUrl = '';
  const lines: Array<Record<string, unknown>> = [];
  const auth: Array<string | undefined> = [];
  const browserProblems: string[] = [];

  const shot = (name: string) => page.screenshot({ path: join(ARTIFACTS, `ls-${name}.png`), fullPage: true });
  const table = () => page.getByTestId('log-streams-table');

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    upstream = await startFakeUpstream();
    receiver = http.createServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => {
        body += d.toString();
      });
      req.on('end', () => {
        auth.push(req.headers.authorization);
        for (const l of body.split('\n').filter(Boolean)) lines.push(JSON.parse(l) as Record<string, unknown>);
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/services/collector/raw`;
    httpPort = await freePort();
    dnsPort = await freePort();
    cordon = await startCordon({
      CORDON_DATA_DIR: mkdtempSync(join(tmpdir(), 'cordon-e2e-ls-')),
      CORDON_HTTP_ADDR: `127.0.0.1:${httpPort}`,
      CORDON_DNS_ADDR: `127.0.0.1:${dnsPort}`,
      CORDON_BLOCKPAGE_ADDR: `127.0.0.1:${await freePort()}`,
      CORDON_BLOCKPAGE_HTTPS_ADDR: `127.0.0.1:${await freePort()}`,
      CORDON_UPSTREAM: `127.0.0.1:${upstream.port}`,
      CORDON_ADMIN_EMAIL: ADMIN_EMAIL,
      CORDON_ADMIN_PASSWORD: ADMIN_PASSWORD,
      CORDON_OUTBOUND_ALLOW: '127.0.0.0/8',
    });
    const system = await apiLogin(httpPort, ADMIN_EMAIL, ADMIN_PASSWORD);
    const msp = await system.call('POST', '/msp', {
      name: 'Northwind MSP',
      company_name: 'Northwind IT Ltd',
      admin_email: MSP_EMAIL,
      admin_password: MSP_PASSWORD,
    });
    expect(msp.status, JSON.stringify(msp.body)).toBe(201);
    const customer = await system.call('POST', '/users/', {
      accountName: 'Acme School',
      msp_id: (msp.body as { id: number }).id,
      admin_email: 'acme@northwind.test',
      admin_password: 'Customer-admin-1',
    });
    const customerId = (customer.body as { id: number }).id;
    const policy = await system.call('POST', '/policies', {
      user_id: customerId,
      name: 'Staff',
      filtering_level: 'low',
    });
    const located = await system.call('POST', `/users/${customerId}/locations/staticip`, {
      name: 'Main campus',
      addresses: ['127.0.0.1/32'],
      policy_id: (policy.body as { id: number }).id,
    });
    expect(located.status, JSON.stringify(located.body)).toBeLessThan(300);
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    page.on('pageerror', (err) => browserProblems.push(`page error: ${err.message}`));
    page.on('console', (msg) => {
      if (msg.type() === 'error' && /Content Security Policy|Refused to/i.test(msg.text()))
        browserProblems.push(msg.text());
    });
  });

  afterAll(async () => {
    await browser?.close();
    await cordon?.stop();
    receiver?.closeAllConnections();
    receiver?.close();
    await upstream?.close();
  });

  it('shows the empty page, axe clean, and adds an NDJSON destination with one toast', async () => {
    await page.goto(`http://127.0.0.1:${httpPort}/`);
    await page.getByLabel('Email').fill(MSP_EMAIL);
    await page.getByLabel('Password').fill(MSP_PASSWORD);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL('**/msp/overview');
    await page.getByRole('link', { name: 'Query-log streams' }).first().click();
    await page.waitForURL('**/msp/global_settings/log_streams');
    await page.getByText('No destination yet', { exact: false }).waitFor();
    await shot('01-empty');
    const axe = await axeViolations(page);
    expect(axe, formatViolations(axe)).toEqual([]);

    await page.getByRole('button', { name: 'New destination' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Name').fill('Acme SIEM');
    await dialog.getByLabel('Address').fill(receiverUrl);
    await dialog.getByLabel('Authorization header').fill(TOKEN);
    const formAxe = await axeViolations(page, { include: '[role="dialog"]' });
    expect(formAxe, formatViolations(formAxe)).toEqual([]);
    await shot('02-form');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await page.getByText('Destination created.').waitFor();
    await dialog.waitFor({ state: 'hidden' });
    expect(await page.getByText('Destination created.').count()).toBe(1);
    await expect.poll(() => table().textContent()).toContain('Acme SIEM');
    expect(await table().textContent()).toContain(receiverUrl);
  });

  it("streams the customer's queries to it, with the token", async () => {
    // The writer thread re-reads the destinations every 5 s; then each query reaches the receiver.
    await expect
      .poll(
        async () => {
          await dig(dnsPort, `q${lines.length}.acme.example`);
          return lines.some((l) => String(l.qname).endsWith('.acme.example'));
        },
        { timeout: 20_000, interval: 1000 },
      )
      .toBe(true);
    expect(auth.every((a) => a === TOKEN)).toBe(true);
  });

  it('disables it, then deletes it through a confirmation naming what stops', async () => {
    // By keyboard (Mantine's track covers the input): focus the labelled switch, Space toggles it.
    await page.getByRole('switch', { name: 'Enabled: Acme SIEM' }).focus();
    await page.keyboard.press('Space');
    await page.getByText('Destination disabled.').waitFor();
    await page.getByRole('button', { name: 'Delete Acme SIEM' }).click();
    const dialog = page.getByRole('dialog');
    const text = (await dialog.textContent()) ?? '';
    expect(text).toContain(`Acme SIEM (${receiverUrl}) will receive no more of your customers' queries.`);
    await shot('03-delete');
    await dialog.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.getByText('Destination deleted.').waitFor();
    await page.getByText('No destination yet', { exact: false }).waitFor();
  });

  it('is axe clean and fits 390 px, form included', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.reload();
    await page.getByText('No destination yet', { exact: false }).waitFor();
    await page.getByRole('button', { name: 'New destination' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('radio', { name: 'Syslog (RFC 5424, TCP or TLS)' }).check();
    await dialog.getByLabel('Address').waitFor();
    expect(await dialog.getByLabel('Authorization header').count()).toBe(0);
    await shot('04-form-390');
    const axe = await axeViolations(page, { include: '[role="dialog"]' });
    expect(axe, formatViolations(axe)).toEqual([]);
    expect(await horizontalOverflow(page)).toBe(0);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect(browserProblems).toEqual([]);
  });
});
