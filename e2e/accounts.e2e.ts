/**
 * Issue #10's story, end to end in Chromium against a real `cordon serve`, with a loopback SMTP
 * server catching every mail: the system admin sets the mail settings and sends a test mail; an
 * MSP admin invites a colleague, who completes the registration from the mailed link; the colleague
 * enrols in 2FA (the TOTP code computed here as an authenticator app would) and logs in with it;
 * recovery codes work only in order; an MSP that enforces 2FA sends a new admin to the setup page;
 * a forgotten password is reset through the mailed link; the audit pages show each of these.
 * Screenshots of every step land in e2e/artifacts/acc-*.png.
 */

import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Secret, TOTP } from 'otpauth';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SmtpCatcher, startSmtpCatcher } from '../test/support/smtp-catcher.ts';
import { type ApiSession, apiLogin } from './support/api.ts';
import { launchBrowser } from './support/browser.ts';
import { type CordonProcess, startCordon } from './support/cordon.ts';
import { freePort } from './support/dns.ts';

const ARTIFACTS = fileURLToPath(new URL('./artifacts/', import.meta.url));
const ADMIN_EMAIL = 'admin@example.com';
const ADMIN_PASSWORD = 'Story-test-1';
const MSP_EMAIL = 'maria@northwind.test';
const MSP_PASSWORD = 'Msp-admin-1';
const COLLEAGUE = 'olivia@northwind.test';
/** The type attribute of the focused element (evaluated in the page). */
const FOCUSED_TYPE = "document.activeElement?.getAttribute('type')";
const COLLEAGUE_PASSWORD = 'Olivia-pass-1';
const ENFORCED = 'eddie@northwind.test';
const ENFORCED_PASSWORD = 'Eddie-pass-1';
const NEW_PASSWORD = 'Olivia-new-2';

/** The code an authenticator app shows for `secret` at `at` (RFC 6238 defaults: SHA-1, 6 digits, 30 s). */
function totp(secret: string, at: number): string {
  return new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate({
    timestamp: at,
  });
}

/** The link of a mail's text (`…/register?token=…` or `…/reset-password?token=…`). */
function linkOf(text: string): string {
  const m = /(http:\/\/\S+\?token=[A-Za-z0-9_-]{43})/.exec(text);
  if (!m?.[1]) throw new Error(`no link in: ${text}`);
  return m[1];
}

