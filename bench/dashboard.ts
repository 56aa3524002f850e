/**
 * Dashboard calls over a month of traffic (docs/architecture.md "Statistics", "Budgets"): the nine
 * calls of one dashboard (overview, hourly traffic, 5-day history, six top lists) for a customer and
 * for its MSP, for `today`, `7days` and `30days`, timed through core (the API adds routing and JSON
 * only).
 *
 *   node --import tsx bench/dashboard.ts [customers=1] [domainsPerHour=1500]
 *   CORDON_BENCH_DATABASE_URL=postgres://… node --import tsx bench/dashboard.ts 1 1500
 *   CORDON_BENCH_KEEP=1 …   # keeps the SQLite file or PostgreSQL schema (printed) to look at the queries' plans
 *
 * The roll-ups are generated directly as the writer would have left them after each customer
 * logged 10,000,000 queries over the last 30 days (13,889 an hour with a day/night swing, 10%
 * blocked, `domainsPerHour` distinct qnames an hour with a Zipf-like skew, 100 client addresses,
 * 25 categories, 2 policies): dashboards never read raw rows, so none are written. The worker's
 * daily compaction (`rollups.compactDays`) then runs as it would have. Medians of 5 runs. Numbers go in bench/README.md, never in tests.
 *
 *   node --import tsx bench/dashboard.ts msp [customers=100] [domainsPerHour=1500]
 *
 * The MSP case (issue 9): one MSP with `customers` customers that each logged 10,000,000 queries over
 * the last 30 days as above (≈ 1e9 for 100), its dashboard and the system's measured at 23:30 UTC
 * (today's 24 hours all hourly, the worst "today"), every customer and the MSP in UTC. Written
 * directly: `stats_hourly` for all 720 hours of every customer; `stats_hourly_top` for today's 24
 * hours of every customer, and `stats_hourly_msp_top` (their per-MSP sums, what MSP and system calls
 * read beside the compacted days, migration 0033); and for the 29 ended days `stats_daily_msp_top`
 * (the per-MSP daily sums) with `stats_daily_done`; then the worker's per-MSP summaries of those days
 * and of today's ended hours (`rollups.summarizeMspPeriods`, migration 0034; skipped with
 * `CORDON_BENCH_NO_SUMMARY=1`, which measures the reads without them). Per-customer
 * daily rows (`stats_daily_top`) are not written: MSP and system calls never read them. Each
 * customer's qnames: two thirds from a pool every customer shares (the same popular sites), one
 * third its own; blocked names likewise; client addresses its own (the `sourceip` and `user`
 * dimensions, as for clients without a device key); categories and policy shared.
 */
import { customers, msps, OPERATOR, rollups, stats } from '@cordon/core';
import { createChangeFeed, type DatabaseHandle } from '@cordon/db';
import { sql } from 'kysely';
import { openBenchDatabase } from './support/database.ts';

const MSP_MODE = process.argv[2] === 'msp';
const ARGS = MSP_MODE ? process.argv.slice(3) : process.argv.slice(2);
const CUSTOMERS = Number(ARGS[0] ?? (MSP_MODE ? 100 : 1));
const DOMAINS = Number(ARGS[1] ?? 1500);
const DAY = 86_400_000;
const QUERIES = 10_000_000;
const HOURS = 30 * 24;
const HOUR = 3_600_000;

/** Splits `total` over `n` keys with a Zipf-like skew (key i gets ∝ 1/(i+1)). */
function zipf(total: number, n: number): number[] {
  let h = 0;
  for (let i = 0; i < n; i++) h += 1 / (i + 1);
  const out = Array.from({ length: n }, (_, i) => Math.floor(total / (i + 1) / h));
  out[0]! += total - out.reduce((a, b) => a + b, 0);
  return out;
}

