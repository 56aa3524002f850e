/**
 * Issue #29's "deletes that know what they break", end to end: a customer with two policies, a
 * static-IP location 127.0.0.1/32 and a group on policy A, whose Blocked list holds a name; dig shows
 * the name blocked there. The customer admin deletes policy A in the console: the dialog names what
 * uses it (the location and the group, with counts) and asks which policy takes them over; policy B is
 * chosen, and dig then answers the name from upstream (B in force). The API refuses the same delete
 * without a target (409 with the counts). The dialog is axe clean at 1280 and 390 px. Screenshots land
 * in e2e/artifacts/sd-*.png.
 */
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations, formatViolations } from './axe.ts';
import { type ApiSession, apiLogin } from './support/api.ts';
import { horizontalOverflow, launchBrowser } from './support/browser.ts';
import { type CordonProcess, startCordon } from './support/cordon.ts';
import { dig, type FakeUpstream, freePort, startFakeUpstream } from './support/dns.ts';

const ARTIFACTS = fileURLToPath(new URL('./artifacts/', import.meta.url));
const ADMIN_EMAIL = 'admin@example.com';
const ADMIN_PASSWORD = 'Story-test-1';
const CUSTOMER_EMAIL = 'dora@lakeside.test';
const CUSTOMER_PASSWORD = 'Customer-admin-1';
const BLOCKED = 'social-network.example';
const UPSTREAM_ADDRESS = '192.0.2.80';

