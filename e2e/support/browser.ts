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
