/**
 * The console's shell before and at its first paint (issues 28 and 29): a user who chose dark, or
 * whose system prefers dark, gets a dark first paint (apps/console/public/color-scheme.js, a classic
 * script in <head>: the CSP forbids inline ones); the address bar's theme-color follows the scheme;
 * a stored French choice renders French from the first paint (its strings loaded on demand).
 * Screenshots land in e2e/artifacts/console-shell-*.png.
 */
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from './support/browser.ts';
import { type CordonProcess, startCordon } from './support/cordon.ts';
import { type FakeUpstream, freePort, startFakeUpstream } from './support/dns.ts';

const ARTIFACTS = fileURLToPath(new URL('./artifacts/', import.meta.url));
const ADMIN = { email: 'admin@example.com', password: 'Shell-test-1' };
/** The key of Mantine's localStorage colour-scheme manager (apps/console/src/app/App.tsx). */
const SCHEME_KEY = 'cordon-color-scheme';
/** Mean luminance (0–255) under which a screenshot counts as dark: Mantine's dark body is #242424 (36). */
const DARK_BELOW = 80;
/** …and over which it counts as light (white body, 255). */
const LIGHT_ABOVE = 180;

describe('console shell: dark first paint, theme-color, French first load (issues 28, 29)', () => {
  let upstream: FakeUpstream;
  let cordon: CordonProcess;
  let browser: Browser;
  let httpPort: number;
  /** A blank page that decodes screenshots on a canvas (no PNG decoder among the dependencies). */
  let decoder: Page;
  const base = () => `http://127.0.0.1:${httpPort}`;

  /** A context whose system prefers `system` and whose storage holds `stored` (null: nothing). */
  function newContext(
    system: 'light' | 'dark',
    stored: Record<string, string> = {},
    width = 1280,
  ): Promise<BrowserContext> {
    return browser.newContext({
      viewport: { width, height: 800 },
      colorScheme: system,
      storageState: {
        cookies: [],
        origins: [{ origin: base(), localStorage: Object.entries(stored).map(([name, value]) => ({ name, value })) }],
      },
    });
  }

  /** Mean luminance (ITU-R BT.601 weights, 0–255) of a PNG screenshot, decoded by the browser. */
  async function meanLuminance(png: Buffer): Promise<number> {
    const script = `new Promise((resolve, reject) => {
      const img = new Image();
      img.onload = () => {
        const canvas = document.createElement('canvas');
        canvas.width = img.width;
        canvas.height = img.height;
        const ctx = canvas.getContext('2d');
        ctx.drawImage(img, 0, 0);
        const px = ctx.getImageData(0, 0, img.width, img.height).data;
        let sum = 0;
        for (let i = 0; i < px.length; i += 4) sum += 0.299 * px[i] + 0.587 * px[i + 1] + 0.114 * px[i + 2];
        resolve(sum / (px.length / 4));
      };
      img.onerror = () => reject(new Error('screenshot not decodable'));
      img.src = 'data:image/png;base64,${png.toString('base64')}';
    })`;
    return (await decoder.evaluate(script)) as number;
  }

  /**
   * The page as the browser paints it before any of the console's JavaScript runs: the module
   * chunks are held back (aborted), so only the HTML, the stylesheet and color-scheme.js act —
   * what a user sees while the bundle downloads. Returns the screenshot's mean luminance.
   */
  async function firstPaint(context: BrowserContext, name: string): Promise<{ luminance: number; page: Page }> {
    const page = await context.newPage();
    const blocked: string[] = [];
    await page.route(/\/assets\/.*\.js$/, (route) => {
      blocked.push(route.request().url());
      return route.abort();
    });
    await page.goto(`${base()}/`, { waitUntil: 'load' });
    expect(blocked.length, 'the entry chunk was requested and held back').toBeGreaterThan(0);
    const png = await page.screenshot({ path: join(ARTIFACTS, `console-shell-${name}.png`) });
    return { luminance: await meanLuminance(png), page };
  }

  const attribute = (page: Page) => page.locator('html').getAttribute('data-mantine-color-scheme');
  /** The content of every theme-color meta, in document order. */
  async function themeColors(page: Page): Promise<(string | null)[]> {
    const metas = page.locator('meta[name="theme-color"]');
    const count = await metas.count();
    return Promise.all(Array.from({ length: count }, (_, i) => metas.nth(i).getAttribute('content')));
  }

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    upstream = await startFakeUpstream();
    httpPort = await freePort();
    cordon = await startCordon({
      CORDON_DATA_DIR: mkdtempSync(join(tmpdir(), 'cordon-shell-')),
      CORDON_HTTP_ADDR: `127.0.0.1:${httpPort}`,
      CORDON_DNS_ADDR: `127.0.0.1:${await freePort()}`,
      CORDON_BLOCKPAGE_ADDR: `127.0.0.1:${await freePort()}`,
      CORDON_BLOCKPAGE_HTTPS_ADDR: `127.0.0.1:${await freePort()}`,
      CORDON_UPSTREAM: `127.0.0.1:${upstream.port}`,
      CORDON_ADMIN_EMAIL: ADMIN.email,
      CORDON_ADMIN_PASSWORD: ADMIN.password,
    });
    browser = await launchBrowser();
    decoder = await browser.newPage();
  });

  afterAll(async () => {
    await browser?.close();
    await cordon?.stop();
    await upstream?.close();
  });

  it('paints dark first when the system prefers dark and nothing is stored', async () => {
    const context = await newContext('dark');
    const { luminance, page } = await firstPaint(context, '01-system-dark');
    expect(luminance).toBeLessThan(DARK_BELOW);
    expect(await attribute(page)).toBe('dark');
    expect(await themeColors(page)).toEqual(['#242424', '#242424']);
    await context.close();
  });

  it('paints dark first when dark was chosen, though the system prefers light', async () => {
    const context = await newContext('light', { [SCHEME_KEY]: 'dark' });
    const { luminance, page } = await firstPaint(context, '02-stored-dark');
    expect(luminance).toBeLessThan(DARK_BELOW);
    expect(await themeColors(page)).toEqual(['#242424', '#242424']);
    await context.close();
  });

  it('paints light first when light was chosen, though the system prefers dark', async () => {
    const context = await newContext('dark', { [SCHEME_KEY]: 'light' });
    const { luminance, page } = await firstPaint(context, '03-stored-light');
    expect(luminance).toBeGreaterThan(LIGHT_ABOVE);
    expect(await attribute(page)).toBe('light');
    expect(await themeColors(page)).toEqual(['#136695', '#136695']);
    await context.close();
  });

  it('keeps the dark scheme through the load, with no script refused by the CSP, and the picker moves theme-color', async () => {
    const context = await newContext('light', { [SCHEME_KEY]: 'dark' });
    const page = await context.newPage();
    const refused: string[] = [];
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) refused.push(m.text());
    });
    // The first frame the browser shows of the full load (all chunks allowed) is dark too.
    await page.goto(`${base()}/`, { waitUntil: 'commit' });
    await page.locator('body').waitFor({ state: 'attached' });
    const early = await page.screenshot({ path: join(ARTIFACTS, 'console-shell-04-early-frame.png') });
    expect(await meanLuminance(early)).toBeLessThan(DARK_BELOW);
    // The rendered login page too: the page behind the card was light gray in the dark scheme.
    await page.getByLabel('Email').waitFor();
    const login = await page.screenshot({ path: join(ARTIFACTS, 'console-shell-04b-login-dark.png') });
    expect(await meanLuminance(login)).toBeLessThan(DARK_BELOW);
    await page.getByLabel('Email').fill(ADMIN.email);
    await page.getByLabel('Password').fill(ADMIN.password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL('**/system/overview');
    await page.getByRole('heading', { level: 1 }).first().waitFor();
    expect(await attribute(page)).toBe('dark');
    const overview = await page.screenshot({ path: join(ARTIFACTS, 'console-shell-05-overview-dark.png') });
    expect(await meanLuminance(overview)).toBeLessThan(DARK_BELOW);
    // The header's picker: light now, and the address bar follows.
    await page.getByRole('combobox', { name: 'Colour scheme' }).first().click();
    await page.getByRole('option', { name: 'Light' }).click();
    await expect.poll(() => attribute(page)).toBe('light');
    expect(await themeColors(page)).toEqual(['#136695', '#136695']);
    expect(await page.evaluate(`localStorage.getItem('${SCHEME_KEY}')`)).toBe('light');
    expect(refused).toEqual([]);
    await context.close();
  });

  it('opens a deferred list whose code arrives between the press and the release of the button', async () => {
    const context = await newContext('light', { [SCHEME_KEY]: 'light' });
    const page = await context.newPage();
    // Mantine's overlay components (the real Select) are held back until the button is down.
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    await page.route(/\/assets\/overlays-[\w-]+\.js$/, async (route) => {
      await held;
      await route.continue();
    });
    await page.goto(`${base()}/`);
    await page.getByLabel('Email').fill(ADMIN.email);
    await page.getByLabel('Password').fill(ADMIN.password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL('**/system/overview');
    const picker = page.getByRole('combobox', { name: 'Colour scheme' }).first();
    const box = await picker.boundingBox();
    expect(box).not.toBeNull();
    await page.mouse.move(box!.x + box!.width / 2, box!.y + box!.height / 2);
    await page.mouse.down();
    const arrived = page.waitForEvent('requestfinished', (r) => /\/assets\/overlays-/.test(r.url()));
    release();
    await arrived;
    // The real select has replaced the stand-in under the pressed button (two frames for React).
    await page.evaluate('new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))');
    await page.mouse.up();
    await page.getByRole('option', { name: 'Dark' }).click({ timeout: 5_000 });
    await expect.poll(() => attribute(page)).toBe('dark');
    await context.close();
  });

  it('renders French from the first paint when French was chosen (its strings fetched on demand)', async () => {
    const context = await newContext('light', { lang: 'fr' });
    const page = await context.newPage();
    const scripts: string[] = [];
    page.on('request', (r) => {
      if (r.resourceType() === 'script') scripts.push(new URL(r.url()).pathname);
    });
    await page.goto(`${base()}/`);
    await page.getByLabel('Mot de passe').first().waitFor();
    expect(await page.locator('html').getAttribute('lang')).toBe('fr');
    // No English login form was shown first: the first rendered text is French.
    expect(await page.getByRole('button', { name: 'Log in' }).count()).toBe(0);
    expect(scripts.some((p) => /\/assets\/i18n-fr-[\w-]+\.js$/.test(p))).toBe(true);
    await page.screenshot({ path: join(ARTIFACTS, 'console-shell-06-french-login.png') });
    await context.close();
  });

  it('does not fetch the French strings for an English console', async () => {
    const context = await newContext('light', { lang: 'en' });
    const page = await context.newPage();
    const scripts: string[] = [];
    page.on('request', (r) => {
      if (r.resourceType() === 'script') scripts.push(new URL(r.url()).pathname);
    });
    await page.goto(`${base()}/`);
    await page.getByRole('button', { name: 'Log in' }).waitFor();
    expect(scripts.some((p) => p.includes('i18n-fr'))).toBe(false);
    expect(scripts).toContain('/color-scheme.js');
    await context.close();
  });
});
