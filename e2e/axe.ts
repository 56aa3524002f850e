/**
 * Accessibility checks for the browser tests: axe-core run inside the page under test. Only the
 * serious and critical violations are returned (the bar: 0 of them on every page); the
 * rules are axe's WCAG 2.0/2.1 A and AA tags plus its best practices.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const require = createRequire(import.meta.url);
/** axe-core's browser build, read once (it is injected as text: the console's CSP forbids inline scripts). */
const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/** One violated rule: its id, impact, help text and the offending nodes' selectors and HTML. */
export interface AxeViolation {
  readonly id: string;
  readonly impact: 'serious' | 'critical';
  readonly help: string;
  readonly nodes: ReadonlyArray<{ readonly target: string; readonly html: string }>;
}

/** Options of {@link axeViolations}. */
export interface AxeOptions {
  /** A CSS selector of the part of the page to check (default: the whole document). */
  readonly include?: string;
  /** Rule ids to skip (say why at the call site). */
  readonly disableRules?: readonly string[];
}

/**
 * Runs axe on the page as it is now and returns its serious and critical violations (empty when
 * the page passes). Injected through the DevTools protocol (`page.evaluate`), which the page's
 * Content-Security-Policy does not apply to; safe to call again on the same page.
 */
export async function axeViolations(page: Page, options: AxeOptions = {}): Promise<AxeViolation[]> {
  await settleAnimations(page);
  const loaded = await page.evaluate(() => typeof (globalThis as { axe?: unknown }).axe === 'object');
  if (!loaded) await page.evaluate(AXE_SOURCE);
  return page.evaluate(
    async ({ include, disableRules }) => {
      const axe = (globalThis as unknown as { axe: typeof import('axe-core') }).axe;
      const result = await axe.run(include ? { include: [include] } : { exclude: [] }, {
        resultTypes: ['violations'],
        runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] },
        rules: Object.fromEntries(disableRules.map((id) => [id, { enabled: false }])),
      });
      return result.violations
        .filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map((v) => ({
          id: v.id,
          impact: v.impact as 'serious' | 'critical',
          help: v.help,
          nodes: v.nodes.map((n) => ({ target: n.target.join(' '), html: n.html.slice(0, 200) })),
        }));
    },
    { include: options.include ?? null, disableRules: [...(options.disableRules ?? [])] },
  );
}

/**
 * Waits until no finite CSS transition or animation runs (a modal fading in is half transparent,
 * and axe would measure its text's contrast against the page behind it). Infinite ones (loaders)
 * are ignored; gives up after 3 s. Quiet means three animation frames in a row with none running,
 * since Mantine starts a transition two frames after it mounts the element. The browser of these
 * tests asks for reduced motion (support/browser.ts), so this is a second guard.
 */
async function settleAnimations(page: Page): Promise<void> {
  await page.evaluate(`(async () => {
    const frame = () => new Promise((resolve) => requestAnimationFrame(() => resolve()));
    const running = () => document.getAnimations().filter((a) => {
      const end = a.effect ? a.effect.getComputedTiming().endTime : 0;
      return a.playState === 'running' && Number.isFinite(end);
    });
    const deadline = performance.now() + 3000;
    let quiet = 0;
    while (quiet < 3 && performance.now() < deadline) {
      const now = running();
      if (now.length === 0) { quiet += 1; await frame(); continue; }
      quiet = 0;
      await Promise.race([Promise.all(now.map((a) => a.finished.catch(() => undefined))), new Promise((r) => setTimeout(r, 500))]);
    }
  })()`);
}

/** A readable summary of violations for an assertion message: one line per rule and node. */
export function formatViolations(violations: readonly AxeViolation[]): string {
  return violations
    .flatMap((v) => v.nodes.map((n) => `${v.impact} ${v.id} (${v.help}): ${n.target} ${n.html}`))
    .join('\n');
}
