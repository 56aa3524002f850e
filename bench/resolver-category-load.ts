/**
 * Measures the resolver's category-index load from `category_domains` (time, RSS, index bytes).
 *
 *   node --import tsx bench/resolver-category-load.ts [sqlite-file]
 *
 * Imports UT1 (../shared/data/categories/ut1, the repository's mapping) into the SQLite file
 * once (default /tmp/cordon-bench-ut1.db), then, in this process, loads the index the way the
 * resolver does and prints the figures. Numbers go in bench/README.md, never in tests.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { migrateToLatest, openDatabase } from '@cordon/db';
import { importUt1Directory } from '@cordon/feeds';
import { loadCategoryIndex } from '../apps/resolver/src/snapshot/categories.ts';

const UT1 = process.env.CORDON_UT1_DIR ?? fileURLToPath(new URL('../../shared/data/categories/ut1', import.meta.url));

const file = process.argv[2] ?? '/tmp/cordon-bench-ut1.db';
const fresh = !existsSync(file);
const handle = openDatabase({ sqlitePath: file });
await migrateToLatest(handle);
if (fresh) {
  // The same importer and mapping as `cordon categories import --format ut1`.
  const report = await importUt1Directory(handle, UT1);
  console.log(`imported ${report.rows} UT1 facts from ${report.lists} lists in ${report.durationMs} ms`);
}

global.gc?.();
const rssBefore = process.memoryUsage().rss;
const t0 = performance.now();
const index = await loadCategoryIndex(handle);
const ms = Math.round(performance.now() - t0);
global.gc?.();
const mem = process.memoryUsage();
const mb = (n: number) => `${(n / 1048576).toFixed(1)} MB`;
console.log(`category index: ${index.size} domains loaded in ${ms} ms`);
console.log(
  `index arrays ${mb(index.byteSize)}; RSS before ${mb(rssBefore)}, after ${mb(mem.rss)}; heap used ${mb(mem.heapUsed)}; external (incl. array buffers) ${mb(mem.external)}`,
);
const t1 = performance.now();
let hits = 0;
const probe = ['www.bet365.com', 'example.org', 'a.b.c.facebook.com', 'news.bbc.co.uk', 'cdn.doubleclick.net'];
for (let i = 0; i < 1_000_000; i++) if (index.categoriesOf(probe[i % probe.length]!).length > 0) hits++;
console.log(`1,000,000 lookups (qname + parents) in ${Math.round(performance.now() - t1)} ms (${hits} matched)`);
await handle.close();
