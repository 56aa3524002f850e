/**
 * Issue 29's policy editor, end to end as a customer admin would use it: a Low policy in force at
 * 127.0.0.1/32, gambling names asked with dig (allowed; Hate Speech is the group's one Low category), then in the console the "Drugs, gambling,
 * violence and hate" group blocked with one click — the unsaved-changes bar and the preview's figure
 * appear before anything is saved, and the figure equals a count made from History — saved once,
 * and dig shows the gambling name blocked. Axe at 1280 and 390 px; screenshots in
 * e2e/artifacts/pe-*.png.
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
import { type CordonProcess, runCordon, startCordon } from './support/cordon.ts';
import { dig, type FakeUpstream, freePort, startFakeUpstream } from './support/dns.ts';

const ARTIFACTS = fileURLToPath(new URL('./artifacts/', import.meta.url));
/** The feeds package's small UT1 fixture: three gambling names (category 20) and a few others, imported in a second. */
const UT1_FIXTURE = fileURLToPath(new URL('../packages/feeds/test/fixtures/ut1', import.meta.url));
const GAMBLING = ['bet-example.test', 'casino-example.test'];
const PLAIN = ['plain-one.example', 'plain-two.example'];
const ADMIN_EMAIL = 'admin@example.com';
const ADMIN_PASSWORD = 'Story-test-1';
const CUSTOMER_EMAIL = 'pat@riverside.test';
const CUSTOMER_PASSWORD = 'Customer-admin-1';

