import { execFileSync } from 'node:child_process';
import { type Browser, chromium, type Page } from 'playwright-core';

/** Debian's chromium, found on PATH (never a downloaded browser). */
export function chromiumPath(): string {
  return execFileSync('which', ['chromium'], { encoding: 'utf8' }).trim();
}

/**
 * Launches headless Debian chromium with the flags this closed network needs. The browser asks for
 * reduced motion, which the console honours (no fade of dialogs): a check made right after a dialog
 * opens sees it as the user will, not half transparent in its fade (axe measured that contrast once
 * on a loaded machine).
 */
export async function launchBrowser(): Promise<Browser> {
  const browser = await chromium.launch({
    executablePath: chromiumPath(),
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
    ],
  });
  // Every page and context of this browser asks for reduced motion unless a test says otherwise.
  const newContext = browser.newContext.bind(browser);
  const newPage = browser.newPage.bind(browser);
  browser.newContext = (options = {}) => newContext({ reducedMotion: 'reduce', ...options });
  browser.newPage = (options = {}) => newPage({ reducedMotion: 'reduce', ...options });
  return browser;
}

/**
 * How many CSS pixels the page is wider than its viewport (≤ 0: nothing sticks out sideways; wide
 * tables must scroll inside their own box). Used by the phone-width checks (390 px).
 */
export function horizontalOverflow(page: Page): Promise<number> {
  return page.evaluate(() => {
    const g = globalThis as unknown as { document: { documentElement: { scrollWidth: number } }; innerWidth: number };
    return g.document.documentElement.scrollWidth - g.innerWidth;
  });
}

/** Requests in flight per page, counted from when {@link visit} first saw the page. */
const inFlight = new WeakMap<Page, { count: number; lastChange: number }>();

function trackRequests(page: Page): { count: number; lastChange: number } {
  let state = inFlight.get(page);
  if (state) return state;
  const tracked = { count: 0, lastChange: Date.now() };
  const done = () => {
    tracked.count = Math.max(0, tracked.count - 1);
    tracked.lastChange = Date.now();
  };
  page.on('request', () => {
    tracked.count += 1;
    tracked.lastChange = Date.now();
  });
  page.on('requestfinished', done);
  page.on('requestfailed', done);
  inFlight.set(page, tracked);
  state = tracked;
  return state;
}

/** How long no request may be in flight before {@link visit} calls the page loaded: Playwright's `networkidle`. */
const QUIET_MS = 500;

/**
 * Opens `url` (absolute, on the console's origin) the way a user following a link gets there:
 * through the console's router (a History API entry in React Router's format and a `popstate`),
 * without loading the application again. A full load costs Chromium ≈ 0.7 s of CPU against
 * ≈ 0.13 s for the router's navigation (docs/contributing.md "Running the tests"); the page checked
 * is the same route, rendered by the same components.
 *
 * Resolves once the new route's level-1 heading is shown (a heading element other than the one
 * before, or other text) and no request has been in flight for 500 ms (Playwright's `networkidle`).
 * A page not yet on the console's origin, one already on this route, or a route whose heading
 * cannot be told from the previous one within 5 s is loaded in full (`page.goto`) and waited for the
 * same way.
 */
export async function visit(page: Page, url: string): Promise<void> {
  const target = new URL(url);
  const tracked = trackRequests(page);
  const current = page.url();
  let routed = false;
  const onConsole = current.startsWith(`${target.origin}/`);
  // The page already shows this route: loaded again in full, as `page.goto` did.
  const here = onConsole ? new URL(current) : null;
  const sameRoute = here !== null && here.pathname + here.search === target.pathname + target.search;
  if (onConsole && !sameRoute) {
    // In-page code as text: this package's TypeScript has no DOM types (axe.ts does the same).
    const before = await page.evaluate(`(() => {
      const heading = document.querySelector('h1');
      heading?.setAttribute('data-e2e-before-visit', '');
      return heading?.textContent ?? null;
    })()`);
    const to = JSON.stringify(target.pathname + target.search + target.hash);
    await page.evaluate(`(() => {
      const idx = (history.state && typeof history.state.idx === 'number' ? history.state.idx : 0) + 1;
      history.pushState({ usr: null, key: Math.random().toString(36).slice(2, 10), idx }, '', ${to});
      dispatchEvent(new PopStateEvent('popstate', { state: history.state }));
    })()`);
    // Polled from here: `waitForFunction` with a text compiles it in the page, which the console's
    // Content-Security-Policy (no 'unsafe-eval') refuses; `evaluate` runs it through DevTools.
    const shown = `(() => {
      const heading = document.querySelector('h1');
      if (heading === null) return false;
      return !heading.hasAttribute('data-e2e-before-visit') || heading.textContent !== ${JSON.stringify(before)};
    })()`;
    const until = Date.now() + 5_000;
    while (!routed && Date.now() < until) {
      routed = (await page.evaluate(shown)) === true;
      if (!routed) await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  if (!routed) {
    await page.goto(url);
    await page.getByRole('heading', { level: 1 }).first().waitFor();
  }
  const deadline = Date.now() + 30_000;
  while (tracked.count > 0 || Date.now() - tracked.lastChange < QUIET_MS) {
    if (Date.now() > deadline) throw new Error(`${url}: requests still in flight after 30 s`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
