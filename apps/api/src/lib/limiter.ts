/**
 * A fixed-window counter per key, in memory (DESIGN.md §6 "per account and per IP rate limits on
 * login"). One API instance counts its own attempts; several instances each allow `max`.
 */
export interface Limiter {
  /** Counts one attempt for `key`; true when it is within the limit. */
  hit(key: string): boolean;
}

/**
 * @param max attempts allowed per window
 * @param windowMs window length, ms
 * @param now clock, epoch ms
 */
export function createLimiter(max: number, windowMs: number, now: () => number): Limiter {
  const windows = new Map<string, { start: number; count: number }>();
  return {
    hit(key) {
      const t = now();
      let w = windows.get(key);
      if (!w || t - w.start >= windowMs) {
        // Drop stale windows now and then so the map cannot grow without bound.
        if (windows.size > 10_000) {
          for (const [k, v] of windows) if (t - v.start >= windowMs) windows.delete(k);
        }
        w = { start: t, count: 0 };
        windows.set(key, w);
      }
      w.count += 1;
      return w.count <= max;
    },
  };
}
