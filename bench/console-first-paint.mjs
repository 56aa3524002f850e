/**
 * A Lighthouse-style check of the console's first load on a slow connection (bench/README.md
 * "Console first load", issue 28): for the login page and each role's overview (system admin, MSP
 * admin, customer admin), a cold load (empty cache, a new browser context) in Debian's headless
 * Chromium with the network throttled like Lighthouse's "Slow 4G" / DevTools' "Fast 3G" (150 ms
 * round trip, 1.6 Mbit/s down, 750 kbit/s up) and the CPU 4× slower (CDP
 * `Network.emulateNetworkConditions`, `Emulation.setCPUThrottlingRate`). Per load it records:
 *
 * - FCP: First Contentful Paint (`performance.getEntriesByType('paint')`), ms from navigation start;
 * - main content: the frame in which the page's main content is in the DOM (login: the password
 *   field; customer overview: the dashboard's request count; MSP and system overviews: the first row
 *   of the customer or MSP list), ms from navigation start (a MutationObserver, then the next frame);
 * - the bytes transferred until the main content (CDP `encodedDataLength`, compressed as served: brotli
 *   for a browser that asks for it) and the JavaScript among them.
 *
 * Each figure is the median of `runs` loads. The server is Cordon's production bundle (`npm run
 * build` makes it and the console) on loopback, a fresh SQLite data directory with one MSP and one
 * customer (no traffic: the dashboards show zeros, their API calls still run).
 *
 *   node bench/console-first-paint.mjs [runs=3]
 *   CORDON_BENCH_LIST=1 node bench/console-first-paint.mjs 1   # also lists the scripts each load fetched
 *   CORDON_BENCH_SHOTS=DIR node bench/console-first-paint.mjs 1 # also saves each page, unthrottled, at
 *                                   # 1280 and 390 px wide in English and French, to compare two builds
 *
 * Network tests stay on loopback (docs/contributing.md); nothing is asserted (figures only).
 */
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { apiLogin, launchChromium, loginState, median, startLoopbackCordon } from './support/console.mjs';

const RUNS = Number(process.argv[2] ?? 3);

/** Lighthouse's mobile "Slow 4G" throttling, DevTools' "Fast 3G": latency ms, throughput bytes/s. */
const NETWORK = {
  offline: false,
  latency: 150,
  downloadThroughput: (1.6 * 1024 * 1024) / 8,
  uploadThroughput: (750 * 1024) / 8,
};
const CPU_SLOWDOWN = 4;

const ADMIN = { email: 'admin@example.com', password: 'First-paint-1' };
const MSP_ADMIN = { email: 'nora@northwind.test', password: 'Msp-admin-1' };
const CUSTOMER_ADMIN = { email: 'sam@springfield.test', password: 'Customer-1' };

/** The loads measured: who is logged in (null: nobody), the path opened, the main content's selector. */
const LOADS = [
  { label: 'login page (/)', who: null, path: '/', main: 'input[type="password"]' },
  {
    label: 'customer admin, /customer/overview',
    who: CUSTOMER_ADMIN,
    path: '/customer/overview',
    main: '[data-testid="stat-requests"]',
  },
  { label: 'MSP admin, /msp/overview', who: MSP_ADMIN, path: '/msp/overview', main: 'main table tbody tr' },
  { label: 'system admin, /system/overview', who: ADMIN, path: '/system/overview', main: 'main table tbody tr' },
];

/** Records, in the page, the frame in which `selector` first matches (before any page script runs). */
function mainContentProbe(selector) {
  return `(() => {
    const sel = ${JSON.stringify(selector)};
    const check = () => {
      if (window.__cordonMain || !document.querySelector(sel)) return;
      window.__cordonMain = -1;
      requestAnimationFrame(() => { window.__cordonMain = performance.now(); });
    };
    new MutationObserver(check).observe(document, { childList: true, subtree: true });
  })();`;
}

