import { createHash } from 'node:crypto';

/** A token bucket rule: `burst` calls at once, refilled evenly at `burst` per `perMs`. */
export interface AgentRate {
  /** Calls one key may make at once, and per `perMs`. */
  readonly burst: number;
  /** Refill period, ms. */
  readonly perMs: number;
}

/**
 * Enrolments per install key (docs/security.md "Identity claims"): 30 at once, then one every 10 s
 * (a rollout of 360 machines an hour per customer; an agent refused with 429 retries with back-off).
 */
export const ENROL_RATE: AgentRate = { burst: 30, perMs: 300_000 };
/**
 * Heartbeats per device key: 10 at once, then one every 30 s; an agent heartbeats every 300 s
 * (`HEARTBEAT_SECONDS`), more only on `SIGHUP` or after a failure (every 30 s).
 */
export const HEARTBEAT_RATE: AgentRate = { burst: 10, perMs: 300_000 };

/** Buckets kept before full (idle) ones are dropped. */
const SWEEP_AT = 10_000;

/** Per-key call budget of one API process (in memory: each process has its own buckets). */
export interface AgentLimiter {
  /**
   * Takes one call from `key`'s bucket.
   * @returns 0 when taken; else how long until one is available, ms (> 0)
   */
  take(key: string): number;
}

/**
 * A token bucket per key, keyed by the key's SHA-256 (a secret is not kept readable in memory
 * longer than the request), refilled on the clock `now` (epoch ms). The same shape as the batch
 * budget (`lib/batch-budget.ts`).
 */
export function createAgentLimiter(rate: AgentRate, now: () => number): AgentLimiter {
  const buckets = new Map<string, { tokens: number; at: number }>();
  const perMsRate = rate.burst / rate.perMs;
  return {
    take(key) {
      const id = createHash('sha256').update(key).digest('base64url');
      const t = now();
      const b = buckets.get(id) ?? { tokens: rate.burst, at: t };
      b.tokens = Math.min(rate.burst, b.tokens + Math.max(0, t - b.at) * perMsRate);
      b.at = t;
      buckets.set(id, b);
      if (b.tokens < 1) return Math.max(1, Math.ceil((1 - b.tokens) / perMsRate));
      b.tokens -= 1;
      if (buckets.size > SWEEP_AT) {
        for (const [k, other] of buckets) {
          if (other.tokens + (t - other.at) * perMsRate >= rate.burst) buckets.delete(k);
        }
      }
      return 0;
    },
  };
}
