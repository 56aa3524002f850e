import type { Database } from '@cordon/db';
import type { Kysely } from 'kysely';
import { hllAdd, hllCreate } from '../stats/index.ts';

/** Keys kept per (MSP, period, dimension, group) in `stats_msp_rank` (twice the largest top-list `limit`, 100). */
export const MSP_RANK_KEYS = 200;

/** The dimensions of the dashboards' top lists and unique-domain count, summarized per MSP (migration 0034). */
export const MSP_SUMMARY_DIMS = ['category', 'domain', 'user'] as const;

/** The top-list group of a roll-up action: a bypassed query was answered, so it counts as allowed. */
export function groupOf(action: string): 'allowed' | 'blocked' {
  return action === 'blocked' ? 'blocked' : 'allowed';
}

/**
 * Summarizes one period of the per-MSP roll-ups for every MSP with rows in it (migration 0034;
 * docs/architecture.md "Statistics"): `hours` 24 reads the day `start` of `stats_daily_msp_top`,
 * `hours` 1 the hour `start` of `stats_hourly_msp_top`. Per MSP it writes the HyperLogLog sketch of
 * the `domain` keys, the {@link MSP_RANK_KEYS} keys with the most queries per dimension and group
 * (count desc, key asc) and the largest count left out, then marks the period done. Replaces a
 * previous summary of the same period. Run it inside the caller's transaction.
 */
export async function summarizeMspPeriod(
  db: Kysely<Database>,
  start: number,
  hours: 1 | 24,
  now: number,
): Promise<void> {
  await db.deleteFrom('stats_msp_rank').where('hours', '=', hours).where('start', '=', start).execute();
  await db.deleteFrom('stats_msp_summary').where('hours', '=', hours).where('start', '=', start).execute();
  await db.deleteFrom('stats_msp_summary_done').where('hours', '=', hours).where('start', '=', start).execute();
  const rows =
    hours === 24
      ? await db
          .selectFrom('stats_daily_msp_top')
          .select(['msp_id', 'dim', 'action', 'key', 'count'])
          .where('day', '=', start)
          .where('dim', 'in', [...MSP_SUMMARY_DIMS])
          .execute()
      : await db
          .selectFrom('stats_hourly_msp_top')
          .select(['msp_id', 'dim', 'action', 'key', 'count'])
          .where('hour', '=', start)
          .where('dim', 'in', [...MSP_SUMMARY_DIMS])
          .execute();
  // msp → "dim:grp" → key → count
  const byMsp = new Map<number, Map<string, Map<string, number>>>();
  for (const r of rows) {
    const msp = Number(r.msp_id);
    let dims = byMsp.get(msp);
    if (!dims) {
      dims = new Map();
      byMsp.set(msp, dims);
    }
    const part = `${r.dim}:${groupOf(r.action)}`;
    let keys = dims.get(part);
    if (!keys) {
      keys = new Map();
      dims.set(part, keys);
    }
    keys.set(r.key, (keys.get(r.key) ?? 0) + Number(r.count));
  }
  for (const [msp, dims] of byMsp) {
    const sketch = hllCreate();
    const restMax: Record<string, number> = {};
    const ranked: Array<{
      msp_id: number;
      hours: number;
      start: number;
      dim: string;
      grp: string;
      key: string;
      count: number;
    }> = [];
    for (const [part, keys] of dims) {
      const [dim, grp] = part.split(':') as [string, string];
      if (dim === 'domain') for (const key of keys.keys()) hllAdd(sketch, key);
      const sorted = [...keys].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
      restMax[part] = sorted.length > MSP_RANK_KEYS ? sorted[MSP_RANK_KEYS]![1] : 0;
      for (const [key, count] of sorted.slice(0, MSP_RANK_KEYS))
        ranked.push({ msp_id: msp, hours, start, dim, grp, key, count });
    }
    for (let i = 0; i < ranked.length; i += 500) {
      await db
        .insertInto('stats_msp_rank')
        .values(ranked.slice(i, i + 500))
        .execute();
    }
    await db
      .insertInto('stats_msp_summary')
      .values({ msp_id: msp, hours, start, sketch: Buffer.from(sketch.buffer), rest_max: JSON.stringify(restMax) })
      .execute();
  }
  await db.insertInto('stats_msp_summary_done').values({ hours, start, done_at: now }).execute();
}
