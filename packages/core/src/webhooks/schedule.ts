/**
 * When a failing endpoint is tried again (docs/api.md "Webhooks" "Retries"): after its n-th
 * consecutive failed attempt the endpoint waits `RETRY_DELAYS_MS[n - 1]` (the last entry beyond),
 * jittered ±20 %, before any of its deliveries is attempted again. The backoff is the endpoint's, not
 * each delivery's, so a burst of events to a dead endpoint does not hammer it or disable it at once.
 */
export const RETRY_DELAYS_MS: readonly number[] = [
  10_000,
  60_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  6 * 3_600_000,
  12 * 3_600_000,
  24 * 3_600_000,
];

/** Consecutive failed attempts after which an endpoint is disabled (issue 26). */
export const DISABLE_AFTER_FAILURES = 10;

/** How long an endpoint may fail without a success before it is disabled, ms (3 days; issue 26). */
export const DISABLE_AFTER_MS = 3 * 86_400_000;

/**
 * The wait after the `failures`-th consecutive failed attempt, ms: {@link RETRY_DELAYS_MS} jittered
 * by a factor in [0.8, 1.2) drawn from `random` (tests pass a fixed one).
 * @param failures ≥ 1
 */
export function retryDelayMs(failures: number, random: () => number = Math.random): number {
  const base = RETRY_DELAYS_MS[Math.min(Math.max(failures, 1), RETRY_DELAYS_MS.length) - 1] as number;
  return Math.round(base * (0.8 + 0.4 * random()));
}

/**
 * Whether an endpoint with `failures` consecutive failed attempts, failing since `failingSince`
 * (epoch ms), is disabled at `now`: after {@link DISABLE_AFTER_FAILURES} failures or
 * {@link DISABLE_AFTER_MS} of failing, whichever comes first. Returns the reason, else null.
 */
export function disableReason(failures: number, failingSince: number, now: number): string | null {
  if (failures >= DISABLE_AFTER_FAILURES) return `${failures} consecutive failed deliveries`;
  if (now - failingSince >= DISABLE_AFTER_MS) return 'failing for 3 days';
  return null;
}
