import { readFileSync } from 'node:fs';
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
