import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import { loadUdpBatch } from '@cordon/udp-batch';
import { describe, expect, it } from 'vitest';

const binding = loadUdpBatch();
/** glibc's version when the C library is glibc (process.report's header), else undefined. */
const glibc = (process.report.getReport() as { header?: { glibcVersionRuntime?: string } }).header?.glibcVersionRuntime;

/** This process's resident set, MB (Linux /proc). */
function rssMb(): number {
  const kb = /VmRSS:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
  return Number(kb) / 1024;
}

/** A full garbage collection (`gc` exposed to a fresh context, as `cordon serve` does after its first load). */
function collectGarbage(): void {
  v8.setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

// `cordon serve` trims the C heap once its first snapshot is loaded (bench/README.md "Resolver memory").
describe('udp-batch trimHeap', () => {
  it.skipIf(binding === null || glibc === undefined)(
    'gives the freed C-heap memory of dropped buffers back to the kernel',
    async () => {
      binding!.trimHeap();
      // 64 MB in 4 KiB buffers: each backing store is a malloc chunk of this thread's arena, far
      // below glibc's mmap threshold, so freeing them leaves the pages resident until a trim.
      let held: Buffer[] | null = Array.from({ length: 16_384 }, () => Buffer.allocUnsafeSlow(4096).fill(7));
      const whileHeld = rssMb();
      expect(held.length).toBe(16_384);
      held = null;
      collectGarbage();
      // Backing stores may be freed by V8's sweeper just after the collection.
      await new Promise((resolve) => setTimeout(resolve, 200));
      const beforeTrim = rssMb();
      expect(binding!.trimHeap()).toBe(1);
      const afterTrim = rssMb();
      expect(afterTrim).toBeLessThan(beforeTrim - 32);
      expect(afterTrim).toBeLessThan(whileHeld - 32);
    },
  );
});

// `cordon serve` fixes glibc's thresholds before its data plane loads (bench/README.md "Resolver memory",
// round 7). What that saves depends on when V8 frees backing stores, so it is measured by
// bench/resolver-memory.ts, not here.
describe('udp-batch tuneHeap', () => {
  it.skipIf(binding === null || glibc === undefined)(
    'sets the thresholds in a child process (glibc accepts them)',
    () => {
      const addon = join(
        dirname(createRequire(import.meta.url).resolve('@cordon/udp-batch/package.json')),
        'build/Release/udp_batch.node',
      );
      // A child: the thresholds are process-wide and this test must not change the runner's.
      const result = (args: string) =>
        execFileSync(process.execPath, ['-e', `console.log(require(process.argv[1]).tuneHeap(${args}))`, addon], {
          encoding: 'utf8',
        }).trim();
      expect(result('131072, 131072, 2')).toBe('1');
      expect(result('-1, -1, -1')).toBe('1');
      expect(result('0, 0, -1')).toBe('1');
    },
  );

  it.skipIf(binding === null)('refuses values that are neither -1 nor whole numbers in range', () => {
    for (const args of [
      [1.5, 131072, -1],
      [-2, 131072, -1],
      [131072, 131072, 0],
      [131072, 64 << 20, -1],
      [131072, 131072, 2000],
      [Number.NaN, 131072, -1],
    ]) {
      expect(() => binding!.tuneHeap(args[0]!, args[1]!, args[2]!)).toThrow(TypeError);
    }
  });
});

/** The addon's file, for child processes. */
function addonFile(): string {
  return join(
    dirname(createRequire(import.meta.url).resolve('@cordon/udp-batch/package.json')),
    'build/Release/udp_batch.node',
  );
}

/** Runs `script` in a child node (the addon's path in `process.argv[1]`) and returns its stdout parsed as JSON. */
function inChild(script: string, nodeFlags: string[] = []): Record<string, unknown> {
  const out = execFileSync(process.execPath, [...nodeFlags, '-e', script, addonFile()], { encoding: 'utf8' });
  return JSON.parse(out) as Record<string, unknown>;
}

// `cordon serve` releases what its first snapshot load left resident (dataplane/host.ts
// releaseLoadMemory; bench/README.md "Resolver memory", round 8). In children: both act on the
// whole process (its executable mappings) or its isolate, not on this test runner's.
describe('udp-batch releaseExecutablePages', () => {
  it.skipIf(binding === null)("unmaps node's read-only pages, leaves written ones, and the process runs on", () => {
    const result = inChild(`
        const fs = require('node:fs');
        const b = require(process.argv[1]);
        const exe = fs.readlinkSync('/proc/self/exe');
        // Resident KiB of the executable's mappings: the clean read-only ones, and those with a written page.
        const rss = () => {
          const kb = { clean: 0, written: 0 };
          let mine = false, writable = false, size = 0;
          for (const line of fs.readFileSync('/proc/self/smaps', 'utf8').split('\\n')) {
            const head = /^[0-9a-f]+-[0-9a-f]+ (\\S+) \\S+ \\S+ \\d+\\s*(.*)$/.exec(line);
            if (head) { mine = head[2] === exe; writable = head[1][1] === 'w'; continue; }
            const r = /^Rss:\\s+(\\d+)/.exec(line);
            if (r) size = Number(r[1]);
            const a = /^Anonymous:\\s+(\\d+)/.exec(line);
            if (a && mine) kb[!writable && Number(a[1]) === 0 ? 'clean' : 'written'] += size;
          }
          return kb;
        };
        const before = rss();
        const released = b.releaseExecutablePages();
        const after = rss();
        // Code and data of node that come back on use: ICU, crypto, zlib, the module loader.
        const work = [
          new Intl.DateTimeFormat('fr-FR', { dateStyle: 'long', timeZone: 'UTC' }).format(new Date(0)),
          require('node:crypto').createHash('sha256').update('cordon').digest('hex').slice(0, 12),
          require('node:zlib').gunzipSync(require('node:zlib').gzipSync('cordon')).toString(),
          require('node:path').posix.join('a', '..', 'b'),
        ];
        console.log(JSON.stringify({ before, released, after, work }));
      `);
    const before = result.before as { clean: number; written: number };
    const after = result.after as { clean: number; written: number };
    expect(before.clean).toBeGreaterThan(10_000);
    expect(result.released as number).toBeGreaterThan(10_000 * 1024);
    expect(after.clean).toBeLessThan(before.clean - 10_000);
    // RELRO and the data segment keep every page (their written pages would be lost otherwise).
    expect(after.written).toBe(before.written);
    expect(result.work).toEqual([
      '1 janvier 1970',
      createRequire(import.meta.url)('node:crypto')
        .createHash('sha256')
        .update('cordon')
        .digest('hex')
        .slice(0, 12),
      'cordon',
      'b',
    ]);
  });
});

describe('udp-batch releaseIsolateMemory', () => {
  it.skipIf(binding === null)(
    'shrinks a grown young generation and frees the dead old-space objects, keeping every live object',
    () => {
      const result = inChild(
        `
        const v8 = require('node:v8');
        const b = require(process.argv[1]);
        const spaces = () => ({
          ...Object.fromEntries(v8.getHeapSpaceStatistics().map((s) => [s.space_name, s.physical_space_size])),
          total: v8.getHeapStatistics().total_physical_size,
        });
        // Garbage through the young generation until it has grown; old-space objects (promoted by
        // the churn) of which the first half die.
        let old = Array.from({ length: 200000 }, (_, i) => ({ i, s: 'live' + i }));
        let churn = [];
        for (let i = 0; i < 400000; i++) { churn.push({ i, s: 'x' + i }); if (churn.length > 100000) churn = churn.slice(50000); }
        churn = null;
        const live = old.slice(100000);
        old = null;
        const before = spaces();
        const ok = b.releaseIsolateMemory();
        const after = spaces();
        let sum = 0;
        for (const o of live) sum += o.i;
        console.log(JSON.stringify({ ok, before, after, sum, last: live[99999].s }));
      `,
        ['--max-semi-space-size=16'],
      );
      const before = result.before as Record<string, number>;
      const after = result.after as Record<string, number>;
      expect(result.ok).toBe(true);
      expect(before.new_space).toBeGreaterThan(8 << 20);
      expect(after.new_space).toBeLessThan(2 << 20);
      // The young generation's pages and the dead half's go back (V8 may move survivors into old space).
      expect(after.total).toBeLessThan(before.total! - (8 << 20));
      expect(result.sum).toBe((199_999 * 200_000) / 2 - (99_999 * 100_000) / 2);
      expect(result.last).toBe('live199999');
    },
  );
});
