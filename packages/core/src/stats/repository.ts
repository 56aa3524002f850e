import type { Database } from '@cordon/db';
import type { StatsOverview, TimeRange } from '@cordon/shared';
import { type Kysely, sql } from 'kysely';
import { customerInScope, type TenantScope } from '../tenancy/index.ts';

const HOUR_MS = 3_600_000;

function logQuery(db: Kysely<Database>, scope: TenantScope, customerId: number, range: TimeRange) {
  return db
    .selectFrom('query_log')
    .innerJoin('customers', 'customers.id', 'query_log.customer_id')
    .where(customerInScope(scope))
    .where('query_log.customer_id', '=', customerId)
    .where('query_log.ts', '>=', range.from)
    .where('query_log.ts', '<', range.to);
}

/**
 * The overview numbers of customer `customerId` over `[from, to)` (epoch ms) from the raw query log:
 * requests = all rows, unique_domains = distinct names, blocked = action 'blocked', allowed = the rest
 * ('bypassed' is an allowed answer).
 */
export async function overview(
  db: Kysely<Database>,
  scope: TenantScope,
  customerId: number,
  range: TimeRange,
): Promise<StatsOverview> {
  const row = await logQuery(db, scope, customerId, range)
    .select((eb) => [
      eb.fn.countAll<number>().as('requests'),
      sql<number>`count(distinct query_log.qname)`.as('unique_domains'),
      sql<number>`coalesce(sum(case when query_log.action = 'blocked' then 1 else 0 end), 0)`.as('blocked'),
    ])
    .executeTakeFirstOrThrow();
  const requests = Number(row.requests);
  const blocked = Number(row.blocked);
  return { requests, unique_domains: Number(row.unique_domains), allowed: requests - blocked, blocked };
}

/**
 * Hourly allowed/blocked counts over `[from, to)`, one point per hour from `from` (zeros included;
 * a DST day has 23 or 25). `time` is the bucket's start as ISO-8601 UTC.
 */
export async function trafficByHour(
  db: Kysely<Database>,
  scope: TenantScope,
  customerId: number,
  range: TimeRange,
): Promise<Array<{ time: string; allowed: number; blocked: number }>> {
  // Literals, not parameters: SQLite binds JS numbers as REAL (a fractional division), and PostgreSQL
  // needs the SELECT and GROUP BY expressions to be identical. Both values are integers computed here.
  const from = Math.trunc(range.from);
  const bucket = sql<number>`cast((query_log.ts - ${sql.lit(from)}) / ${sql.lit(HOUR_MS)} as bigint)`;
  const rows = await logQuery(db, scope, customerId, range)
    .select((eb) => [
      bucket.as('bucket'),
      eb.fn.countAll<number>().as('requests'),
      sql<number>`sum(case when query_log.action = 'blocked' then 1 else 0 end)`.as('blocked'),
    ])
    .groupBy(bucket)
    .execute();
  const byBucket = new Map(rows.map((r) => [Number(r.bucket), r]));
  const points: Array<{ time: string; allowed: number; blocked: number }> = [];
  for (let i = 0; range.from + i * HOUR_MS < range.to; i++) {
    const r = byBucket.get(i);
    const blocked = Number(r?.blocked ?? 0);
    points.push({
      time: new Date(range.from + i * HOUR_MS).toISOString(),
      allowed: Number(r?.requests ?? 0) - blocked,
      blocked,
    });
  }
  return points;
}
