import { execFileSync } from 'node:child_process';
import { type Browser, chromium, type Page } from 'playwright-core';

/** Debian's chromium, found on PATH (never a downloaded browser). */
export function chromiumPath(): string {
  return execFileSync('which', ['chromium'], { encoding: 'utf8' }).trim();
}

/** Launches headless Debian chromium with the flags this closed network needs. */
export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
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