/** One cold, throttled load of `load.path` with the storage `state`; figures in ms and bytes. */
async function measure(browser, base, load, state) {
  const context = await browser.newContext(state ? { storageState: state } : {});
  const page = await context.newPage();
  await page.addInitScript(mainContentProbe(load.main));
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
  await cdp.send('Network.emulateNetworkConditions', NETWORK);
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: CPU_SLOWDOWN });
  const types = new Map();
  let bytes = 0;
  let jsBytes = 0;
  const urls = new Map();
  const scripts = [];
  cdp.on('Network.responseReceived', (e) => {
    types.set(e.requestId, e.type);
    urls.set(e.requestId, new URL(e.response.url).pathname);
  });
  cdp.on('Network.loadingFinished', (e) => {
    bytes += e.encodedDataLength;
    if (types.get(e.requestId) !== 'Script') return;
    jsBytes += e.encodedDataLength;
    scripts.push(`${(e.encodedDataLength / 1024).toFixed(1)} ${urls.get(e.requestId)}`);
  });
  await page.goto(`${base}${load.path}`, { waitUntil: 'commit' });
  // A function, not a string: the CSP forbids eval, which a string predicate needs.
  await page.waitForFunction(() => window.__cordonMain > 0, null, { timeout: 120_000 });
  // What came over the network until then (the charts and other late chunks arrive after).
  const byThen = { bytes, jsBytes };
  // CORDON_BENCH_LIST=1: the scripts transferred by then (KB as sent), to see what a load waits for.
  if (process.env.CORDON_BENCH_LIST) console.log(`${load.label}:\n  ${scripts.join('\n  ')}`);
  // The paint entry is queued once the frame is presented: it may come after the main content's frame.
  await page.waitForFunction(() => performance.getEntriesByName('first-contentful-paint').length > 0, null, {
    timeout: 60_000,
  });
  if (new URL(page.url()).pathname !== load.path) throw new Error(`${load.label}: landed on ${page.url()}`);
  const figures = await page.evaluate(() => {
    const fcp = performance.getEntriesByType('paint').find((p) => p.name === 'first-contentful-paint');
    return { fcp: fcp ? fcp.startTime : Number.NaN, main: window.__cordonMain };
  });
  await context.close();
  return { ...figures, ...byThen };
}

/**
 * Saves each load's page once settled (main content in, the network idle, 1.5 s for late chunks and
 * charts), unthrottled, full page, at 1280 and 390 px in English and French: `DIR/<n>-<width>-<lang>.png`.
 */
async function screenshots(browser, base, dir) {
  for (const [n, load] of LOADS.entries()) {
    const state = load.who ? await loginState(browser, base, load.who) : undefined;
    for (const width of [1280, 390]) {
      for (const lang of ['en', 'fr']) {
        const context = await browser.newContext({
          ...(state ? { storageState: state } : {}),
          viewport: { width, height: 900 },
        });
        const page = await context.newPage();
        await page.addInitScript((l) => window.localStorage.setItem('lang', l), lang);
        await page.goto(`${base}${load.path}`);
        await page.waitForSelector(load.main, { timeout: 60_000 });
        await page.waitForLoadState('networkidle');
        await page.waitForTimeout(1500);
        await page.screenshot({ path: join(dir, `${n}-${width}-${lang}.png`), fullPage: true });
        await context.close();
      }
    }
  }
}

const { base, stop } = await startLoopbackCordon('first-paint', ADMIN);
const browser = await launchChromium();
try {
  const call = await apiLogin(base, ADMIN);
  const msp = await call('POST', '/msp', {
    name: 'Northwind MSP',
    company_name: 'Northwind Networks Ltd',
    license: '10',
    admin_email: MSP_ADMIN.email,
    admin_password: MSP_ADMIN.password,
  });
  await call('POST', '/users/', {
    accountName: 'Springfield School',
    msp_id: msp.id,
    admin_email: CUSTOMER_ADMIN.email,
    admin_password: CUSTOMER_ADMIN.password,
  });

  const load0 = loadavg()[0];
  console.log(
    `Cold loads, ${NETWORK.latency} ms RTT, ${((NETWORK.downloadThroughput * 8) / 1024 / 1024).toFixed(1)} Mbit/s down, ` +
      `CPU ${CPU_SLOWDOWN}× slower; median of ${RUNS}; load average ${load0.toFixed(1)} at the start`,
  );
  console.log('| Load | FCP ms | main content ms | transferred by then KB (JS) | runs: FCP / main ms |');
  console.log('|---|---|---|---|---|');
  for (const load of LOADS) {
    const state = load.who ? await loginState(browser, base, load.who) : undefined;
    const runs = [];
    for (let i = 0; i < RUNS; i++) runs.push(await measure(browser, base, load, state));
    const m = (k) => median(runs.map((r) => r[k]));
    console.log(
      `| ${load.label} | ${m('fcp').toFixed(0)} | ${m('main').toFixed(0)} | ${(m('bytes') / 1024).toFixed(1)} (${(m('jsBytes') / 1024).toFixed(1)}) | ` +
        `${runs.map((r) => `${r.fcp.toFixed(0)} / ${r.main.toFixed(0)}`).join(', ')} |`,
    );
  }
  console.log(`load average ${loadavg()[0].toFixed(1)} at the end`);
  if (process.env.CORDON_BENCH_SHOTS) await screenshots(browser, base, process.env.CORDON_BENCH_SHOTS);
} finally {
  await browser.close();
  await stop();
}
