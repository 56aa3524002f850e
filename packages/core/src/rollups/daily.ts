import { sql } from 'kysely';
import type { CoreDeps } from '../context.ts';
import type { WorkerJob } from '../worker/index.ts';

const DAY_MS = 86_400_000;
/** A day is compacted this long after it ended: the writers' roll-up window is far shorter. */
export const DAILY_GRACE_MS = 3_600_000;

/**
 * Compacts every ended UTC day (ended at least {@link DAILY_GRACE_MS} ago) that has hourly top rows
 * and is not yet in `stats_daily_done`: its `stats_hourly_top` rows summed per customer, dimension,
 * action and key into `stats_daily_top`, and its `stats_hourly_msp_top` rows (the customer's MSP when
 * written, migration 0033) per MSP into `stats_daily_msp_top`, with the day marked done, in one
 * transaction per day (migration 0022; docs/architecture.md "Statistics"). At most `maxDays` days per call.
 * @returns the compacted days' starts (epoch ms)
 */
export async function compactDays(deps: CoreDeps, maxDays = 60): Promise<number[]> {
  const { db } = deps.handle;
  const lastEnded = deps.now() - DAILY_GRACE_MS;
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
    });
    out.push(day);
  }
  return out;
}

/** The worker job compacting ended days into `stats_daily_top`, every 15 minutes. */
export function dailyRollupsJob(): WorkerJob {
  return {
    name: 'stats.daily',
    intervalMs: 15 * 60_000,
    run: async ({ deps, log }) => {
      const days = await compactDays(deps);
      if (days.length > 0)
        log.info({ days: days.map((d) => new Date(d).toISOString().slice(0, 10)) }, 'daily roll-ups written');
    },
  };
}
