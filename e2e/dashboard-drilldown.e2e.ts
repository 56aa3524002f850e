/**
 * Issue 29 "Drill-down" on the MSP and system dashboards, end to end: two MSPs, three customers
 * with traffic sent with `dig` from their own addresses. An MSP admin clicks a top domain of its
 * dashboard, sees which of its customers made those queries (counts, sorted, state in the address,
 * the other MSP's customer absent), opens a customer from there with the keyboard and lands on its
 * History filtered to the domain, showing its rows; the system admin's dashboard breaks the same
 * domain down by MSP and leads to an MSP's customers, as does an MSP's page in the system area.
 * Axe clean at 1280 and 390 px.
 * Screenshots land in e2e/artifacts/drilldown-*.png.
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
const ADMIN = { email: 'admin@example.com', password: 'Drilldown-test-1' };
const MSP_ADMIN = { email: 'mona@drill.test', password: 'Msp-admin-1' };

describe('MSP and system dashboards drill down by customer and MSP into History (issue 29)', () => {
  let upstream: FakeUpstream;
  let cordon: CordonProcess;
  let browser: Browser;
  let httpPort: number;
  let dnsPort: number;
  let root: ApiSession;
  let birchId: number;
  let drillId: number;
  let otherId: number;
  const base = () => `http://127.0.0.1:${httpPort}`;
  const shot = (page: Page, name: string) =>
    page.screenshot({ path: join(ARTIFACTS, `drilldown-${name}.png`), fullPage: true });

  async function loginPage(who: { email: string; password: string }, width = 1280): Promise<Page> {
    const context = await browser.newContext({ viewport: { width, height: 900 } });
    const page = await context.newPage();
    await page.goto(`${base()}/`);
    await page.getByLabel('Email').fill(who.email);
    await page.getByLabel('Password').fill(who.password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL((url) => url.pathname !== '/');
    return page;
  }

  async function expectAxeClean(page: Page) {
    await page.waitForLoadState('networkidle');
    const violations = await axeViolations(page);
    expect(violations, formatViolations(violations)).toEqual([]);
  }

  /** The breakdown table's rows as `name count` text. */
  async function breakdownRows(page: Page): Promise<string[]> {
    const rows = page.getByTestId('breakdown-table').locator('tbody tr');
    const out: string[] = [];
    for (const row of await rows.all()) {
      const cells = await row.locator('td').allTextContents();
      out.push(`${cells[0]} ${cells[1]}`);
    }
    return out;
  }

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    upstream = await startFakeUpstream();
    httpPort = await freePort();
    dnsPort = await freePort();
    cordon = await startCordon({
      CORDON_DATA_DIR: mkdtempSync(join(tmpdir(), 'cordon-drilldown-')),
      CORDON_HTTP_ADDR: `127.0.0.1:${httpPort}`,
      CORDON_DNS_ADDR: `127.0.0.1:${dnsPort}`,
      CORDON_BLOCKPAGE_ADDR: `127.0.0.1:${await freePort()}`,
      CORDON_BLOCKPAGE_HTTPS_ADDR: `127.0.0.1:${await freePort()}`,
      CORDON_UPSTREAM: `127.0.0.1:${upstream.port}`,
      CORDON_ADMIN_EMAIL: ADMIN.email,
      CORDON_ADMIN_PASSWORD: ADMIN.password,
    });
    browser = await launchBrowser();
    root = await apiLogin(httpPort, ADMIN.email, ADMIN.password);
    const created = async (path: string, body: unknown) => {
      const res = await root.call('POST', path, body);
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return (res.body as { id: number }).id;
    };
    const drill = await created('/msp', {
      name: 'Drill MSP',
      company_name: 'Drill Networks Ltd',
      admin_email: MSP_ADMIN.email,
      admin_password: MSP_ADMIN.password,
    });
    drillId = drill;
    const other = await created('/msp', { name: 'Other MSP', company_name: 'Other Ltd' });
    // A customer per source address; Cedar Library has none (no traffic), Orchard is the other MSP's.
    otherId = other;
    const customers: Array<[string, number, string | null]> = [
      ['Acme School', drill, '127.0.0.1'],
      ['Birch College', drill, '127.0.0.2'],
      ['Cedar Library', drill, null],
      ['Orchard Farm', other, '127.0.0.3'],
    ];
    const ids = new Map<string, number>();
    for (const [accountName, mspId, address] of customers) {
      const id = await created('/users/', { accountName, msp_id: mspId });
      ids.set(accountName, id);
      if (address) await created(`/users/${id}/locations/staticip`, { name: 'Site', addresses: [`${address}/32`] });
    }
    birchId = ids.get('Birch College') ?? 0;
    // news.example: Acme 3, Birch 2, Orchard 4; video.example: Acme 1.
    const traffic: Array<[string, string, number]> = [
      ['127.0.0.1', 'news.example', 3],
      ['127.0.0.1', 'video.example', 1],
      ['127.0.0.2', 'news.example', 2],
      ['127.0.0.3', 'news.example', 4],
    ];
    for (const [from, name, times] of traffic) {
      for (let i = 0; i < times; i++) expect((await dig(dnsPort, name, 'A', ['-b', from])).status).toBe('NOERROR');
    }
    // The roll-ups have the queries once the log is folded (a moment).
    const deadline = Date.now() + 20_000;
    for (;;) {
      const stats = (await root.call('GET', '/stats/today')).body as { requests: number };
      if (stats.requests >= 10) break;
      if (Date.now() > deadline) throw new Error(`10 queries not in the stats within 20 s: ${stats.requests}`);
      await new Promise((r) => setTimeout(r, 300));
    }
  });

  afterAll(async () => {
    await browser?.close();
    await cordon?.stop();
    await upstream?.close();
  });

  it("breaks an MSP dashboard's top domain down by customer, then opens a customer's History filtered to it", async () => {
    const page = await loginPage(MSP_ADMIN);
    await page.waitForURL('**/msp/overview');
    const top = page.getByTestId('top-domains-allowed');
    await top.getByRole('link', { name: 'Who made the requests of news.example' }).click();
    await page.waitForURL(/\/msp\/overview\/breakdown\?domain=news\.example&action=allowed$/);
    await page.getByTestId('breakdown-table').waitFor();
    // Most first; the other MSP's customer and the customer without such queries are absent.
    expect(await breakdownRows(page)).toEqual(['Acme School 3', 'Birch College 2']);
    expect(await page.getByTestId('breakdown-summary').textContent()).toBe('5 requests from 2 customers');
    expect(await page.getByTestId('page-subtitle').textContent()).toBe('Domain news.example');

    // Sort and period live in the address: a reload shows the same.
    await page.getByRole('button', { name: 'Sort by Customer' }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('sort')).toBe('name');
    await page.getByText('Last 7 days', { exact: true }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('period')).toBe('7days');
    await page.reload();
    await page.getByTestId('breakdown-table').waitFor();
    expect(await breakdownRows(page)).toEqual(['Acme School 3', 'Birch College 2']);
    await page.getByRole('button', { name: 'Sort by Customer' }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('dir')).toBe('desc');
    await expect.poll(() => breakdownRows(page)).toEqual(['Birch College 2', 'Acme School 3']);
    // Blocked: none of these were, and the page says so.
    await page.getByText('Blocked', { exact: true }).click();
    await page.getByTestId('breakdown-empty').waitFor();
    expect(await page.getByTestId('breakdown-empty').textContent()).toBe(
      'No customer made these requests in this period.',
    );
    await page.getByText('Allowed', { exact: true }).click();
    await page.getByTestId('breakdown-table').waitFor();
    await shot(page, '1280-msp-breakdown');
    await expectAxeClean(page);

    // A customer's row, opened with the keyboard, leads to its History with the same filters.
    const birch = page.getByRole('link', { name: 'Birch College: open its history with these filters' });
    await birch.focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(/history_reports\?/);
    const url = new URL(page.url());
    expect(Object.fromEntries(url.searchParams)).toEqual({
      action: 'allowed',
      period: '7days',
      domain: 'news.example',
    });
    await page.getByTestId('history-filter-domain').waitFor();
    const cells = page.getByTestId('history-table').locator('tbody tr');
    await expect.poll(() => cells.count(), { timeout: 10_000 }).toBe(2);
    for (const text of await cells.allTextContents()) expect(text).toContain('news.example');
    // The history is the selected customer's: the row selected Birch College.
    expect(await page.evaluate("localStorage.getItem('selectedCustomer')")).toBe(String(birchId));
    await shot(page, '1280-history');
    await expectAxeClean(page);
    await page.context().close();
  });

  it('lays the breakdown out at 390 px, axe clean', async () => {
    const phone = await loginPage(MSP_ADMIN, 390);
    await phone.waitForURL('**/msp/overview');
    await phone.goto(`${base()}/msp/overview/breakdown?domain=news.example&action=allowed`);
    await phone.getByTestId('breakdown-table').waitFor();
    expect(await breakdownRows(phone)).toEqual(['Acme School 3', 'Birch College 2']);
    expect(await horizontalOverflow(phone)).toBeLessThanOrEqual(0);
    await shot(phone, '390-msp-breakdown');
    await expectAxeClean(phone);
    // An address without a domain or category says what is missing.
    await phone.goto(`${base()}/msp/overview/breakdown`);
    await phone.getByTestId('breakdown-missing').waitFor();
    await phone.context().close();
  });

  it("breaks the system dashboard's top domain down by MSP, then an MSP's by customer", async () => {
    const page = await loginPage(ADMIN);
    await page.waitForURL('**/system/overview');
    const top = page.getByTestId('top-domains-allowed');
    await top.getByRole('link', { name: 'Who made the requests of news.example' }).click();
    await page.waitForURL(/\/system\/overview\/breakdown\?domain=news\.example&action=allowed$/);
    await page.getByTestId('breakdown-table').waitFor();
    expect(await breakdownRows(page)).toEqual(['Drill MSP 5', 'Other MSP 4']);
    expect(await page.getByTestId('breakdown-summary').textContent()).toBe('9 requests from 2 MSPs');
    await shot(page, '1280-system-breakdown');
    await expectAxeClean(page);
    await page.getByRole('link', { name: 'Drill MSP: open its customers for these requests' }).click();
    await page.waitForURL(/\/msp\/overview\/breakdown\?domain=news\.example&action=allowed$/);
    // The MSP page renders in a transition: the MSPs' table shows until it is in.
    await expect.poll(() => breakdownRows(page), { timeout: 10_000 }).toEqual(['Acme School 3', 'Birch College 2']);
    expect(await page.evaluate("localStorage.getItem('selectedMsp')")).toBe(String(drillId));
    await shot(page, '1280-system-msp-customers');
    // An MSP's page in the system area drills the same way, selecting that MSP on the way.
    await page.goto(`${base()}/system/overview/${otherId}`);
    await page
      .getByTestId('top-domains-allowed')
      .getByRole('link', { name: 'Who made the requests of news.example' })
      .click();
    await page.waitForURL(/\/msp\/overview\/breakdown\?domain=news\.example&action=allowed$/);
    await expect.poll(() => breakdownRows(page), { timeout: 10_000 }).toEqual(['Orchard Farm 4']);
    expect(await page.evaluate("localStorage.getItem('selectedMsp')")).toBe(String(otherId));
    await expectAxeClean(page);
    await page.context().close();
  });
});
