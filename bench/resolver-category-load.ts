/**
 * Measures the resolver's category-index load from `category_domains` (time, RSS, index bytes).
 *
 *   node --import tsx bench/resolver-category-load.ts [sqlite-file]
 *
 * Imports UT1 (../shared/data/categories/ut1, the repository's mapping) into the SQLite file
 * once (default /tmp/cordon-bench-ut1.db), then, in this process, loads the index the way the
 * resolver does and prints the figures, then the time of a lookup over three sets of names (names
 * the index holds, a fresh subdomain of each, the top-domains workload: CORDON_TOP_DOMAINS or
 * ../shared/data/workload/top-domains.txt.gz). Numbers go in bench/README.md, never in tests.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
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

// Lookups as the resolver makes them: each name a flat one-byte string, as the wire decoder makes it
// (a string built by concatenation or split from a file would time V8's string unpacking instead).
// Three sets of 300,000 names, the best of 5 rounds each: names the index holds (every qname and
// its parents probed, one matching), a fresh subdomain of each (one probe more, and no name asked
// twice), and the top-domains workload (mostly not categorised, as on an allowed query).
const flat = (name: string) => Buffer.from(name, 'latin1').toString('latin1');
const indexed = (
  await handle.db.selectFrom('category_domains').select('domain').distinct().orderBy('domain').execute()
).map((r) => r.domain);
const spread = (names: string[], n: number) =>
  Array.from({ length: Math.min(n, names.length) }, (_, i) => names[(i * 7919) % names.length]!);
const TOP =
  process.env.CORDON_TOP_DOMAINS ??
  fileURLToPath(new URL('../../shared/data/workload/top-domains.txt.gz', import.meta.url));
const top = existsSync(TOP)
  ? gunzipSync(readFileSync(TOP))
      .toString('utf8')
      .split('\n')
      .map((l) => l.trim().toLowerCase())
      .filter((l) => l.length > 0 && !l.startsWith('#'))
  : [];
const sets: Array<[string, string[]]> = [
  ['names the index holds', spread(indexed, 300_000).map(flat)],
  ['a fresh subdomain of each', spread(indexed, 300_000).map((d, i) => flat(`n${i}.${d}`))],
  ['top domains', top.slice(0, 300_000).map(flat)],
];
for (const [label, names] of sets) {
  if (names.length === 0) {
    console.log(`${label}: skipped (no names; the top-domains workload is read from ${TOP})`);
    continue;
  }
  let best = Number.POSITIVE_INFINITY;
  let matched = 0;
  for (let round = 0; round < 5; round++) {
    matched = 0;
    const t = performance.now();
    for (let i = 0; i < names.length; i++) if (index.categoriesOf(names[i]!).length > 0) matched++;
    best = Math.min(best, ((performance.now() - t) * 1e6) / names.length);
  }
  console.log(
    `${label}: ${names.length.toLocaleString('en')} lookups, ${best.toFixed(0)} ns each (best of 5), ${matched.toLocaleString('en')} matched`,
  );
}
await handle.close();
