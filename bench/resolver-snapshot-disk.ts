/**
 * Measures the resolver's snapshot on disk for the category part (the largest): the recorded full
 * load (written as it is read: time, peak memory), the file's size and the start from the file with
 * the database unreachable.
 *
 *   node --expose-gc --import tsx bench/resolver-snapshot-disk.ts [sqlite-file]
 *
 * Imports UT1 into the SQLite file once (default /tmp/cordon-bench-ut1.db, shared with
 * bench/resolver-category-load.ts). Numbers go in bench/README.md, never in tests.
 */
import { existsSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { migrateToLatest, openDatabase } from '@cordon/db';
import { importUt1Directory } from '@cordon/feeds';
import pino from 'pino';
import { categoriesPart } from '../apps/resolver/src/snapshot/categories.ts';
import { partFile, readPartFile, recordingHandle, replayHandle } from '../apps/resolver/src/snapshot/disk.ts';

const UT1 = process.env.CORDON_UT1_DIR ?? fileURLToPath(new URL('../../shared/data/categories/ut1', import.meta.url));
const file = process.argv[2] ?? '/tmp/cordon-bench-ut1.db';
const fresh = !existsSync(file);
const handle = openDatabase({ sqlitePath: file });
await migrateToLatest(handle);
if (fresh) {
  const report = await importUt1Directory(handle, UT1);
  console.log(`imported ${report.rows} UT1 facts from ${report.lists} lists in ${report.durationMs} ms`);
}
const logger = pino({ level: 'silent' });
const dir = await mkdtemp(join(tmpdir(), 'cordon-snapshot-bench-'));
const mb = (n: number) => `${(n / 1048576).toFixed(1)} MB`;

/** Samples RSS every 20 ms; `stop` gives the peak above the level at the start, bytes. */
function peakAbove(): { stop(): number } {
  global.gc?.();
  const start = process.memoryUsage().rss;
  let peak = start;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 20);
  return {
    stop: () => {
      clearInterval(timer);
      return Math.max(peak, process.memoryUsage().rss) - start;
    },
  };
}

// Warm-up load (page cache, JIT), then one plain and one recorded load, each measured the same way.
await categoriesPart.load(handle, logger, null);
let sampler = peakAbove();
let t0 = performance.now();
const plain = await categoriesPart.load(handle, logger, null);
const plainMs = Math.round(performance.now() - t0);
const plainPeak = sampler.stop();

sampler = peakAbove();
t0 = performance.now();
const recorder = recordingHandle(handle, dir, 'categories');
const recordedIndex = await categoriesPart.load(recorder.handle, logger, null);
const recordedMs = Math.round(performance.now() - t0);
t0 = performance.now();
const bytes = await recorder.commit();
const commitMs = Math.round(performance.now() - t0);
const recordedPeak = sampler.stop();
console.log(
  `categories: ${plain.size} domains; load ${plainMs} ms plain (peak RSS +${mb(plainPeak)}), ${recordedMs} ms recorded into the file (peak RSS +${mb(recordedPeak)})`,
);
console.log(`file ${mb(bytes)} (${statSync(partFile(dir, 'categories')).size} bytes); fsync + rename ${commitMs} ms`);

global.gc?.();
t0 = performance.now();
const read = await readPartFile(dir, 'categories');
const readMs = Math.round(performance.now() - t0);
const replayed = await categoriesPart.load(replayHandle('sqlite', read!.queries, dir), logger, null);
const replayMs = Math.round(performance.now() - t0);
console.log(
  `start from disk: read ${readMs} ms, read + rebuild ${replayMs} ms; ${replayed.size} domains (same as recorded: ${replayed.size === recordedIndex.size})`,
);
await rm(dir, { recursive: true, force: true });
await handle.close();
