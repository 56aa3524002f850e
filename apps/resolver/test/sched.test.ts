import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { loadUdpBatch } from '@cordon/udp-batch';
import { describe, expect, it } from 'vitest';
import { QUERY_LOG_WRITER_NICE, RESOLVING_THREAD_SLICE_NS } from '../src/sched.ts';

const binding = loadUdpBatch();
const built = binding !== null;
const addon = built
  ? path.join(
      path.dirname(createRequire(import.meta.url).resolve('@cordon/udp-batch/package.json')),
      'build/Release/udp_batch.node',
    )
  : '';
/** Kernels from 6.12 keep a fair thread's requested slice (EEVDF custom slices) and report it back. */
const [major = 0, minor = 0] = os.release().split('.').map(Number);
const customSlices = major > 6 || (major === 6 && minor >= 12);

/** Runs `body` (JavaScript, `b` is the addon) in a fresh thread, so this test thread keeps its scheduling; resolves what it posts. */
async function inThread<T>(body: string): Promise<T> {
  const worker = new Worker(
    `const b = require(${JSON.stringify(addon)}); const { parentPort } = require('node:worker_threads'); ${body}`,
    { eval: true },
  );
  try {
    return await new Promise<T>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
  } finally {
    await worker.terminate();
  }
}

describe('thread scheduling (sched.ts, docs/decisions.md "Thread scheduling")', () => {
  it.skipIf(!built)('gives the query-log writer thread a lower priority, and only that thread', async () => {
    const seen = await inThread<{ before: number; after: number; err: number; parent: number }>(`
      const before = b.threadSched().nice;
      const err = b.tuneThread(0, ${QUERY_LOG_WRITER_NICE});
      parentPort.postMessage({ before, err, after: b.threadSched().nice });`);
    expect(seen.err).toBe(0);
    expect(seen.after).toBe(Math.max(seen.before, QUERY_LOG_WRITER_NICE));
    // Nice is per thread on Linux: this thread is untouched.
    expect(binding?.threadSched().nice).toBe(seen.before);
  });

  it.skipIf(!built)('never lowers a nice value (that would need privileges)', async () => {
    const nice = await inThread<number[]>(`
      const a = b.tuneThread(0, 10), c = b.tuneThread(0, 3);
      parentPort.postMessage([a, c, b.threadSched().nice]);`);
    expect(nice).toEqual([0, 0, 10]);
  });

  it.skipIf(!built)('asks a short slice for the resolving thread, keeping its policy and nice value', async () => {
    const seen = await inThread<{ err: number; before: Record<string, number>; after: Record<string, number> }>(`
      const before = b.threadSched();
      const err = b.tuneThread(${RESOLVING_THREAD_SLICE_NS}, 0);
      parentPort.postMessage({ err, before, after: b.threadSched() });`);
    expect(seen.err).toBe(0);
    expect(seen.after.policy).toBe(seen.before.policy);
    expect(seen.after.nice).toBe(seen.before.nice);
    if (customSlices) expect(seen.after.sliceNs).toBe(RESOLVING_THREAD_SLICE_NS);
  });

  it.skipIf(!built)('refuses a slice or nice value out of range and changes nothing', () => {
    const before = binding?.threadSched();
    expect(() => binding?.tuneThread(-1, 0)).toThrow(TypeError);
    expect(() => binding?.tuneThread(2e9, 0)).toThrow(TypeError);
    expect(() => binding?.tuneThread(0, 20)).toThrow(/nice \(-20 to 19\)/);
    expect(binding?.threadSched()).toEqual(before);
  });
});
