/**
 * The JavaScript a first load of the console fetches (bench/README.md "Console first load"; budget
 * 300 KB gzip): for the login page (`/`) and for each role's overview (where it lands after logging
 * in), the entry chunk with every chunk it imports statically, plus each page's lazy chunk and its
 * static imports, read from Vite's manifest (`build.manifest` in apps/console/vite.config.ts). Sizes are raw
 * and gzip level 9 (what the API serves precompressed, RFC 9110 §8.4); brotli for reference. A
 * console shown in French also fetches the French strings (one chunk, `i18n-fr`) before its first
 * render: the "French chosen" rows add it.
 *
 *   node bench/console-bundle.mjs            # builds the console first (npm run build:console)
 *   node bench/console-bundle.mjs --no-build # reads apps/console/dist as it is
 *   node bench/console-bundle.mjs --dist DIR # reads another build's output (no build)
 *
 * Exit status 1 when a first load is over the budget.
 */
import { execSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, gzipSync } from 'node:zlib';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const BUDGET_KB = 300;

/**
 * The lazy module of the area layout's header widgets every area page loads at once (branding, the
 * colour-scheme and language pickers, an admin's tenant switchers): one chunk since 2026-11-28.
 * Their Select code (`src/components/overlays.ts`) loads on the first intent to use one, not here.
 */
const AREA = ['src/components/HeaderWidgets.ts'];
/** A system or MSP admin's header: the same module (the tenant switchers render for them only). */
const ADMIN_AREA = AREA;
/** The French strings, fetched before the first render when French is stored or the browser's language. */
const FR = 'chunk:i18n-fr';

/**
 * The lazy modules each first load adds to the entry: the page a role lands on after logging in
 * (`HOME_PATH_BY_ROLE`, packages/shared/src/roles.ts) and the area layout's widgets.
 */
const PAGES = {
  'login page (/)': ['src/features/auth/RootPage.tsx'],
  'customer admin, /customer/overview': ['src/features/stats/CustomerOverviewPage.tsx', ...AREA],
  'MSP admin, /msp/overview': ['src/features/customers/MspOverviewPage.tsx', ...ADMIN_AREA],
  'system admin, /system/overview': ['src/features/msps/SystemOverviewPage.tsx', ...ADMIN_AREA],
  // A system or MSP admin who opens a customer's overview (the rows measured before 2026-11-27 22:10).
  'system or MSP admin, /customer/overview': ['src/features/stats/CustomerOverviewPage.tsx', ...ADMIN_AREA],
};
/** Every page in English, then in French (a stored or browser French choice). */
const LOADS = Object.fromEntries(
  Object.entries(PAGES).flatMap(([label, pages]) => [
    [label, pages],
    [`${label}, French chosen`, [...pages, FR]],
  ]),
);

const distArg = process.argv.indexOf('--dist');
/** Another build's output folder (`--dist DIR`, implies `--no-build`), e.g. a trial build outside the shared tree. */
const dist = distArg > 0 ? resolve(process.argv[distArg + 1]) : join(root, 'apps/console/dist');

if (!process.argv.includes('--no-build') && distArg < 0)
  execSync('npm run build:console', { cwd: root, stdio: 'inherit' });

/** @type {Record<string, { file: string; isEntry?: boolean; imports?: string[]; dynamicImports?: string[]; css?: string[] }>} */
const manifest = JSON.parse(readFileSync(join(dist, '.vite/manifest.json'), 'utf8'));
const entryKey = Object.keys(manifest).find((k) => manifest[k].isEntry);
if (!entryKey) throw new Error('no entry chunk in the manifest');

/**
 * The manifest key of a source module, or of a named chunk for `chunk:<name>` (a `manualChunks` chunk).
 * A dynamic entry that other chunks also import statically is keyed by its chunk (`_Name-hash.js`,
 * `isDynamicEntry`), not by its source path: found by name.
 */
function keyOf(ref) {
  if (!ref.startsWith('chunk:')) {
    if (manifest[ref]) return ref;
    const name = ref.replace(/^.*\//, '').replace(/\.[^.]+$/, '');
    return Object.keys(manifest).find((k) => manifest[k].isDynamicEntry && manifest[k].name === name) ?? ref;
  }
  const key = Object.keys(manifest).find((k) => manifest[k].name === ref.slice('chunk:'.length) && k.startsWith('_'));
  if (!key) throw new Error(`no chunk named ${ref.slice('chunk:'.length)} in the manifest (update LOADS)`);
  return key;
}

/** Adds `key`'s chunk and, recursively, the chunks it imports statically (what the browser fetches with it). */
function closure(ref, out = new Set()) {
  const key = keyOf(ref);
  const chunk = manifest[key];
  if (!chunk) throw new Error(`${key} is not in the manifest (renamed? update LOADS)`);
  if (out.has(chunk.file)) return out;
  out.add(chunk.file);
  for (const dep of chunk.imports ?? []) closure(dep, out);
  return out;
}

const sizes = new Map();
function sizeOf(file) {
  let s = sizes.get(file);
  if (!s) {
    const data = readFileSync(join(dist, file));
    s = { raw: data.length, gzip: gzipSync(data, { level: 9 }).length, brotli: brotliCompressSync(data).length };
    sizes.set(file, s);
  }
  return s;
}
const kb = (n) => (n / 1024).toFixed(1);

let over = false;
const entry = closure(entryKey);
console.log(`entry ${manifest[entryKey].file}: ${entry.size} chunk(s) loaded with it`);
console.log('| First load | JS chunks | raw KB | gzip KB | brotli KB |');
console.log('|---|---|---|---|---|');
for (const [label, pages] of Object.entries(LOADS)) {
  const files = new Set(entry);
  for (const p of pages) closure(p, files);
  const total = { raw: 0, gzip: 0, brotli: 0 };
  for (const f of files) {
    const s = sizeOf(f);
    total.raw += s.raw;
    total.gzip += s.gzip;
    total.brotli += s.brotli;
  }
  if (total.gzip > BUDGET_KB * 1024) over = true;
  console.log(`| ${label} | ${files.size} | ${kb(total.raw)} | ${kb(total.gzip)} | ${kb(total.brotli)} |`);
}

// The biggest chunks of the whole build, to see what a lazy page pulls in (charts, forms…).
const all = [...new Set(Object.values(manifest).map((c) => c.file))].filter((f) => f.endsWith('.js'));
const lazyCount = all.length - entry.size;
console.log(`\n${all.length} JS chunks in the build, ${lazyCount} loaded only on demand. Largest (gzip KB):`);
for (const f of all.sort((a, b) => sizeOf(b).gzip - sizeOf(a).gzip).slice(0, 8)) {
  console.log(`  ${kb(sizeOf(f).gzip).padStart(7)}  ${f}${entry.has(f) ? '  (first load)' : ''}`);
}
console.log(over ? `\nOVER the ${BUDGET_KB} KB gzip budget` : `\nwithin the ${BUDGET_KB} KB gzip budget`);
process.exitCode = over ? 1 : 0;