async function generate(handle: DatabaseHandle, customerId: number, now: number): Promise<number> {
  const first = now - (now % HOUR) - (HOURS - 1) * HOUR;
  let written = 0;
  const perHour = QUERIES / HOURS;
  for (let hi = 0; hi < HOURS; hi++) {
    const hour = first + hi * HOUR;
    const local = new Date(hour).getUTCHours();
    const requests = Math.round(perHour * (0.4 + 1.2 * Math.sin((Math.PI * local) / 24) ** 2));
    const blocked = Math.round(requests * 0.1);
    const allowed = requests - blocked;
    const top: Array<[string, string, string, number]> = [];
    const add = (dim: string, action: string, counts: number[], key: (i: number) => string) => {
      counts.forEach((c, i) => {
        if (c > 0) top.push([dim, action, key(i), c]);
      });
    };
    add('domain', 'allowed', zipf(allowed, DOMAINS), (i) => `site${i}.example${i % 40}.com`);
    add('domain', 'blocked', zipf(blocked, Math.ceil(DOMAINS / 10)), (i) => `ads${i}.tracker${i % 20}.net`);
    add('sourceip', 'allowed', zipf(allowed, 100), (i) => `10.${customerId % 250}.0.${i}`);
    add('sourceip', 'blocked', zipf(blocked, 100), (i) => `10.${customerId % 250}.0.${i}`);
    // The users top list's dimension (migration 0029): clients without a device or user are their address.
    add('user', 'allowed', zipf(allowed, 100), (i) => `ip:10.${customerId % 250}.0.${i}`);
    add('user', 'blocked', zipf(blocked, 100), (i) => `ip:10.${customerId % 250}.0.${i}`);
    add('category', 'allowed', zipf(allowed, 20), (i) => String(13 + i));
    add('category', 'blocked', zipf(blocked, 5), (i) => String(1 + i));
    top.push(['policy', 'allowed', '1', allowed], ['policy', 'blocked', '1', blocked]);
    await handle.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('stats_hourly')
        .values({ customer_id: customerId, location_id: 1, hour, requests, allowed, blocked, bypassed: 0 })
        .execute();
      for (let i = 0; i < top.length; i += 500) {
        await trx
          .insertInto('stats_hourly_top')
          .values(
            top.slice(i, i + 500).map(([dim, action, key, count]) => ({
              customer_id: customerId,
              location_id: 1,
              hour,
              dim,
              action,
              key,
              count,
            })),
          )
          .execute();
      }
    });
    written += top.length + 1;
  }
  return written;
}

/** The queries of hour `hour` (a day/night swing around 10,000,000 / 720 an hour) and the blocked share (10%). */
function hourCounts(hour: number): { requests: number; blocked: number; allowed: number } {
  const local = new Date(hour).getUTCHours();
  const requests = Math.round((QUERIES / HOURS) * (0.4 + 1.2 * Math.sin((Math.PI * local) / 24) ** 2));
  const blocked = Math.round(requests * 0.1);
  return { requests, blocked, allowed: requests - blocked };
}

/**
 * The `(dim, action, key, count)` rows of customer `c` (its index) for `allowed`/`blocked` queries
 * (an hour's, or a day's): two thirds of its qnames from the pool all customers share, one third its own.
 */
function customerTop(c: number, allowed: number, blocked: number): Array<[string, string, string, number]> {
  const shared = Math.floor((DOMAINS * 2) / 3);
  const blockedN = Math.ceil(DOMAINS / 10);
  const sharedBlocked = Math.floor((blockedN * 2) / 3);
  const top: Array<[string, string, string, number]> = [];
  const add = (dim: string, action: string, counts: number[], key: (i: number) => string) => {
    counts.forEach((n, i) => {
      if (n > 0) top.push([dim, action, key(i), n]);
    });
  };
  add('domain', 'allowed', zipf(allowed, DOMAINS), (i) =>
    i < shared ? `site${i}.example${i % 40}.com` : `c${c}-site${i}.example${i % 40}.org`,
  );
  add('domain', 'blocked', zipf(blocked, blockedN), (i) =>
    i < sharedBlocked ? `ads${i}.tracker${i % 20}.net` : `c${c}-ads${i}.tracker${i % 20}.net`,
  );
  add('sourceip', 'allowed', zipf(allowed, 100), (i) => `10.${c % 250}.${c >> 8}.${i}`);
  add('sourceip', 'blocked', zipf(blocked, 100), (i) => `10.${c % 250}.${c >> 8}.${i}`);
  add('user', 'allowed', zipf(allowed, 100), (i) => `ip:10.${c % 250}.${c >> 8}.${i}`);
  add('user', 'blocked', zipf(blocked, 100), (i) => `ip:10.${c % 250}.${c >> 8}.${i}`);
  add('category', 'allowed', zipf(allowed, 20), (i) => String(13 + i));
  add('category', 'blocked', zipf(blocked, 5), (i) => String(1 + i));
  top.push(['policy', 'allowed', '1', allowed], ['policy', 'blocked', '1', blocked]);
  return top;
}

