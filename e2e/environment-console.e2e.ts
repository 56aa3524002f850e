/**
 * Issue #8's console story as a customer admin lives it: a location of each of the five types
 * created in the console (each opening on its id page, with the keys and the update URL shown), the
 * locations list paged and searched, a dynamic-IP address set through the DynDNS-compatible URL
 * with nothing but the location's key, a device enrolled through the agent API with the install key
 * appearing in the devices list with its last contact and user, and the groups reordered on the
 * ranking page by dragging and with the keyboard, saved through `/batch`. Screenshots of every step
 * land in e2e/artifacts/env-*.png.
 */

import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations, formatViolations } from './axe.ts';
import { type ApiSession, apiLogin } from './support/api.ts';
import { horizontalOverflow, launchBrowser, visit } from './support/browser.ts';
import { type CordonProcess, startCordon } from './support/cordon.ts';
import { type FakeUpstream, freePort, startFakeUpstream } from './support/dns.ts';

const ARTIFACTS = fileURLToPath(new URL('./artifacts/', import.meta.url));
const ADMIN_EMAIL = 'admin@example.com';
const ADMIN_PASSWORD = 'Story-test-1';
const CUSTOMER_EMAIL = 'erin@lakeside.test';
const CUSTOMER_PASSWORD = 'Customer-admin-1';