describe('policy editor (issue 29)', () => {
  let upstream: FakeUpstream;
  let cordon: CordonProcess;
  let browser: Browser;
  let page: Page;
  let dataDir: string;
  let httpPort: number;
  let dnsPort: number;
  let customer: ApiSession;
  let customerId = 0;
  let policyId = 0;
  let shownFigure = 0;
  /** Queries sent with dig so far: each one is logged once (dig runs with +tries=1). */
  let asked = 0;
  const ask = (name: string) => {
    asked++;
    return dig(dnsPort, name);
  };
  const browserProblems: string[] = [];

  const shot = (name: string) => page.screenshot({ path: join(ARTIFACTS, `pe-${name}.png`), fullPage: true });
  const axeClean = async (label: string) => {
    const violations = await axeViolations(page);
    expect(violations, `${label}:\n${formatViolations(violations)}`).toEqual([]);
  };

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    upstream = await startFakeUpstream();
    dataDir = mkdtempSync(join(tmpdir(), 'cordon-e2e-pe-'));
    httpPort = await freePort();
    dnsPort = await freePort();
    cordon = await startCordon({
      CORDON_DATA_DIR: dataDir,
      CORDON_HTTP_ADDR: `127.0.0.1:${httpPort}`,
      CORDON_DNS_ADDR: `127.0.0.1:${dnsPort}`,
      CORDON_BLOCKPAGE_ADDR: `127.0.0.1:${await freePort()}`,
      CORDON_BLOCKPAGE_HTTPS_ADDR: `127.0.0.1:${await freePort()}`,
      CORDON_UPSTREAM: `127.0.0.1:${upstream.port}`,
      CORDON_ADMIN_EMAIL: ADMIN_EMAIL,
      CORDON_ADMIN_PASSWORD: ADMIN_PASSWORD,
      // The roll-ups the preview reads are folded by the worker: every 500 ms here, not every 15 s.
      CORDON_WORKER_TICK_MS: '500',
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

  it('imports the categories, and sets up a customer with a Low policy at 127.0.0.1/32', async () => {
    const result = await runCordon(['categories', 'import', '--format', 'ut1', UT1_FIXTURE], {
      CORDON_DATA_DIR: dataDir,
    });
    expect(result.code, result.output.join('\n')).toBe(0);
    const system = await apiLogin(httpPort, ADMIN_EMAIL, ADMIN_PASSWORD);
    const msp = await system.call('POST', '/msp', { name: 'Riverside MSP', company_name: 'Riverside IT' });
    expect(msp.status, JSON.stringify(msp.body)).toBe(201);
    const mspId = (msp.body as { id: number }).id;
    // A probe customer at 127.0.0.2 with a Moderate policy: once dig from there sees a gambling name
    // blocked, the resolver has the imported categories, so every query of the customer under test
    // is logged with them (History's count below relies on it) and none of the probe's is its.
    const probe = await system.call('POST', '/users/', { accountName: 'Probe', msp_id: mspId });
    expect(probe.status, JSON.stringify(probe.body)).toBe(201);
    const probeId = (probe.body as { id: number }).id;
    const probePolicy = await system.call('POST', '/policies', {
      user_id: probeId,
      name: 'Probe',
      filtering_level: 'moderate',
    });
    expect(probePolicy.status, JSON.stringify(probePolicy.body)).toBe(201);
    const probeLocation = await system.call('POST', `/users/${probeId}/locations/staticip`, {
      name: 'Probe',
      addresses: ['127.0.0.2/32'],
      policy_id: (probePolicy.body as { id: number }).id,
    });
    expect(probeLocation.status, JSON.stringify(probeLocation.body)).toBe(201);
    const fromProbe = async () => (await dig(dnsPort, GAMBLING[0] ?? '', 'A', ['-b', '127.0.0.2'])).answers;
    await expect
      .poll(async () => (await fromProbe()).map((a) => a.data), { timeout: 10_000, interval: 200 })
      .toEqual(['127.0.0.1']);

    const created = await system.call('POST', '/users/', {
      accountName: 'Riverside Academy',
      msp_id: mspId,
      admin_email: CUSTOMER_EMAIL,
      admin_name: 'Pat Riverside',
      admin_password: CUSTOMER_PASSWORD,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    customerId = (created.body as { id: number }).id;
    customer = await apiLogin(httpPort, CUSTOMER_EMAIL, CUSTOMER_PASSWORD);
    const policy = await customer.call('POST', '/policies', {
      user_id: customerId,
      name: 'Students',
      filtering_level: 'low',
    });
    expect(policy.status, JSON.stringify(policy.body)).toBe(201);
    policyId = (policy.body as { id: number }).id;
    const location = await system.call('POST', `/users/${customerId}/locations/staticip`, {
      name: 'Main building',
      addresses: ['127.0.0.1/32'],
      policy_id: policyId,
    });
    expect(location.status, JSON.stringify(location.body)).toBe(201);
  });

  it('answers the gambling names under Low (allowed) and logs the queries', async () => {
    for (const [i, name] of [...GAMBLING, ...PLAIN].entries()) {
      for (let k = 0; k <= i; k++) {
        await expect
          .poll(async () => (await ask(name)).answers.map((a) => a.data), { timeout: 5000, interval: 200 })
          .toEqual([upstream.ipv4]);
      }
    }
    // Every query sent is logged (History's total, raw rows) and folded into the roll-ups by the
    // worker (the customer's 7-day request count).
    const counts = async () => {
      const stats = await customer.call('GET', `/users/${customerId}/stats/7days`);
      const history = await customer.call('GET', `/users/${customerId}/history/all/7days?limit=1`);
      return [(stats.body as { requests: number }).requests, (history.body as { total: number }).total];
    };
    await expect
      .poll(
        async () => {
          const [rolled, logged] = await counts();
          return rolled === logged && (logged ?? 0) >= asked;
        },
        { timeout: 15_000, interval: 500 },
      )
      .toBe(true);
  });

  it('blocks a group in the editor: the unsaved bar and the preview figure appear before saving', async () => {
    await page.goto(`http://127.0.0.1:${httpPort}/`);
    await page.getByLabel('Email').fill(CUSTOMER_EMAIL);
    await page.getByLabel('Password').fill(CUSTOMER_PASSWORD);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL('**/customer/overview');
    await page.goto(`http://127.0.0.1:${httpPort}/customer/content_filtering/policies/${policyId}`);
    const bar = page.getByTestId('unsaved-bar');
    await bar.getByText('All changes saved.').waitFor();
    const figure = page.getByTestId('policy-preview-figure');
    await expect.poll(() => figure.textContent()).toMatch(/With this policy, 0 of the last 7 days' \d+ queries/);
    await shot('01-editor-low');
    await axeClean('editor at 1280');

    const harmful = page.locator('section[data-group="harmful"]');
    await harmful.getByRole('button', { name: 'Block all: Drugs, gambling, violence and hate' }).click();
    await bar.getByText('You have unsaved changes: 6 categories.').waitFor();
    await expect(harmful.locator('[data-category-id="20"] [data-state]').getAttribute('data-state')).resolves.toBe(
      'blocked',
    );
    // The debounced preview: the gambling names' queries now count (History below says how many).
    await expect
      .poll(() => figure.textContent(), { timeout: 10_000 })
      .toMatch(/With this policy, [1-9]\d* of the last 7 days' \d+ queries/);
    shownFigure = Number(/policy, (\d+) of/.exec((await figure.textContent()) ?? '')?.[1]);
    const top = await page.getByTestId('policy-preview-top').textContent();
    for (const name of GAMBLING) expect(top).toContain(name);
    await page.getByTestId('policy-preview').scrollIntoViewIfNeeded();
    await shot('02-group-blocked-unsaved');
    await axeClean('editor with unsaved changes at 1280');
  });

  it('shows the same figure History counts', async () => {
    // The choices on screen: the Low set plus the group — the policy's categories once saved, the
    // same set computed here from the editor's blocked rows.
    const blockedIds = await page
      .locator('[data-category-id]')
      .evaluateAll((rows) =>
        rows
          .filter((r) => r.querySelector('[data-state="blocked"]'))
          .map((r) => Number(r.getAttribute('data-category-id'))),
      );
    expect(blockedIds).toContain(20);
    const history = await customer.call('GET', `/users/${customerId}/history/all/7days?limit=1000`);
    expect(history.status).toBe(200);
    const rows = (history.body as { data: Array<{ categories: Array<{ id: number }> }> }).data;
    const counted = rows.filter((r) => r.categories.some((c) => blockedIds.includes(c.id))).length;
    expect(shownFigure).toBe(counted);
  });

  it('saves once, and dig shows the gambling name blocked', async () => {
    const bar = page.getByTestId('unsaved-bar');
    await bar.getByRole('button', { name: 'Save' }).click();
    await bar.getByText('All changes saved.').waitFor();
    await shot('03-saved');
    const cats = await customer.call('GET', `/policies/${policyId}/categories`);
    // On the wire `allowed: true` means blocked (docs/api.md).
    expect((cats.body as Array<{ id: number; allowed: boolean }>).find((c) => c.id === 20)?.allowed).toBe(true);
    const policy = await customer.call('GET', `/policies/${policyId}`);
    expect((policy.body as { filtering_level: string }).filtering_level).toBe('custom');
    await expect
      .poll(async () => (await ask(GAMBLING[1] ?? '')).answers.map((a) => a.data), {
        timeout: 5000,
        interval: 200,
      })
      .toEqual(['127.0.0.1']);
    expect((await ask(PLAIN[0] ?? '')).answers.map((a) => a.data)).toEqual([upstream.ipv4]);
  });

  it("says the change in words in the system admin's audit log, the recorded detail one click away", async () => {
    const admin = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    admin.on('pageerror', (err) => browserProblems.push(`page error: ${err.message}`));
    await admin.goto(`http://127.0.0.1:${httpPort}/`);
    await admin.getByLabel('Email').fill(ADMIN_EMAIL);
    await admin.getByLabel('Password').fill(ADMIN_PASSWORD);
    await admin.getByRole('button', { name: 'Log in' }).click();
    await admin.waitForURL('**/system/**');
    await admin.goto(`http://127.0.0.1:${httpPort}/system/global_settings/audit_log`);
    const sentence = admin.getByText(/^pat@riverside\.test changed policy “Students”: blocked .*Gambling/);
    await sentence.waitFor();
    const row = admin.getByRole('row').filter({ has: sentence });
    const details = row.getByRole('button', { name: 'Details' });
    expect(await details.getAttribute('aria-expanded')).toBe('false');
    await details.click();
    expect(await details.getAttribute('aria-expanded')).toBe('true');
    await row.getByText('policy.categories.update').waitFor();
    await admin.screenshot({ path: join(ARTIFACTS, 'pe-06-audit-in-words.png'), fullPage: true });
    const wide = await axeViolations(admin);
    expect(wide, `audit log at 1280:\n${formatViolations(wide)}`).toEqual([]);
    await admin.setViewportSize({ width: 390, height: 844 });
    await admin.screenshot({ path: join(ARTIFACTS, 'pe-07-audit-phone.png'), fullPage: true });
    const narrow = await axeViolations(admin);
    expect(narrow, `audit log at 390:\n${formatViolations(narrow)}`).toEqual([]);
    await admin.close();
  });

  it('asks before leaving with unsaved changes, and is axe clean at 390 px', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    const social = page.locator('section[data-group="social"]');
    await social.getByRole('button', { name: 'Block all: Social and communication' }).click();
    await page
      .getByTestId('unsaved-bar')
      .getByText(/You have unsaved changes/)
      .waitFor();
    // Keyboard: the News row's choice is a radio pair; an arrow key moves it from Allowed to Blocked.
    const news = page.locator('[data-category-id="39"]');
    await news.getByRole('radio', { name: 'Allowed' }).focus();
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => news.locator('[data-state]').getAttribute('data-state')).toBe('blocked');
    expect(await news.getByRole('radio', { name: 'Blocked' }).isChecked()).toBe(true);
    await shot('04-phone-unsaved');
    // What a phone shows at once: the group, its rows and the bar at the bottom.
    await social.scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(ARTIFACTS, 'pe-04b-phone-viewport.png') });
    await page.evaluate('window.scrollTo(0, 0)');
    await page.screenshot({ path: join(ARTIFACTS, 'pe-04c-phone-top.png') });
    await axeClean('editor at 390');
    expect(await horizontalOverflow(page)).toBe(0);
    await page.getByRole('link', { name: 'All policies' }).click();
    const dialog = page.getByRole('dialog', { name: 'Leave without saving?' });
    await dialog.waitFor();
    await shot('05-leave-guard');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await page.getByTestId('unsaved-bar').getByRole('button', { name: 'Discard changes' }).click();
    await page.getByTestId('unsaved-bar').getByText('All changes saved.').waitFor();
    expect(browserProblems).toEqual([]);
  });
});
