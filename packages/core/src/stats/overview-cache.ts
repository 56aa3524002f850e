import type { DatabaseHandle } from '@cordon/db';
import type { StatsOverview } from '@cordon/shared';

/**
 * The customer overviews computed lately (bench/README.md "API reads"): a customer's unique-domain
 * count sums every hour's domain keys of the range (≈ 39,600 roll-up rows for a day at 1,650 names
 * an hour, tens of ms), while a dashboard asks the same overview on every load and refresh. An
 * answer is reused while the fold's watermark (`query_log_fold.last_id`, migration 0035: it moves
 * whenever a logged query reaches the roll-ups, docs/architecture.md "Statistics") has not moved,
 * and for at most {@link OVERVIEW_MAX_AGE_MS}, which bounds what the watermark does not see
 * (retention deleting old hours). Concurrent identical reads share one computation.
 */
export const OVERVIEW_MAX_AGE_MS = 60_000;

/** Entries kept per database handle; the oldest is dropped first. */
const MAX_ENTRIES = 1_000;

interface Entry {
  /** The fold watermark the answer was computed at. */
  readonly mark: number;
  /** When it was computed, epoch ms (the app clock). */
  readonly at: number;
  readonly value: Promise<StatsOverview>;
}

const caches = new WeakMap<DatabaseHandle, Map<string, Entry>>();

/**
 * The fold's watermark: the highest `query_log.id` in the roll-ups (0 before the first fold).
 * PostgreSQL gives the bigint as text.
 */
export async function foldMark(handle: DatabaseHandle): Promise<number> {
  const row = await handle.db.selectFrom('query_log_fold').select('last_id').where('id', '=', 1).executeTakeFirst();
  return Number(row?.last_id ?? 0);
}

/**
 * The overview of `key` (the caller's scope, the subject and the range, already checked visible)
 * from the cache when computed at fold watermark `mark` within {@link OVERVIEW_MAX_AGE_MS} of `now`,
 * else from `compute` (kept for the next reads; a rejected computation is not kept).
 * @param now the app clock, epoch ms
 */
export function cachedOverview(
  handle: DatabaseHandle,
  key: string,
  mark: number,
  now: number,
  compute: () => Promise<StatsOverview>,
): Promise<StatsOverview> {
  let cache = caches.get(handle);
  if (cache === undefined) {
    cache = new Map();
    caches.set(handle, cache);
  }
  const hit = cache.get(key);
  if (hit !== undefined && hit.mark === mark && now - hit.at >= 0 && now - hit.at < OVERVIEW_MAX_AGE_MS) {
    return hit.value;
  }
  const value = compute();
  const entry: Entry = { mark, at: now, value };
  cache.delete(key);
  cache.set(key, entry);
  if (cache.size > MAX_ENTRIES) cache.delete(cache.keys().next().value as string);
  value.catch(() => {
    if (cache.get(key) === entry) cache.delete(key);
  });
  return value;
}
