/**
 * How many `/batch` sub-requests one admin may send (docs/api.md "Batch"; issue 30: every item counts
 * against the caller, so one call cannot buy what a hundred would not): a bucket of `entries` tokens
 * per admin that refills evenly over `perMs`.
 */
export interface BatchRate {
  /** Sub-requests an admin may send at once, and per `perMs`. */
  readonly entries: number;
  /** Refill period, ms. */
  readonly perMs: number;
}

/** The default: 1,000 sub-requests a minute per admin (ten full batches), per API process. */
export const BATCH_RATE: BatchRate = { entries: 1000, perMs: 60_000 };

/** The per-admin sub-request budget of one API process. */
export interface BatchBudget {
  /**
   * Takes `n` sub-requests from `adminId`'s bucket at once, or none.
   * @returns 0 when taken; else how long until `n` are available, ms (> 0)
   */
  take(adminId: number, n: number): number;
}

/** Buckets kept before idle (full) ones are dropped. */
const SWEEP_AT = 10_000;

/**
 * A token bucket per admin (in memory, so per API process) refilled at `rate.entries / rate.perMs` per
 * ms on the clock `now` (epoch ms). A request for more than a full bucket waits for a full one and
 * empties it.
 */
export function createBatchBudget(rate: BatchRate, now: () => number): BatchBudget {
  const buckets = new Map<number, { tokens: number; at: number }>();
  const perMsRate = rate.entries / rate.perMs;
  return {
    take(adminId, n) {
      if (n <= 0) return 0;
      const t = now();
      const b = buckets.get(adminId) ?? { tokens: rate.entries, at: t };
      b.tokens = Math.min(rate.entries, b.tokens + Math.max(0, t - b.at) * perMsRate);
      b.at = t;
      const need = Math.min(n, rate.entries);
      if (b.tokens + 1e-9 < need) {
        buckets.set(adminId, b);
        return Math.max(1, Math.ceil((need - b.tokens) / perMsRate));
      }
      b.tokens -= need;
      buckets.set(adminId, b);
      if (buckets.size > SWEEP_AT) {
        for (const [id, other] of buckets) {
          if (other.tokens + (t - other.at) * perMsRate >= rate.entries) buckets.delete(id);
        }
      }
      return 0;
    },
  };
}
