/**
 * Measures the resolver's category-index load from `category_domains` (time, RSS, index bytes).
 *
 *   node --import tsx bench/resolver-category-load.ts [sqlite-file]
 *
 * Imports UT1 (../shared/data/categories/ut1, DESIGN.md §7 suggested mapping) into the SQLite file
 * once (default /tmp/cordon-bench-ut1.db), then, in this process, loads the index the way the
 * resolver does and prints the figures. Numbers go in bench/README.md, never in tests.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { migrateToLatest, openDatabase } from '@cordon/db';
import { loadCategoryIndex } from '../apps/resolver/src/policy/snapshot.ts';

const UT1 = process.env.CORDON_UT1_DIR ?? '/work/shared/data/categories/ut1';
const MAPPING: Record<string, number> = {
  malware: 6,
  cryptojacking: 6,
  ddos: 6,
  stalkerware: 6,
  phishing: 5,
  hacking: 2,
  warez: 2,
  agressif: 3,
  drogue: 4,
  adult: 9,
  mixed_adult: 8,
  lingerie: 7,
  gambling: 20,
  arjel: 20,
  games: 21,
  dating: 23,
  social_networks: 45,
  chat: 43,
  webmail: 46,
  'audio-video': 36,
  manga: 36,
  celebrity: 36,
  press: 39,
  shopping: 42,
  sports: 27,
  bank: 40,
  financial: 40,
  bitcoin: 40,
  jobsearch: 51,
  filehosting: 14,
  download: 14,
  redirector: 12,
  vpn: 12,
  doh: 12,
  'residential-proxies': 12,
  publicite: 49,
  marketingware: 49,
  'remote-control': 13,
  update: 13,
  translation: 15,
  blog: 25,
  forums: 44,
  educational_games: 34,
  examen_pix: 34,
  sect: 33,
  shortener: 54,
};

const file = process.argv[2] ?? '/tmp/cordon-bench-ut1.db';
const fresh = !existsSync(file);
const handle = openDatabase({ sqlitePath: file });
await migrateToLatest(handle);
if (fresh) {
  const t0 = performance.now();
  let rows = 0;
  for (const [cat, id] of Object.entries(MAPPING)) {
    const path = join(UT1, cat, 'domains');
    if (!existsSync(path)) continue;
    const names = readFileSync(path, 'utf8')
      .split('\n')
      .map((l) => l.trim().toLowerCase())
      .filter((l) => l && !l.startsWith('#'));
    await handle.db.transaction().execute(async (trx) => {
      for (let i = 0; i < names.length; i += 5000) {
        const chunk = names.slice(i, i + 5000).map((domain) => ({ domain, category_id: id, source: 'ut1' }));
        await trx
          .insertInto('category_domains')
          .values(chunk)
          .onConflict((oc) => oc.doNothing())
          .execute();
      }
    });
    rows += names.length;
  }
  console.log(`imported ${rows} UT1 lines in ${Math.round(performance.now() - t0)} ms`);
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