describe('accounts and security story (issue #10)', () => {
  let smtp: SmtpCatcher;
  let cordon: CordonProcess;
  let browser: Browser;
  let page: Page;
  let httpPort: number;
  let base: string;
  let system: ApiSession;
  let mspId = 0;
  let secret = '';
  let codes: string[] = [];
  /** The TOTP time step (30 s) used last: a code is accepted once, so each use needs a later step. */
  let lastStep = 0;
  const browserProblems: string[] = [];

  const shot = (name: string) => page.screenshot({ path: join(ARTIFACTS, `acc-${name}.png`), fullPage: true });
  /**
   * The code of the next unused time step, as an authenticator app shows it: the current step, or
   * the one after it (the server accepts one step of drift), waiting when even that has been used.
   */
  const nextCode = async () => {
    const stepNow = () => Math.floor(Date.now() / 30_000);
    const target = Math.max(stepNow(), lastStep + 1);
    while (target > stepNow() + 1) await new Promise((r) => setTimeout(r, 1000));
    lastStep = target;
    return totp(secret, target * 30_000 + 15_000);
  };

  async function logout() {
    await page.goto(`${base}/logout`);
    await page.waitForURL(`${base}/`);
    await page.getByRole('button', { name: 'Log in' }).waitFor();
  }

  async function fillLogin(email: string, password: string) {
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Log in' }).click();
  }

  /** Invites `email` from the MSP's Administrators page; returns the registration link from the mail. */
  async function invite(email: string, name: string): Promise<string> {
    await page.goto(`${base}/msp/global_settings/administrators`);
    await page.getByTestId('admins-table').waitFor();
    const since = smtp.mails.length;
    await page.getByRole('button', { name: 'New administrator' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Email').fill(email);
    await dialog.getByLabel('Full name').fill(name);
    await dialog.getByRole('button', { name: 'Send invitation' }).click();
    await page.getByText(`Invitation sent to ${email}`).waitFor();
    const mail = await smtp.waitFor(email, { since, timeoutMs: 10_000 });
    expect(mail.subject).toBe('You are invited to Northwind Filtering');
    expect(mail.text).toContain('an administrator of Northwind Filtering');
    return linkOf(mail.text);
  }

  /** Opens a registration or reset link and sets `password` (twice). */
  async function setPassword(link: string, password: string, shotName: string) {
    await page.goto(link);
    await page.getByLabel('New password').fill(password);
    await page.getByLabel('Confirm password').fill(`${password}x`);
    await page.getByRole('button', { name: /^Set (new )?password$/ }).click();
    await page.getByText('Passwords must match.').waitFor();
    await page.getByLabel('Confirm password').fill(password);
    await shot(shotName);
    await page.getByRole('button', { name: /^Set (new )?password$/ }).click();
    await page.getByTestId('password-set').waitFor();
  }

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    smtp = await startSmtpCatcher();
    httpPort = await freePort();
    base = `http://127.0.0.1:${httpPort}`;
    cordon = await startCordon({
      CORDON_DATA_DIR: mkdtempSync(join(tmpdir(), 'cordon-e2e-acc-')),
      CORDON_HTTP_ADDR: `127.0.0.1:${httpPort}`,
      CORDON_DNS_ADDR: `127.0.0.1:${await freePort()}`,
      CORDON_BLOCKPAGE_ADDR: `127.0.0.1:${await freePort()}`,
      CORDON_BLOCKPAGE_HTTPS_ADDR: `127.0.0.1:${await freePort()}`,
      CORDON_DOH_ADDR: `127.0.0.1:${await freePort()}`,
      CORDON_UPSTREAM: '127.0.0.1:9',
      CORDON_ADMIN_EMAIL: ADMIN_EMAIL,
      CORDON_ADMIN_PASSWORD: ADMIN_PASSWORD,
      // The SMTP catcher is on loopback: the outbound guard refuses it unless the operator allows it.
      CORDON_OUTBOUND_ALLOW: '127.0.0.1/32',
    });
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on('pageerror', (err) => browserProblems.push(`page error: ${err.message}`));
    page.on('console', (msg) => {
      if (msg.type() === 'error' && /Content Security Policy|Refused to/i.test(msg.text()))
        browserProblems.push(msg.text());
    });
    system = await apiLogin(httpPort, ADMIN_EMAIL, ADMIN_PASSWORD);
    const msp = await system.call('POST', '/msp', {
      name: 'Northwind MSP',
      company_name: 'Northwind Networks Ltd',
      admin_email: MSP_EMAIL,
      admin_name: 'Maria Northwind',
      admin_password: MSP_PASSWORD,
    });
    expect(msp.status, JSON.stringify(msp.body)).toBe(201);
    mspId = (msp.body as { id: number }).id;
    // The MSP's interface title: its admins' mail carries it, not the product's name.
    const branding = new FormData();
    branding.set('title', 'Northwind Filtering');
    const titled = await fetch(`${base}/restapi/ui/interface?msp_id=${mspId}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${system.token}` },
      body: branding,
    });
    expect(titled.status, await titled.clone().text()).toBe(200);
  });

  afterAll(async () => {
    await browser?.close();
    await cordon?.stop();
    await smtp?.close();
  });

  it('sets the system mail settings in the console and sends a test e-mail to the loopback SMTP server', async () => {
    await page.goto(`${base}/`);
    // Focus starts on the e-mail field, and returns there after a failed login with the password cleared.
    await page.getByLabel('Email').waitFor();
    await expect.poll(() => page.evaluate(FOCUSED_TYPE)).toBe('email');
    await fillLogin(ADMIN_EMAIL, 'not-the-password');
    await page.getByTestId('login-error').waitFor();
    expect(await page.evaluate(FOCUSED_TYPE)).toBe('email');
    expect(await page.getByLabel('Password').inputValue()).toBe('');
    await fillLogin(ADMIN_EMAIL, ADMIN_PASSWORD);
    await page.waitForURL('**/system/overview');
    await page.goto(`${base}/system/global_settings/email_settings`);
    await page.getByLabel('Email server').fill('not a host');
    await page.getByLabel('From email').fill('noreply@cordon.test');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Please specify valid hostname or IP address for Email server.').waitFor();
    await page.getByLabel('Email server').fill('127.0.0.1');
    await page.getByLabel('Port').fill(String(smtp.port));
    await page.getByLabel('Sender name').fill('Cordon');
    await page.getByPlaceholder('Select a notification period').click();
    await page.getByRole('option', { name: 'Daily', exact: true }).click();
    await page.getByLabel('Console address').fill(base);
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Email settings saved').waitFor();
    const since = smtp.mails.length;
    // Sent from the keyboard (the toast of the save sits over the button at this size).
    await page.getByLabel('Send a test email to').fill('ops@example.test');
    await page.getByLabel('Send a test email to').press('Enter');
    await page.getByText('Test email sent to ops@example.test').waitFor();
    const mail = await smtp.waitFor('ops@example.test', { since });
    expect(mail.from).toBe('noreply@cordon.test');
    await shot('01-email-settings');
  });

  it('invites an MSP colleague, who completes the registration from the mailed link and logs in', async () => {
    await logout();
    await fillLogin(MSP_EMAIL, MSP_PASSWORD);
    await page.waitForURL('**/msp/overview');
    const link = await invite(COLLEAGUE, 'Olivia Ops');
    expect(link.startsWith(`${base}/register?token=`)).toBe(true);
    await expect.poll(() => page.getByTestId('admins-table').textContent()).toContain('Invitation pending');
    await shot('02-invited');
    await logout();
    await setPassword(link, COLLEAGUE_PASSWORD, '03-register');
    // The link works once.
    await page.goto(link);
    await page.getByLabel('New password').fill(COLLEAGUE_PASSWORD);
    await page.getByLabel('Confirm password').fill(COLLEAGUE_PASSWORD);
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.getByText('This link is not valid or has expired. Ask for a new one.').waitFor();
    await page.goto(`${base}/`);
    await fillLogin(COLLEAGUE, COLLEAGUE_PASSWORD);
    await page.waitForURL('**/msp/overview');
  });

  it('enrols in 2FA on the profile security page and logs in with a TOTP code', async () => {
    await page.goto(`${base}/profile/security`);
    await page.getByTestId('twofa-off').waitFor();
    await page.getByRole('button', { name: 'Set up two-factor authentication' }).click();
    await page.getByTestId('totp-qr').waitFor();
    secret = ((await page.getByTestId('totp-secret').textContent()) ?? '').trim();
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    await shot('04-totp-qr');
    await page.getByLabel('Code from the app').fill(await nextCode());
    await page.getByRole('button', { name: 'Turn on' }).click();
    const list = page.getByTestId('recovery-codes');
    await list.waitFor();
    codes = (await list.locator('code').allTextContents()).map((c) => c.trim());
    expect(codes).toHaveLength(10);
    await shot('05-recovery-codes');
    await page.getByRole('button', { name: 'I have saved them' }).click();
    await page.getByTestId('twofa-on').waitFor();

    await logout();
    await fillLogin(COLLEAGUE, COLLEAGUE_PASSWORD);
    const code = page.getByLabel('Authentication code');
    await code.waitFor();
    await code.fill('000000' === totp(secret, Date.now()) ? '111111' : '000000');
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByText('The code you entered is not valid. Please try again.').waitFor();
    await shot('06-code-refused');
    await code.fill(await nextCode());
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL('**/msp/overview');
  });

  it('logs in with recovery codes only in order', async () => {
    await logout();
    await fillLogin(COLLEAGUE, COLLEAGUE_PASSWORD);
    const code = page.getByLabel('Authentication code');
    await code.waitFor();
    await code.fill(codes[1] ?? '');
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByText('The code you entered is not valid. Please try again.').waitFor();
    await shot('07-recovery-out-of-order');
    await code.fill(codes[0] ?? '');
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL('**/msp/overview');
    await logout();
    await fillLogin(COLLEAGUE, COLLEAGUE_PASSWORD);
    await code.waitFor();
    await code.fill(codes[0] ?? '');
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByText('The code you entered is not valid. Please try again.').waitFor();
    await code.fill(codes[1] ?? '');
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL('**/msp/overview');
  });

  it('enforces 2FA for the MSP: a new admin is sent to the two-factor setup page at its first login', async () => {
    await logout();
    await fillLogin(MSP_EMAIL, MSP_PASSWORD);
    await page.waitForURL('**/msp/overview');
    await page.goto(`${base}/msp/global_settings/security_settings`);
    await page.getByRole('switch', { name: 'Require two-factor authentication' }).click();
    await page.getByText('Two-factor authentication is now required').waitFor();
    await shot('08-security-settings');
    const link = await invite(ENFORCED, 'Eddie Enforced');
    await logout();
    await setPassword(link, ENFORCED_PASSWORD, '09-register-enforced');
    await page.goto(`${base}/`);
    await fillLogin(ENFORCED, ENFORCED_PASSWORD);
    await page.waitForURL('**/login/two-factor-setup');
    await page.getByTestId('totp-qr').waitFor();
    await shot('10-two-factor-setup');
    const eddieSecret = ((await page.getByTestId('totp-secret').textContent()) ?? '').trim();
    await page.getByLabel('Code from the app').fill(totp(eddieSecret, Date.now()));
    await page.getByRole('button', { name: 'Turn on' }).click();
    await page.getByTestId('recovery-codes').waitFor();
    await page.getByRole('button', { name: 'I have saved them' }).click();
    await page.waitForURL('**/msp/overview');
    // The primary MSP admin (no 2FA yet) is sent to the setup page too.
    await logout();
    await fillLogin(MSP_EMAIL, MSP_PASSWORD);
    await page.waitForURL('**/login/two-factor-setup');
    await system.call('PUT', `/auth/msp/${mspId}/two-factor-auth/enforce`, { enforce: false });
  });

  it('resets a forgotten password through the mailed link', async () => {
    await logout();
    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    await page.waitForURL('**/forgot-password');
    const since = smtp.mails.length;
    await page.getByLabel('Email').fill(COLLEAGUE);
    await page.getByRole('button', { name: 'Send reset link' }).click();
    await page.getByTestId('reset-requested').waitFor();
    await shot('11-forgot');
    const mail = await smtp.waitFor(COLLEAGUE, { since, timeoutMs: 10_000 });
    expect(mail.subject).toBe('Reset your Northwind Filtering password');
    const link = linkOf(mail.text);
    expect(link.startsWith(`${base}/reset-password?token=`)).toBe(true);
    await setPassword(link, NEW_PASSWORD, '12-reset');
    await page.goto(`${base}/`);
    await fillLogin(COLLEAGUE, COLLEAGUE_PASSWORD);
    await page.getByText('The email and password you entered did not match our records. Please try again.').waitFor();
    await fillLogin(COLLEAGUE, NEW_PASSWORD);
    await page.getByLabel('Authentication code').fill(await nextCode());
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL('**/msp/overview');
  });

  it('shows each of these on the audit pages, for the MSP and for the system admin', async () => {
    await page.goto(`${base}/msp/global_settings/audit_log`);
    const table = page.getByTestId('audit-table');
    await table.waitFor();
    // Each event, found with the search box (it matches actions, e-mails and addresses), said in words.
    for (const [action, words] of [
      ['auth.password_reset', 'reset their password'],
      ['auth.login_failed', 'Failed login for'],
      ['auth.recovery_code_used', 'logged in with a recovery code'],
      ['admin.2fa_enable', 'turned on two-factor authentication'],
      ['admin.register', 'registered'],
      ['msp.2fa_enforce', 'changed the two-factor requirement of MSP'],
    ] as const) {
      await page.getByLabel('Search').fill(action);
      await expect.poll(() => table.textContent(), { timeout: 10_000 }).toContain(words);
    }
    await page.getByLabel('Search').fill(COLLEAGUE);
    await expect.poll(() => table.textContent(), { timeout: 10_000 }).toContain(`${COLLEAGUE} logged in`);
    await shot('13-msp-audit');
    await logout();
    await fillLogin(ADMIN_EMAIL, ADMIN_PASSWORD);
    await page.waitForURL('**/system/overview');
    await page.goto(`${base}/system/global_settings/audit_log`);
    await page.getByTestId('audit-table').waitFor();
    await page.getByLabel('Search').fill('mail.update');
    await expect.poll(() => page.getByTestId('audit-table').textContent()).toContain('changed the e-mail settings');
    await page.getByLabel('Search').fill('');
    await expect.poll(() => page.getByTestId('audit-table').textContent()).toContain('logged in');
    await shot('14-system-audit');
    // The system's administrators page at a phone's width.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${base}/system/global_settings/administrators`);
    await page.getByTestId('admins-table').waitFor();
    await shot('15-admins-390');
    expect(browserProblems).toEqual([]);
  });
});