/** Inserts `rows` into `table` in statements of 1,000 rows. */
async function insertRows(
  db: DatabaseHandle['db'],
  table: 'stats_hourly' | 'stats_hourly_top' | 'stats_hourly_msp_top' | 'stats_daily_msp_top',
  rows: Record<string, unknown>[],
): Promise<void> {
  for (let i = 0; i < rows.length; i += 1000) {
    await db
      .insertInto(table)
      .values(rows.slice(i, i + 1000) as never)
      .execute();
  }
}

/**
 * The roll-ups of MSP `mspId`'s customers `ids` as they stand at `now` (23:30 UTC) after each
 * logged 10,000,000 queries over 30 days; see the header. Returns the rows written per table.
 */
async function generateMsp(handle: DatabaseHandle, mspId: number, ids: number[], now: number) {
  const today = now - (now % DAY);
  const first = today - 29 * DAY;
  const written = { stats_hourly: 0, stats_hourly_top: 0, stats_hourly_msp_top: 0, stats_daily_msp_top: 0 };
  // stats_hourly: every hour of the 30 days, every customer.
  for (let ci = 0; ci < ids.length; ci++) {
    const rows: Record<string, unknown>[] = [];
    for (let hour = first; hour < today + DAY; hour += HOUR) {
      const { requests, allowed, blocked } = hourCounts(hour);
      rows.push({ customer_id: ids[ci], location_id: 1, hour, requests, allowed, blocked, bypassed: 0 });
    }
    await handle.db.transaction().execute((trx) => insertRows(trx, 'stats_hourly', rows));
    written.stats_hourly += rows.length;
  }
  // stats_hourly_top: today's 24 hours, every customer (one transaction per customer).
  for (let ci = 0; ci < ids.length; ci++) {
    const rows: Record<string, unknown>[] = [];
    for (let hour = today; hour < today + DAY; hour += HOUR) {
      const { allowed, blocked } = hourCounts(hour);
      for (const [dim, action, key, count] of customerTop(ci, allowed, blocked)) {
        rows.push({ customer_id: ids[ci], location_id: 1, hour, dim, action, key, count });
      }
    }
    await handle.db.transaction().execute((trx) => insertRows(trx, 'stats_hourly_top', rows));
    written.stats_hourly_top += rows.length;
  }
  // stats_hourly_msp_top: today's 24 hours summed over the customers, as the writer adds them.
  for (let hour = today; hour < today + DAY; hour += HOUR) {
    const { allowed, blocked } = hourCounts(hour);
    const sums = new Map<string, number>();
    for (let ci = 0; ci < ids.length; ci++) {
      for (const [dim, action, key, count] of customerTop(ci, allowed, blocked)) {
        const k = `${dim}\u0000${action}\u0000${key}`;
        sums.set(k, (sums.get(k) ?? 0) + count);
      }
    }
    const rows = [...sums].map(([k, count]) => {
      const [dim, action, key] = k.split('\u0000');
      return { msp_id: mspId, hour, dim, action, key, count };
    });
    await handle.db.transaction().execute((trx) => insertRows(trx, 'stats_hourly_msp_top', rows));
    written.stats_hourly_msp_top += rows.length;
  }
  // The 29 ended days: the per-MSP daily sums, as the worker's compaction would have written them.
  for (let day = first; day < today; day += DAY) {
    let allowed = 0;
    let blocked = 0;
    for (let hour = day; hour < day + DAY; hour += HOUR) {
      const h = hourCounts(hour);
      allowed += h.allowed;
      blocked += h.blocked;
    }
    const sums = new Map<string, number>();
    for (let ci = 0; ci < ids.length; ci++) {
      for (const [dim, action, key, count] of customerTop(ci, allowed, blocked)) {
        const k = `${dim}\u0000${action}\u0000${key}`;
        sums.set(k, (sums.get(k) ?? 0) + count);
      }
    }
    const rows = [...sums].map(([k, count]) => {
      const [dim, action, key] = k.split('\u0000');
      return { msp_id: mspId, day, dim, action, key, count };
    });
    await handle.db.transaction().execute(async (trx) => {
      await insertRows(trx, 'stats_daily_msp_top', rows);
      await trx.insertInto('stats_daily_done').values({ day, done_at: now }).execute();
    });
    written.stats_daily_msp_top += rows.length;
  }
  return written;
}

async function median(fn: () => Promise<unknown>): Promise<number> {
  const t: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    await fn();
    t.push(performance.now() - t0);
  }
  return t.sort((a, b) => a - b)[2]!;
}

