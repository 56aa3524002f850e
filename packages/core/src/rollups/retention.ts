import { sql } from 'kysely';
import type { CoreDeps } from '../context.ts';
import type { WorkerJob } from '../worker/index.ts';

const DAY_MS = 86_400_000;

/** Retention settings (docs/architecture.md "Statistics"): raw rows 30 days, roll-ups 13 months by default. */
export interface RetentionSettings {
  /** Days raw `query_log` rows are kept. */
  logRetentionDays: number;
  /** Calendar months (UTC) the hourly roll-ups are kept. */
  rollupRetentionMonths: number;
}

/** What one retention pass removed. */
export interface RetentionResult {
  /** Raw rows deleted (SQLite, or unpartitioned PostgreSQL rows). */
  rawRows: number;
  /** Daily partitions of `query_log` dropped (PostgreSQL). */
  partitions: string[];
  /** Roll-up rows deleted (`stats_hourly`, `stats_hourly_top` and `stats_daily_top`). */
  rollupRows: number;
}

/** The instant before which rows go: `days` before `now`, and the UTC month start `months` back. */
export function retentionCutoffs(now: number, s: RetentionSettings): { raw: number; rollup: number } {
  const d = new Date(now);
  return {
    raw: now - s.logRetentionDays * DAY_MS,
    rollup: Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - s.rollupRetentionMonths, 1),
  };
}

/**
 * Deletes query-log rows older than the raw cutoff and roll-ups older than the roll-up cutoff
 * ({@link retentionCutoffs}). On PostgreSQL the raw rows live in daily partitions
 * (`query_log_pYYYYMMDD`, migration 0021) and a partition whose whole day lies before the cutoff is
 * dropped rather than deleted row by row; rows of the boundary day are deleted. Batches of 10,000
 * rows keep each SQLite transaction short (the query-log writer shares the file).
 */
export async function applyRetention(deps: CoreDeps, s: RetentionSettings): Promise<RetentionResult> {
  const { db, dialect } = deps.handle;
  const cut = retentionCutoffs(deps.now(), s);
  const partitions: string[] = [];
  if (dialect === 'postgres') {
    const parts = await sql<{ name: string }>`
      select c.relname as name from pg_inherits i
      join pg_class c on c.oid = i.inhrelid join pg_class p on p.oid = i.inhparent
      join pg_namespace n on n.oid = p.relnamespace
      where p.relname = 'query_log' and n.nspname = current_schema()`.execute(db);
    for (const { name } of parts.rows) {
      const m = /^query_log_p(\d{4})(\d{2})(\d{2})$/.exec(name);
      if (!m) continue;
      const dayEnd = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]) + 1);
      if (dayEnd <= cut.raw) {
        await sql`drop table ${sql.id(name)}`.execute(db);
        partitions.push(name);
      }
    }
  }
  let rawRows = 0;
  for (;;) {
    const res =
      await sql`delete from query_log where id in (select id from query_log where ts < ${cut.raw} limit 10000)`.execute(
        db,
      );
    const n = Number(res.numAffectedRows ?? 0);
    rawRows += n;
    if (n < 10_000) break;
  }
  const a = await db.deleteFrom('stats_hourly').where('hour', '<', cut.rollup).executeTakeFirst();
  const b = await db.deleteFrom('stats_hourly_top').where('hour', '<', cut.rollup).executeTakeFirst();
  const c = await db.deleteFrom('stats_daily_top').where('day', '<', cut.rollup).executeTakeFirst();
  await db.deleteFrom('stats_hourly_msp_top').where('hour', '<', cut.rollup).execute();
  await db.deleteFrom('stats_daily_msp_top').where('day', '<', cut.rollup).execute();
  await db.deleteFrom('stats_daily_done').where('day', '<', cut.rollup).execute();
  for (const table of ['stats_msp_rank', 'stats_msp_summary', 'stats_msp_summary_done'] as const) {
    await db.deleteFrom(table).where('start', '<', cut.rollup).execute();
  }
  return {
    rawRows,
    partitions,
    rollupRows: Number(a.numDeletedRows) + Number(b.numDeletedRows) + Number(c.numDeletedRows),
  };
}

/** The worker job applying {@link applyRetention} once an hour. */
export function retentionJob(s: RetentionSettings): WorkerJob {
  return {
    name: 'stats.retention',
    intervalMs: 3_600_000,
    run: async ({ deps, log }) => {
      const r = await applyRetention(deps, s);
      if (r.rawRows > 0 || r.partitions.length > 0 || r.rollupRows > 0)
        log.info({ ...r }, 'query-log retention applied');
    },
  };
}