describe('safe deletes story (issue #29)', () => {
  let upstream: FakeUpstream;
  let cordon: CordonProcess;
  let browser: Browser;
  let page: Page;
  let httpPort: number;
  let dnsPort: number;
  let customer: ApiSession;
  let customerId = 0;
  let policyA = 0;
  let policyB = 0;
  let locationId = 0;
  let groupId = 0;
  let upstreamAsksBefore = 0;
  const browserProblems: string[] = [];

  const shot = (name: string) => page.screenshot({ path: join(ARTIFACTS, `sd-${name}.png`), fullPage: true });
  const answerOf = async (name: string) => (await dig(dnsPort, name)).answers.map((a) => a.data);

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    upstream = await startFakeUpstream(UPSTREAM_ADDRESS);
    httpPort = await freePort();
    dnsPort = await freePort();
    cordon = await startCordon({
      CORDON_DATA_DIR: mkdtempSync(join(tmpdir(), 'cordon-e2e-sd-')),
      CORDON_HTTP_ADDR: `127.0.0.1:${httpPort}`,
      CORDON_DNS_ADDR: `127.0.0.1:${dnsPort}`,
      CORDON_BLOCKPAGE_ADDR: `127.0.0.1:${await freePort()}`,
      CORDON_BLOCKPAGE_HTTPS_ADDR: `127.0.0.1:${await freePort()}`,
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
    await browser?.close();
    await cordon?.stop();
    await upstream?.close();
  });

  it('builds a customer with policies A and B, a location and a group on A, and a blocked name on A', async () => {
    const system = await apiLogin(httpPort, ADMIN_EMAIL, ADMIN_PASSWORD);
    const msp = await system.call('POST', '/msp', { name: 'Lakeside MSP', company_name: 'Lakeside IT Ltd' });
    expect(msp.status, JSON.stringify(msp.body)).toBe(201);
    const created = await system.call('POST', '/users/', {
      accountName: 'Lakeside School',
      msp_id: (msp.body as { id: number }).id,
      admin_email: CUSTOMER_EMAIL,
      admin_name: 'Dora Lakeside',
      admin_password: CUSTOMER_PASSWORD,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    customerId = (created.body as { id: number }).id;
    customer = await apiLogin(httpPort, CUSTOMER_EMAIL, CUSTOMER_PASSWORD);
    const ok = async (method: string, path: string, body?: unknown) => {
      const res = await customer.call(method, path, body);
      expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
      return res.body as { id: number };
    };
    // Low level blocks no social-network category: only the Blocked list decides the name.
    policyA = (await ok('POST', '/policies', { user_id: customerId, name: 'Pupils', filtering_level: 'low' })).id;
    policyB = (await ok('POST', '/policies', { user_id: customerId, name: 'Staff', filtering_level: 'low' })).id;
    await ok('POST', `/policies/${policyA}/domains/block?user_id=${customerId}`, { domain: BLOCKED });
    // A loopback address is the system admin's to claim (docs/decisions.md "Address claims").
    const location = await system.call('POST', `/users/${customerId}/locations/staticip`, {
      name: 'Main campus',
      addresses: ['127.0.0.1/32'],
      policy_id: policyA,
    });
    expect(location.status, JSON.stringify(location.body)).toBe(201);
    locationId = (location.body as { id: number }).id;
    groupId = (await ok('POST', `/users/${customerId}/groups`, { name: 'Year 7', policyid: policyA })).id;
  });

  it('blocks the name at the location under policy A (dig)', async () => {
    await expect.poll(() => answerOf(BLOCKED), { timeout: 10_000, interval: 200 }).toEqual(['127.0.0.1']);
    upstreamAsksBefore = upstream.asked.filter((n) => n === BLOCKED).length;
    // Blocked answers stay local: asked again, the upstream does not see the name.
    expect(await answerOf(BLOCKED)).toEqual(['127.0.0.1']);
    expect(upstream.asked.filter((n) => n === BLOCKED).length).toBe(upstreamAsksBefore);
  });

  it('refuses a plain API delete of policy A with 409 and what uses it', async () => {
    const res = await customer.call('DELETE', `/policies/${policyA}`);
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({
      code: 'ERR_IN_USE',
      dependants: { locations: { count: 1, names: ['Main campus'] }, groups: { count: 1, names: ['Year 7'] } },
    });
  });

  it('deletes policy A in the console, moving its location and group to policy B', async () => {
    await page.goto(`http://127.0.0.1:${httpPort}/`);
    await page.getByLabel('Email').fill(CUSTOMER_EMAIL);
    await page.getByLabel('Password').fill(CUSTOMER_PASSWORD);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL('**/customer/overview');
    await page.goto(`http://127.0.0.1:${httpPort}/customer/content_filtering/policies`);
    await expect.poll(() => page.getByTestId('policies-table').textContent()).toContain('Pupils');
    await page.getByRole('checkbox', { name: 'Select Pupils' }).check();
    await page.getByRole('button', { name: 'Delete selected (1)' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByTestId('delete-dependants').waitFor();
    const summary = (await dialog.getByTestId('delete-dependants').textContent()) ?? '';
    expect(summary).toContain('1 location (Main campus)');
    expect(summary).toContain('1 group (Year 7)');
    expect(await dialog.getByTestId('delete-items').textContent()).toContain('Pupils');
    // It says what stops working, not only how many (issue 29).
    expect(await dialog.getByTestId('delete-consequence').textContent()).toContain(
      'will be filtered by the policy you choose below instead',
    );
    // Nothing moves until a policy is chosen: Delete waits.
    const del = dialog.getByRole('button', { name: 'Delete', exact: true });
    expect(await del.isDisabled()).toBe(true);
    await shot('01-dialog-in-use');
    const axe = await axeViolations(page, { include: '[role="dialog"]' });
    expect(axe, formatViolations(axe)).toEqual([]);

    // The select is keyboard-usable: focus it, open with ArrowDown, pick Staff with Enter.
    const select = dialog.getByLabel(/Move their locations, groups, users and devices to/).first();
    await select.focus();
    await page.keyboard.press('ArrowDown');
    await page.getByRole('option', { name: 'Staff', exact: true }).waitFor();
    const options = await page.getByRole('option').allTextContents();
    expect(options).toContain('Default');
    expect(options).not.toContain('Pupils');
    await page.getByRole('option', { name: 'Staff', exact: true }).click();
    expect(await del.isDisabled()).toBe(false);
    await shot('02-dialog-target-chosen');
    await del.click();
    await page.getByText('Deleted: 1').waitFor();
    await dialog.waitFor({ state: 'hidden' });
    await expect.poll(() => page.getByTestId('policies-table').textContent()).not.toContain('Pupils');
    await shot('03-policy-deleted');

    const location = await customer.call('GET', `/users/${customerId}/locations/staticip/${locationId}`);
    expect(location.body).toMatchObject({ policy_id: policyB });
    const group = await customer.call('GET', `/users/${customerId}/groups/${groupId}`);
    expect(group.body).toMatchObject({ policy_id: policyB, policy: 'Staff' });
  });

  it('answers the name from upstream at the location now that policy B is in force (dig)', async () => {
    await expect.poll(() => answerOf(BLOCKED), { timeout: 10_000, interval: 200 }).toEqual([UPSTREAM_ADDRESS]);
    // (The upstream's answer may come from the answer cache: the name was resolved before A applied.)
  });

  it('shows the dialog axe clean and without overflow at 390 px', async () => {
    // Put B in use too (the location now names it), then open its delete dialog on a phone-sized screen.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.reload();
    await expect.poll(() => page.getByTestId('policies-table').textContent()).toContain('Staff');
    await page.getByRole('checkbox', { name: 'Select Staff' }).check();
    await page.getByRole('button', { name: 'Delete selected (1)' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByTestId('delete-dependants').waitFor();
    expect(await dialog.getByTestId('delete-dependants').textContent()).toContain('1 location (Main campus)');
    await shot('04-dialog-390');
    const axe = await axeViolations(page, { include: '[role="dialog"]' });
    expect(axe, formatViolations(axe)).toEqual([]);
    expect(await horizontalOverflow(page)).toBe(0);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    // Cancelled: B is still there and still in force.
    expect((await customer.call('GET', `/policies/${policyB}`)).status).toBe(200);
  });

  it('deletes the customer as the system admin only once its name is typed, naming what goes with it', async () => {
    await page.setViewportSize({ width: 1280, height: 860 });
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    const admin = await context.newPage();
    admin.on('pageerror', (err) => browserProblems.push(`page error: ${err.message}`));
    await admin.goto(`http://127.0.0.1:${httpPort}/`);
    await admin.getByLabel('Email').fill(ADMIN_EMAIL);
    await admin.getByLabel('Password').fill(ADMIN_PASSWORD);
    await admin.getByRole('button', { name: 'Log in' }).click();
    await admin.waitForURL('**/system/overview');
    // The MSP's name selects it and opens its area; the customer's page is under it.
    await admin.getByRole('link', { name: 'Lakeside MSP', exact: true }).click();
    await admin.waitForURL('**/msp/overview');
    await admin.goto(`http://127.0.0.1:${httpPort}/msp/overview/${customerId}`);
    await admin.getByRole('button', { name: 'Delete', exact: true }).click();
    const dialog = admin.getByRole('dialog');
    await dialog.getByTestId('delete-dependants').waitFor();
    const summary = (await dialog.getByTestId('delete-dependants').textContent()) ?? '';
    expect(summary).toContain('1 location (Main campus)');
    expect(summary).toContain('1 policy (Staff)');
    expect(summary).toContain('1 group (Year 7)');
    expect(summary).toContain(`1 administrator (${CUSTOMER_EMAIL})`);
    const del = dialog.getByRole('button', { name: 'Delete', exact: true });
    expect(await del.isDisabled()).toBe(true);
    const typed = dialog.getByRole('textbox', { name: /Type “Lakeside School” to confirm/ });
    await typed.fill('lakeside school');
    expect(await del.isDisabled()).toBe(true);
    await typed.fill('Lakeside School');
    await admin.screenshot({ path: join(ARTIFACTS, 'sd-05-customer-type-name.png'), fullPage: true });
    const axe = await axeViolations(admin, { include: '[role="dialog"]' });
    expect(axe, formatViolations(axe)).toEqual([]);
    await del.click();
    await admin.waitForURL('**/msp/overview');
    const system = await apiLogin(httpPort, ADMIN_EMAIL, ADMIN_PASSWORD);
    expect((await system.call('GET', `/users/${customerId}`)).status).toBe(404);
    await context.close();
    expect(browserProblems).toEqual([]);
  });
});