const { handle, drop } = await openBenchDatabase('dashboard', 4);
try {
  const changes = createChangeFeed(handle);
  // The MSP case is measured at 23:30 UTC of today: every hour of "today" is an hourly one.
  const now = MSP_MODE ? Date.now() - (Date.now() % DAY) + 23.5 * HOUR : Date.now();
  const deps = { handle, changes, now: () => now };
  const msp = await msps.createMsp(deps, OPERATOR, { name: 'Bench MSP', company_name: 'Bench Ltd' } as never);
  const ids: number[] = [];
  let rows = 0;
  const g0 = performance.now();
  for (let i = 0; i < CUSTOMERS; i++) {
    const c = await customers.createCustomer(deps, OPERATOR, { accountName: `Bench ${i}`, msp_id: msp.id } as never);
    ids.push(c.id);
    if (!MSP_MODE) rows += await generate(handle, c.id, now);
  }
  if (MSP_MODE) {
    const written = await generateMsp(handle, msp.id, ids, now);
    console.log(
      `${handle.dialect}: MSP with ${CUSTOMERS} customers × 10M queries / 30 days, ${DOMAINS} qnames/hour → ${JSON.stringify(written)} in ${((performance.now() - g0) / 1000).toFixed(1)} s`,
    );
  } else
    console.log(
      `${handle.dialect}: ${CUSTOMERS} customer(s) × 10M queries / 30 days, ${DOMAINS} qnames/hour → ${rows} roll-up rows in ${((performance.now() - g0) / 1000).toFixed(1)} s`,
    );
  if (!MSP_MODE) {
    // The worker's `stats.daily` job: every ended UTC day compacted into stats_daily_top.
    const c0 = performance.now();
    const days = await rollups.compactDays(deps, 40);
    const daily = await handle.db
      .selectFrom('stats_daily_top')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    console.log(
      `compacted ${days.length} days into ${daily.n} daily rows in ${((performance.now() - c0) / 1000).toFixed(1)} s`,
    );
  }
  if (MSP_MODE && !process.env.CORDON_BENCH_NO_SUMMARY) {
    // The worker's `stats.daily` job: the 29 compacted days and today's ended hours (00–22 h at 23:30)
    // summarized per MSP (migration 0034).
    const s0 = performance.now();
    const periods = await rollups.summarizeMspPeriods(deps, 1000);
    const counts = await Promise.all(
      (['stats_msp_rank', 'stats_msp_summary'] as const).map((t) =>
        handle.db
          .selectFrom(t)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow(),
      ),
    );
    console.log(
      `summarized ${periods.filter((p) => p.hours === 24).length} days and ${periods.filter((p) => p.hours === 1).length} hours per MSP (${counts[0]!.n} rank rows, ${counts[1]!.n} sketches) in ${((performance.now() - s0) / 1000).toFixed(1)} s`,
    );
  }
  if (handle.dialect === 'postgres') await sql`analyze`.execute(handle.db);
  const owners = MSP_MODE
    ? [
        { label: `MSP (${CUSTOMERS} customers)`, owner: { kind: 'msp', id: msp.id } as const },
        { label: 'system', owner: { kind: 'system' } as const },
      ]
    : [
        { label: `customer ${ids[0]}`, owner: { kind: 'customer', id: ids[0]! } as const },
        { label: `MSP (${CUSTOMERS} customers)`, owner: { kind: 'msp', id: msp.id } as const },
      ];
  for (const { label, owner } of owners) {
    for (const period of ['today', '7days', '30days']) {
      const calls: Record<string, () => Promise<unknown>> = {
        overview: () => stats.overview(deps, OPERATOR, owner, period),
        traffic: () => stats.traffic(deps, OPERATOR, owner, period),
        history5: () => stats.history(deps, OPERATOR, owner, 5),
      };
      for (const dim of ['categories', 'domains', 'users'] as const) {
        for (const action of ['allowed', 'blocked'] as const) {
          calls[`${dim}/${action}`] = () => stats.topList(deps, OPERATOR, owner, dim, action, period);
        }
      }
      const parts: string[] = [];
      let total = 0;
      for (const [name, fn] of Object.entries(calls)) {
        const ms = await median(fn);
        total += ms;
        parts.push(`${name} ${ms.toFixed(0)}`);
      }
      console.log(`${handle.dialect} ${label} ${period}: all 9 = ${total.toFixed(0)} ms | ${parts.join(', ')} (ms)`);
    }
  }
  await changes.close();
} finally {
  await drop();
}
