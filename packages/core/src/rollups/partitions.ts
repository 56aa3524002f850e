import { sql } from 'kysely';
import type { CoreDeps } from '../context.ts';
import type { WorkerJob } from '../worker/index.ts';

const DAY_MS = 86_400_000;

/** `query_log_pYYYYMMDD` of the UTC day starting at `dayStart` (migration 0022). */
function partitionName(dayStart: number): string {
  return `query_log_p${new Date(dayStart).toISOString().slice(0, 10).replace(/-/g, '')}`;
}

/**
 * PostgreSQL: creates the daily partitions of `query_log` from yesterday to `aheadDays` days ahead
 * that do not exist yet (migration 0022), so new rows land in their day's partition and retention
 * can drop it whole. A day whose rows already sit in the default partition is skipped (PostgreSQL
 * refuses that partition; its rows are deleted row by row at retention). SQLite: nothing.
 * @returns the partitions created
 */
export async function ensureQueryLogPartitions(deps: CoreDeps, aheadDays = 7): Promise<string[]> {
  const { db, dialect } = deps.handle;
  if (dialect !== 'postgres') return [];
  const partitioned = await sql<{ n: number }>`
    select count(*)::int as n from pg_partitioned_table pt join pg_class c on c.oid = pt.partrelid
    join pg_namespace ns on ns.oid = c.relnamespace where c.relname = 'query_log' and ns.nspname = current_schema()`.execute(
    db,
  );
  if (!partitioned.rows[0]?.n) return [];
  const today = deps.now() - (deps.now() % DAY_MS);
  const created: string[] = [];
  for (let i = -1; i <= aheadDays; i++) {
    const start = today + i * DAY_MS;
    const name = partitionName(start);
    const exists = await sql<{
      n: number;
    }>`select count(*)::int as n from pg_class c join pg_namespace ns on ns.oid = c.relnamespace
      where c.relname = ${name} and ns.nspname = current_schema()`.execute(db);
    if (exists.rows[0]?.n) continue;
    try {
      await sql`create table ${sql.id(name)} partition of query_log
        for values from (${sql.lit(start)}) to (${sql.lit(start + DAY_MS)})`.execute(db);
      created.push(name);
    } catch {
      // Rows of that day already in the default partition: leave the day there.
    }
  }
  return created;
}

/** The worker job keeping a week of `query_log` partitions ahead, hourly (PostgreSQL). */
export function partitionsJob(): WorkerJob {
  return {
    name: 'stats.partitions',
    intervalMs: 3_600_000,
    run: async ({ deps, log }) => {
      const created = await ensureQueryLogPartitions(deps);
      if (created.length > 0) log.info({ created }, 'query-log partitions created');
    },
  };
}
