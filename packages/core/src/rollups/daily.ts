import { sql } from 'kysely';
import type { CoreDeps } from '../context.ts';
import type { WorkerJob } from '../worker/index.ts';
import { foldedThrough } from './fold.ts';
import { summarizeMspPeriod } from './msp-summary.ts';

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
/** An hour is summarized per MSP this long after it ended, and once the fold has passed its end (rollups/fold.ts). */
export const HOURLY_GRACE_MS = 5 * 60_000;
/** A day is compacted this long after it ended, and once the fold has passed its end (rollups/fold.ts). */
export const DAILY_GRACE_MS = 3_600_000;

/**
 * Compacts every ended UTC day (ended at least {@link DAILY_GRACE_MS} ago, and every row logged in it
 * folded: {@link foldedThrough}) that has hourly top rows
 * and is not yet in `stats_daily_done`: its `stats_hourly_top` rows summed per customer, dimension,
 * action and key into `stats_daily_top`, and its `stats_hourly_msp_top` rows (the customer's MSP when
 * written, migration 0033) per MSP into `stats_daily_msp_top`, with the day marked done, in one
 * transaction per day (migration 0022; docs/architecture.md "Statistics"). The same transaction
 * summarizes the day per MSP (migration 0034, {@link summarizeMspPeriod}) and drops the summaries of
 * its hours, which no read uses once the day is compacted. At most `maxDays` days per call.
 * @returns the compacted days' starts (epoch ms)
 */
export async function compactDays(deps: CoreDeps, maxDays = 60): Promise<number[]> {
  const { db } = deps.handle;
  const lastEnded = Math.min(deps.now() - DAILY_GRACE_MS, await foldedThrough(deps.handle, deps.now()));
  const lastDay = lastEnded - (lastEnded % DAY_MS) - DAY_MS; // the newest day whose end ≤ lastEnded
  const first = await db
    .selectFrom('stats_hourly_top')
    .select((eb) => eb.fn.min('hour').as('h'))
    .executeTakeFirst();
  if (first?.h === null || first?.h === undefined) return [];
  const firstDay = Number(first.h) - (Number(first.h) % DAY_MS);
  const done = new Set(
    (await db.selectFrom('stats_daily_done').select('day').where('day', '>=', firstDay).execute()).map((r) =>
      Number(r.day),
    ),
  );
  const out: number[] = [];
  for (let day = firstDay; day <= lastDay && out.length < maxDays; day += DAY_MS) {
    if (done.has(day)) continue;
    await db.transaction().execute(async (trx) => {
      await sql`insert into stats_daily_top (customer_id, day, dim, action, key, count)
        select customer_id, ${sql.lit(day)}, dim, action, key, sum(count) from stats_hourly_top
        where hour >= ${sql.lit(day)} and hour < ${sql.lit(day + DAY_MS)}
        group by customer_id, dim, action, key`.execute(trx);
      await sql`insert into stats_daily_msp_top (msp_id, day, dim, action, key, count)
        select msp_id, ${sql.lit(day)}, dim, action, key, sum(count) from stats_hourly_msp_top
        where hour >= ${sql.lit(day)} and hour < ${sql.lit(day + DAY_MS)}
        group by msp_id, dim, action, key`.execute(trx);
      await trx.insertInto('stats_daily_done').values({ day, done_at: deps.now() }).execute();
      await summarizeMspPeriod(trx, day, 24, deps.now());
      await dropHourSummaries(trx, day, day + DAY_MS);
    });
    out.push(day);
  }
  return out;
}

/** Removes the hourly MSP summaries of `[from, to)` (migration 0034). */
async function dropHourSummaries(db: CoreDeps['handle']['db'], from: number, to: number): Promise<void> {
  for (const table of ['stats_msp_rank', 'stats_msp_summary', 'stats_msp_summary_done'] as const) {
    await db.deleteFrom(table).where('hours', '=', 1).where('start', '>=', from).where('start', '<', to).execute();
  }
}

/**
 * Summarizes per MSP (migration 0034, {@link summarizeMspPeriod}) what MSP and system dashboards
 * would otherwise sum row by row: every compacted day without a summary (days compacted before
 * migration 0034), then every hour of the last 48 that ended at least {@link HOURLY_GRACE_MS} ago,
 * lies after the compacted days, is folded through and is not summarized yet; one transaction per period, at most
 * `maxPeriods` per call. A row a writer adds to an hour after its summary still counts in the top
 * lists (their counts are read from the roll-ups) but not in that hour's sketch.
 * @returns the summarized periods as `{ start, hours }`
 */
export async function summarizeMspPeriods(
  deps: CoreDeps,
  maxPeriods = 200,
): Promise<Array<{ start: number; hours: 1 | 24 }>> {
  const { db } = deps.handle;
  const out: Array<{ start: number; hours: 1 | 24 }> = [];
  const summarized = new Set(
    (await db.selectFrom('stats_msp_summary_done').select(['hours', 'start']).execute()).map(
      (r) => `${r.hours}:${Number(r.start)}`,
    ),
  );
  const days = (await db.selectFrom('stats_daily_done').select('day').orderBy('day').execute()).map((r) =>
    Number(r.day),
  );
  for (const day of days) {
    if (out.length >= maxPeriods) return out;
    if (summarized.has(`24:${day}`)) continue;
    await db.transaction().execute((trx) => summarizeMspPeriod(trx, day, 24, deps.now()));
    out.push({ start: day, hours: 24 });
  }
  const compacted = new Set(days);
  const lastEnded = Math.min(deps.now() - HOURLY_GRACE_MS, await foldedThrough(deps.handle, deps.now()));
  const lastHour = lastEnded - (lastEnded % HOUR_MS) - HOUR_MS; // the newest hour whose end ≤ lastEnded
  for (let hour = lastHour - 47 * HOUR_MS; hour <= lastHour && out.length < maxPeriods; hour += HOUR_MS) {
    if (compacted.has(hour - (hour % DAY_MS)) || summarized.has(`1:${hour}`)) continue;
    await db.transaction().execute((trx) => summarizeMspPeriod(trx, hour, 1, deps.now()));
    out.push({ start: hour, hours: 1 });
  }
  return out;
}

/**
 * The worker job compacting ended days into `stats_daily_top` and summarizing ended days and hours
 * per MSP ({@link summarizeMspPeriods}), every 5 minutes (a run with nothing to do reads two small tables).
 */
export function dailyRollupsJob(): WorkerJob {
  return {
    name: 'stats.daily',
    intervalMs: 5 * 60_000,
    run: async ({ deps, log }) => {
      const days = await compactDays(deps);
      if (days.length > 0)
        log.info({ days: days.map((d) => new Date(d).toISOString().slice(0, 10)) }, 'daily roll-ups written');
      const periods = await summarizeMspPeriods(deps);
      if (periods.length > 0) log.info({ periods: periods.length }, 'MSP summaries written');
    },
  };
}
