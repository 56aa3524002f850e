/**
 * The MSP overview's list of 100 customers (bench/README.md "Console: 100 customers at a glance";
 * the budget: the 100 rows with their status in under a second of the menu click). An MSP with 100
 * customers is seeded through the API in a fresh SQLite data directory; its admin, logged in through
 * the form in Debian's headless Chromium (unthrottled), opens another page afresh (nothing of the
 * overview cached) and clicks the menu's Overview link. Each run records, in the page, the time from
 * the click to the frame in which the 100th status badge is in the document (a MutationObserver), so
 * the driver's own round trips do not count.
 *
 *   npm run build && node bench/console-overview.mjs [runs=5]
 *
 * Figures only, nothing asserted: speed is measured here, not by a timed test (a loaded CI machine
 * made the e2e's former "under 1,000 ms" fail at 2,431 ms); e2e/msp-overview.e2e.ts checks the same
 * list's behaviour.
 */
import { loadavg } from 'node:os';
import { apiLogin, launchChromium, loginState, median, startLoopbackCordon } from './support/console.mjs';

const RUNS = Number(process.argv[2] ?? 5);
const CUSTOMERS = 100;
const BUDGET_MS = 1000;
const ADMIN = { email: 'admin@example.com', password: 'Overview-bench-1' };
const MSP_ADMIN = { email: 'olga@overview.test', password: 'Msp-admin-1' };

/** In the page: from the next click to the frame holding `count` status badges; sets window.__overview. */
function clickToRowsProbe(count) {
  return `(() => {
    const t = (window.__overview = {});
    document.addEventListener('click', () => { t.clicked = performance.now(); }, true);
    const badges = '[data-testid="customers-table"] tbody tr [data-state]';
    const observer = new MutationObserver(() => {
      if (t.clicked === undefined || document.querySelectorAll(badges).length < ${count}) return;
      observer.disconnect();
      requestAnimationFrame(() => { t.shown = performance.now(); });
    });
    observer.observe(document.body, { childList: true, subtree: true });
  })()`;
}

/** One run: another page loaded afresh, the menu's Overview link clicked; ms from click to the rows. */
async function measure(page, base) {
  await page.goto(`${base}/msp/global_settings/audit_log`);
  await page.getByRole('heading', { level: 1 }).first().waitFor();
  await page.waitForLoadState('networkidle');
  await page.evaluate(clickToRowsProbe(CUSTOMERS));
  await page.getByRole('link', { name: 'Overview', exact: true }).first().click();
  // A function, not a string: the console's CSP forbids eval, which a string predicate needs.
  await page.waitForFunction(() => window.__overview.shown > 0, null, { timeout: 30_000 });
  return page.evaluate(() => window.__overview.shown - window.__overview.clicked);
}

const { base, stop } = await startLoopbackCordon('overview-bench', ADMIN);
const browser = await launchChromium();
try {
  const call = await apiLogin(base, ADMIN);
  const msp = await call('POST', '/msp', {
    name: 'Overview MSP',
    company_name: 'Overview Networks Ltd',
    admin_email: MSP_ADMIN.email,
    admin_password: MSP_ADMIN.password,
  });
  for (let i = 1; i <= CUSTOMERS; i++) {
    await call('POST', '/users/', { accountName: `Customer ${String(i).padStart(3, '0')}`, msp_id: msp.id });
  }
  const context = await browser.newContext({
    storageState: await loginState(browser, base, MSP_ADMIN),
    viewport: { width: 1280, height: 900 },
  });
  const page = await context.newPage();
  const load0 = loadavg()[0];
  const runs = [];
  for (let i = 0; i < RUNS; i++) runs.push(await measure(page, base));
  const mid = median(runs);
  console.log(
    `MSP overview, ${CUSTOMERS} customers, menu click to the ${CUSTOMERS}th status badge, unthrottled, ` +
      `${RUNS} runs, load average ${load0.toFixed(1)} → ${loadavg()[0].toFixed(1)}`,
  );
  console.log(`median ${mid.toFixed(0)} ms; runs ${runs.map((r) => r.toFixed(0)).join(', ')} ms`);
  console.log(`budget < ${BUDGET_MS} ms: ${mid < BUDGET_MS ? 'met' : 'unmet'} (median)`);
  await context.close();
} finally {
  await browser.close();
  await stop();
}
