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
