import { execFileSync } from 'node:child_process';
import { type Browser, chromium } from 'playwright-core';

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