describe('environment console story (issue #8)', () => {
  let upstream: FakeUpstream;
  let cordon: CordonProcess;
  let browser: Browser;
  let page: Page;
  let httpPort: number;
  let customerId = 0;
  let customer: ApiSession;
  const browserProblems: string[] = [];
  const responses: string[] = [];
  const base = () => `http://127.0.0.1:${httpPort}`;
  const shot = (p: Page, name: string) => p.screenshot({ path: join(ARTIFACTS, `env-${name}.png`), fullPage: true });

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    upstream = await startFakeUpstream();
    httpPort = await freePort();
    cordon = await startCordon({
      CORDON_DATA_DIR: mkdtempSync(join(tmpdir(), 'cordon-e2e-env-')),
      CORDON_HTTP_ADDR: `127.0.0.1:${httpPort}`,
      CORDON_DNS_ADDR: `127.0.0.1:${await freePort()}`,
      CORDON_BLOCKPAGE_ADDR: `127.0.0.1:${await freePort()}`,
      CORDON_UPSTREAM: `127.0.0.1:${upstream.port}`,
      CORDON_ADMIN_EMAIL: ADMIN_EMAIL,
      CORDON_ADMIN_PASSWORD: ADMIN_PASSWORD,
    });
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on('pageerror', (err) => browserProblems.push(`page error: ${err.message}`));
    page.on('response', (r) => {
      if (r.url().includes('/restapi/'))
        responses.push(`${new Date().toISOString()} ${r.request().method()} ${r.url()} ${r.status()}`);
    });
  });

  afterAll(async () => {
    writeFileSync(join(ARTIFACTS, 'env-server.log'), [...(cordon?.output ?? []), ...responses].join('\n'));
    await browser?.close();
    await cordon?.stop();
    await upstream?.close();
  });

  it('sets up an MSP and a customer with its admin through the API, and logs in', async () => {
    const system = await apiLogin(httpPort, ADMIN_EMAIL, ADMIN_PASSWORD);
    const msp = await system.call('POST', '/msp', { name: 'Lakeside MSP', company_name: 'Lakeside Networks' });
    expect(msp.status, JSON.stringify(msp.body)).toBe(201);
    const created = await system.call('POST', '/users/', {
      accountName: 'Lakeside Clinic',
      msp_id: (msp.body as { id: number }).id,
      admin_email: CUSTOMER_EMAIL,
      admin_name: 'Erin Lakeside',
      admin_password: CUSTOMER_PASSWORD,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    customerId = (created.body as { id: number }).id;
    customer = await apiLogin(httpPort, CUSTOMER_EMAIL, CUSTOMER_PASSWORD);

    await page.goto(`${base()}/`);
    await page.getByLabel('Email').fill(CUSTOMER_EMAIL);
    await page.getByLabel('Password').fill(CUSTOMER_PASSWORD);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL('**/customer/overview');
  });

  it('creates a location of each type in the console, each opening on its id page', async () => {
    const create = async (type: string, name: string, fill: () => Promise<void>) => {
      await page.goto(`${base()}/customer/environment/locations`);
      await page.getByRole('button', { name: 'New location' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByLabel('Type', { exact: true }).click();
      await page.getByRole('option', { name: type, exact: true }).click();
      await dialog.getByRole('textbox', { name: /^Name/ }).fill(name);
      await fill();
      await dialog.getByRole('button', { name: 'Create' }).click();
      await page.getByText('Location created').waitFor();
      await page.waitForURL('**/customer/environment/locations/*/*');
      await expect.poll(() => page.title()).toBe(`Cordon | Location`);
      await page
        .getByRole('textbox', { name: /^Name/ })
        .and(page.locator(`[value="${name}"]`))
        .waitFor();
    };
    const dialog = page.getByRole('dialog');

    await create('Static IP', 'Head office', () =>
      dialog.getByRole('textbox', { name: /^Address 1/ }).fill('203.0.113.0/24'),
    );
    await shot(page, '01-static-location');

    // Validation first: a dynamic DNS location needs its host; a URL is refused with the spec's text.
    await page.goto(`${base()}/customer/environment/locations`);
    await page.getByRole('button', { name: 'New location' }).click();
    await dialog.getByLabel('Type', { exact: true }).click();
    await page.getByRole('option', { name: 'Dynamic DNS', exact: true }).click();
    await dialog.getByRole('textbox', { name: /^Name/ }).fill('Branch');
    await dialog.getByRole('textbox', { name: /^Host name/ }).fill('https://branch.example.net/');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await dialog.getByText('Please specify domain or partial domain only, URLs are not permitted.').waitFor();
    await shot(page, '02-dyndns-validation');
    await dialog.getByRole('button', { name: 'Cancel' }).click();

    await create('Dynamic DNS', 'Branch', () =>
      dialog.getByRole('textbox', { name: /^Host name/ }).fill('branch.example.net'),
    );
    await page.getByText('No address yet').first().waitFor();
    await create('Dynamic IP', 'Home office', async () => {});
    const updateUrl = (await page.getByTestId('location-update-url').textContent()) ?? '';
    expect(updateUrl).toMatch(/\/restapi\/locations\/dynamicip\/update\?key=[A-Za-z0-9_-]{32}&myip=$/);
    await shot(page, '03-dynamic-ip-page');

    // The DynDNS-compatible URL sets the address with the key alone (no login).
    const answer = await fetch(`${updateUrl}198.51.100.20`);
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ status: 'good', ip: '198.51.100.20' });
    await page.reload();
    await expect.poll(() => page.getByTestId('location-addresses').textContent()).toBe('198.51.100.20/32');
    await shot(page, '04-dynamic-ip-updated');

    await create('Roaming', 'Laptops', async () => {});
    await create('Virtual', 'Kiosks', async () => {});
    const doh = (await page.getByTestId('location-doh').textContent()) ?? '';
    expect(doh).toMatch(/^\/dns-query\/[A-Za-z0-9_-]{32}$/);
    // A new key replaces the old one.
    await page.getByRole('button', { name: 'New key' }).click();
    await page.getByText('A new key is active; the old one no longer works.').waitFor();
    await expect.poll(async () => page.getByTestId('location-doh').textContent()).not.toBe(doh);
    await shot(page, '05-virtual-location');
  });

  it('lists, filters and searches the locations, past one page', async () => {
    for (let i = 1; i <= 8; i++) {
      const res = await customer.call('POST', `/users/${customerId}/locations/virtual`, { name: `Kiosk ${i}` });
      expect(res.status).toBe(201);
    }
    await page.goto(`${base()}/customer/environment/locations`);
    const table = page.getByTestId('locations-table');
    await page.getByText('13 in total').waitFor();
    expect(await table.locator('tbody tr').count()).toBe(10);
    await page.getByRole('button', { name: 'Page 2' }).click();
    await expect.poll(() => table.locator('tbody tr').count()).toBe(3);
    await shot(page, '06-locations-page-2');
    await page.getByRole('textbox', { name: 'Search locations' }).fill('198.51.100');
    await expect.poll(() => table.locator('tbody tr').count()).toBe(1);
    expect(await table.textContent()).toContain('Home office');
    // A search that finds nothing says so (not "no locations yet").
    await page.getByRole('textbox', { name: 'Search locations' }).fill('no-such-location');
    await page.getByText('Nothing matches your search.').waitFor();
    await page.getByRole('textbox', { name: 'Search locations' }).fill('');
    await page.getByLabel('Location type').first().click();
    await page.getByRole('option', { name: 'Dynamic DNS', exact: true }).click();
    await expect.poll(() => table.locator('tbody tr').count()).toBe(1);
    await shot(page, '07-locations-filtered');

    // Delete two kiosks at once (one /batch), after the confirmation.
    await page.getByLabel('Location type').first().click();
    await page.getByRole('option', { name: 'Virtual', exact: true }).click();
    await page.getByRole('checkbox', { name: 'Select Kiosk 1' }).check();
    await page.getByRole('checkbox', { name: 'Select Kiosk 2' }).check();
    await page.getByRole('button', { name: 'Delete selected (2)' }).click();
    // The confirmation names both kiosks and what stops working (issue 29), not only a count.
    expect(await page.getByRole('dialog').getByTestId('delete-items').textContent()).toMatch(/Kiosk 1.*Kiosk 2/);
    expect(await page.getByRole('dialog').getByTestId('delete-consequence').textContent()).toContain(
      'will no longer be filtered for this customer',
    );
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await page.getByText('Deleted: 2').waitFor();
    const left = await customer.call('GET', `/users/${customerId}/locations/all?limit=100`);
    expect((left.body as { total: number }).total).toBe(11);

    // A phone-sized screen keeps the list usable.
    await page.setViewportSize({ width: 390, height: 844 });
    await shot(page, '08-locations-390px');
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('shows a device enrolled with the install key, with its last contact and its user', async () => {
    await page.goto(`${base()}/customer/settings/device_configuration`);
    const installKey = (await page.getByTestId('install-key').textContent()) ?? '';
    expect(installKey).toMatch(/^[A-Za-z0-9_-]{32}$/);
    await shot(page, '09-device-configuration');
    const enrol = await fetch(`${base()}/restapi/agent/enrol`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ install_key: installKey, name: 'reception-pc', os_type: 'linux', version: '0.9.0' }),
    });
    expect(enrol.status).toBe(201);
    const { device_key } = (await enrol.json()) as { device_key: string };
    const beat = await fetch(`${base()}/restapi/agent/heartbeat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ device_key, version: '1.0.0', user: 'frank' }),
    });
    expect(beat.status).toBe(200);

    await page.goto(`${base()}/customer/environment/devices`);
    const table = page.getByTestId('devices-table');
    await expect.poll(() => table.textContent()).toContain('reception-pc');
    expect(await table.textContent()).toContain('1.0.0');
    expect(await table.textContent()).not.toContain('Never');
    await shot(page, '10-devices');
    await table.getByRole('link', { name: 'reception-pc' }).click();
    await expect.poll(() => page.title()).toBe('Cordon | Device');
    // A JSON configuration must be valid JSON, then locks the details.
    await page.getByTestId('advanced-json').fill('{ "filters": [');
    await page.getByRole('button', { name: 'Save' }).last().click();
    await page.getByText('Must contain valid JSON.').waitFor();
    await page.getByTestId('advanced-json').fill('{ "filters": ["ads"] }');
    await page.getByRole('button', { name: 'Save' }).last().click();
    await page.getByText('JSON configuration saved').waitFor();
    await page.getByText("The device's details are locked").first().waitFor();
    await shot(page, '11-device-locked');
    // Resetting confirms with "Reset", not "Delete", and unlocks the details.
    await page.getByRole('button', { name: 'Reset', exact: true }).click();
    const resetDialog = page.getByRole('dialog', { name: 'Reset the JSON configuration' });
    expect(await resetDialog.getByRole('button', { name: 'Delete' }).count()).toBe(0);
    await resetDialog.getByRole('button', { name: 'Reset', exact: true }).click();
    await page.getByText('JSON configuration reset').waitFor();
    await page.getByText(/^The device's details are locked while/).waitFor({ state: 'detached' });

    await page.goto(`${base()}/customer/environment/users`);
    await expect.poll(() => page.getByTestId('users-table').textContent()).toContain('frank');
    await shot(page, '12-users');
  });

  it("manages device exceptions and their rules, keeping the last rule of one in use with the spec's text", async () => {
    await page.goto(`${base()}/customer/settings/device_exceptions`);
    await page.getByRole('button', { name: 'New device exception' }).click();
    await page.getByRole('dialog').getByRole('textbox', { name: /^Name/ }).fill('Intranet');
    await page.getByRole('dialog').getByRole('button', { name: 'Create' }).click();
    await page.getByText('Device exception created').waitFor();
    await expect.poll(() => page.title()).toBe('Cordon | Device exception');
    const addRule = async (domain: string, type: string, resolver?: string) => {
      await page.getByRole('button', { name: 'New rule' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByRole('textbox', { name: /^Domain/ }).fill(domain);
      await dialog.getByLabel(/^Rule type/).click();
      await page.getByRole('option', { name: type, exact: true }).click();
      if (resolver !== undefined) await dialog.getByRole('textbox', { name: /^Resolver/ }).fill(resolver);
      await dialog.getByRole('button', { name: 'Create' }).click();
    };
    await addRule('intranet.lakeside.test', 'Use Specific Resolver', '');
    await page.getByRole('dialog').getByText('This is a required field.').waitFor();
    await page
      .getByRole('dialog')
      .getByRole('textbox', { name: /^Resolver/ })
      .fill('192.0.2.53:5353');
    await page.getByRole('dialog').getByRole('button', { name: 'Create' }).click();
    await page.getByText('Rule added').waitFor();
    await addRule('printers.lakeside.test', 'ByPass OTG');
    await expect.poll(() => page.getByTestId('rules-table').locator('tbody tr').count()).toBe(2);
    await shot(page, '16-exception-rules');

    // In use as the device configuration's exception: its last rule cannot go.
    await page.goto(`${base()}/customer/settings/device_configuration`);
    await page.getByLabel('Device exception').first().click();
    await page.getByRole('option', { name: 'Intranet', exact: true }).click();
    await page.getByRole('button', { name: 'Save' }).first().click();
    await page.getByText('Device configuration saved').waitFor();
    await page.goto(`${base()}/customer/settings/device_exceptions`);
    await expect.poll(() => page.getByTestId('device-exceptions-table').textContent()).toMatch(/Intranet.*1.*2/);
    await page.getByTestId('device-exceptions-table').getByRole('link', { name: 'Intranet' }).click();
    await page.getByRole('checkbox', { name: 'Select intranet.lakeside.test' }).check();
    await page.getByRole('button', { name: 'Delete selected (1)' }).click();
    expect(await page.getByRole('dialog').getByTestId('delete-items').textContent()).toBe('intranet.lakeside.test');
    expect(await page.getByRole('dialog').getByTestId('delete-consequence').textContent()).toContain(
      'no longer apply these rules',
    );
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await page.getByText('Deleted: 1').waitFor();
    await page.getByRole('checkbox', { name: 'Select printers.lakeside.test' }).check();
    await page.getByRole('button', { name: 'Delete selected (1)' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await page
      .getByText("You can't delete the last item in this table. A device exception in use must keep at least one rule.")
      .first()
      .waitFor();
    await page.getByRole('dialog').waitFor({ state: 'hidden' });
    await shot(page, '17-last-rule-kept');
    expect(await page.getByTestId('rules-table').locator('tbody tr').count()).toBe(1);
  });

  it("lists a policy's locations on its locations tab", async () => {
    const policy = await customer.call('POST', '/policies', {
      user_id: customerId,
      name: 'Kiosk policy',
      filtering_level: 'high',
    });
    expect(policy.status, JSON.stringify(policy.body)).toBe(201);
    const policyId = (policy.body as { id: number }).id;
    const kiosks = await customer.call('GET', `/users/${customerId}/locations/virtual?filter=Kiosk%203`);
    const kiosk = (kiosks.body as { data: Array<{ id: number }> }).data[0];
    expect(kiosk).toBeDefined();
    await customer.call('POST', `/users/${customerId}/locations/virtual/${kiosk?.id}`, { policy_id: policyId });
    await page.goto(`${base()}/customer/content_filtering/policies/${policyId}`);
    await page.getByRole('tab', { name: 'Locations' }).click();
    await page.waitForURL(`**/policies/${policyId}/locations`);
    await expect.poll(() => page.getByTestId('policy-locations-table').textContent()).toContain('Kiosk 3');
    expect(await page.getByTestId('policy-locations-table').locator('tbody tr').count()).toBe(1);
    await shot(page, '18-policy-locations-tab');
    // The default policy's locations tab: every location inheriting it (Kiosk 3 no longer does).
    await page.goto(`${base()}/customer/settings/default_policy/locations`);
    await expect.poll(() => page.getByTestId('policy-locations-table').textContent()).toContain('Head office');
    expect(await page.getByTestId('policy-locations-table').textContent()).not.toContain('Kiosk 3');
    await page.getByText('10 in total').waitFor();
    await shot(page, '19-default-policy-locations-tab');
  });

  it('reorders the groups on the ranking page by dragging and with the keyboard, saved through /batch', async () => {
    await page.goto(`${base()}/customer/environment/groups`);
    await page.getByRole('button', { name: 'New group' }).click();
    await page.getByRole('dialog').getByRole('textbox', { name: /^Name/ }).fill('Doctors');
    await page.getByRole('dialog').getByRole('button', { name: 'Create' }).click();
    await page.getByText('Group created').waitFor();
    for (const name of ['Nurses', 'Guests']) {
      expect((await customer.call('POST', `/users/${customerId}/groups`, { name })).status).toBe(201);
    }
    await page.goto(`${base()}/customer/environment/groups-ranking`);
    const ranking = page.getByTestId('ranking-list');
    await ranking.getByText('Guests').waitFor();
    const order = async () => (await ranking.locator('li').allTextContents()).map((s) => s.replace(/^\d+/, '').trim());
    expect(await order()).toEqual(['Doctors', 'Nurses', 'Guests']);
    await shot(page, '13-ranking-before');
    // Drag Guests onto the first place.
    await page.getByTestId('rank-Guests').dragTo(page.getByTestId('rank-Doctors'));
    await expect.poll(order).toEqual(['Guests', 'Doctors', 'Nurses']);
    // Keyboard: focus Nurses, Alt+↑ moves it above Doctors.
    await page.getByLabel('3. Nurses').focus();
    await page.keyboard.press('Alt+ArrowUp');
    await expect.poll(order).toEqual(['Guests', 'Nurses', 'Doctors']);
    await shot(page, '14-ranking-moved');
    await page.getByRole('button', { name: 'Save ranking' }).click();
    await page.getByText('Ranking saved').waitFor();
    const saved = await customer.call('GET', `/users/${customerId}/groups?sortkey=weight`);
    expect(
      (saved.body as { data: Array<{ name: string; weight: number }> }).data.map((g) => [g.name, g.weight]),
    ).toEqual([
      ['Guests', 1],
      ['Nurses', 2],
      ['Doctors', 3],
    ]);
    await shot(page, '15-ranking-saved');
    expect(browserProblems).toEqual([]);
  });

  it('has no serious accessibility problem and nothing wider than the screen on its pages, at 1280 and 390 px', async () => {
    const first = async (path: string) => {
      const res = await customer.call('GET', path);
      return (res.body as { data: Array<{ id: number; type?: string }> }).data[0];
    };
    const location = await first(`/users/${customerId}/locations/dynamicip`);
    const device = await first(`/users/${customerId}/devices`);
    const exception = await first(`/device_exceptions?user_id=${customerId}`);
    const group = await first(`/users/${customerId}/groups`);
    const user = await first(`/users/${customerId}/users/`);
    const pages = [
      '/customer/environment/locations',
      `/customer/environment/locations/dynamicip/${location?.id}`,
      '/customer/environment/devices',
      `/customer/environment/devices/${device?.id}`,
      '/customer/settings/device_configuration',
      '/customer/settings/device_exceptions',
      `/customer/settings/device_exceptions/${exception?.id}`,
      '/customer/environment/groups',
      `/customer/environment/groups/${group?.id}`,
      '/customer/environment/groups-ranking',
      '/customer/environment/users',
      `/customer/environment/users/${user?.id}`,
    ];
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 860 });
      for (const path of pages) {
        await visit(page, `${base()}${path}`);
        const violations = await axeViolations(page);
        expect(violations, `${path} at ${width} px: ${formatViolations(violations)}`).toEqual([]);
        expect(await horizontalOverflow(page), `${path} at ${width} px is wider than the screen`).toBeLessThanOrEqual(
          0,
        );
      }
      await shot(page, `20-user-page-${width}px`);
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  });
});
