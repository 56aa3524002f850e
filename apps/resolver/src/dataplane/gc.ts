/**
 * Full garbage collections on demand through public Node APIs only (docs/decisions.md "The addon
 * does UDP I/O only"): V8's `gc` extension, turned on with `v8.setFlagsFromString('--expose-gc')`
 * and reached from a fresh `vm` context, so no application code sees a global `gc`.
 */
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * Two full collections of the calling thread's isolate. After a snapshot load one collection leaves
 * the loaders' old-space pages half swept; the second returns them (old space 38 → 21 MB committed
 * after one, → 12 MB after two, for 9.5 MB live at 1,000,000 domains; bench/results/history.md
 * "Resolver memory", round 8). Pauses the thread ≈ 50–100 ms.
 * @returns the bytes of heap V8 gave back (may be negative by a page)
 */
export function collectGarbageTwice(): number {
  const before = v8.getHeapStatistics().total_physical_size;
  v8.setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as (() => void) | undefined;
  gc?.();
  gc?.();
  return before - v8.getHeapStatistics().total_physical_size;
}
