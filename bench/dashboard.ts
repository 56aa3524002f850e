/**
 * Dashboard calls over a month of traffic (docs/architecture.md "Statistics", "Budgets"): the nine
 * calls of one dashboard (overview, hourly traffic, 5-day history, six top lists) for a customer and
 * for its MSP, for `today`, `7days` and `30days`, timed through core (the API adds routing and JSON
 * only).
 *
 *   node --import tsx bench/dashboard.ts [customers=1] [domainsPerHour=1500]
 *   CORDON_BENCH_DATABASE_URL=postgres://… node --import tsx bench/dashboard.ts 1 1500
 *
 * The roll-ups are generated directly as the writer would have left them after each customer
 * logged 10,000,000 queries over the last 30 days (13,889 an hour with a day/night swing, 10%
 * blocked, `domainsPerHour` distinct qnames an hour with a Zipf-like skew, 100 client addresses,
 * 25 categories, 2 policies): dashboards never read raw rows, so none are written. The worker's
 * daily compaction (`rollups.compactDays`) then runs as it would have. Medians of 5 runs. Numbers go in bench/README.md, never in tests.
 */
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { customers, msps, OPERATOR, rollups, stats } from '@cordon/core';
import { createChangeFeed, type DatabaseHandle, migrateToLatest, openDatabase } from '@cordon/db';
import { sql } from 'kysely';

const CUSTOMERS = Number(process.argv[2] ?? 1);
const DOMAINS = Number(process.argv[3] ?? 1500);
const QUERIES = 10_000_000;
const HOURS = 30 * 24;
const HOUR = 3_600_000;

async function open(): Promise<{ handle: DatabaseHandle; drop: () => Promise<void> }> {
  const url = process.env.CORDON_BENCH_DATABASE_URL;
  if (url) {
    const schema = `cordon_bench_${randomBytes(4).toString('hex')}`;
    const admin = openDatabase({ url, pgPoolSize: 1 });
    await sql`create schema ${sql.id(schema)}`.execute(admin.db);
    const handle = openDatabase({ url, pgSchema: schema, pgPoolSize: 4 });
    await migrateToLatest(handle);
    return {
      handle,
      drop: async () => {
        await handle.close();
        await sql`drop schema ${sql.id(schema)} cascade`.execute(admin.db);
        await admin.close();
      },
    };
  }
  const file = `/tmp/cordon-bench-dashboard-${process.pid}.db`;
  const handle = openDatabase({ sqlitePath: file });
  await migrateToLatest(handle);
  return {
    handle,
    drop: async () => {
      await handle.close();
      for (const f of [file, `${file}-wal`, `${file}-shm`]) rmSync(f, { force: true });
    },
  };
}

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

async function median(fn: () => Promise<unknown>): Promise<number> {
  const t: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    await fn();
    t.push(performance.now() - t0);
  }
  return t.sort((a, b) => a - b)[2]!;
}

const { handle, drop } = await open();
try {
  const changes = createChangeFeed(handle);
  const now = Date.now();
  const deps = { handle, changes, now: () => now };
  const msp = await msps.createMsp(deps, OPERATOR, { name: 'Bench MSP', company_name: 'Bench Ltd' } as never);
  const ids: number[] = [];
  let rows = 0;
  const g0 = performance.now();
  for (let i = 0; i < CUSTOMERS; i++) {
    const c = await customers.createCustomer(deps, OPERATOR, { accountName: `Bench ${i}`, msp_id: msp.id } as never);
    ids.push(c.id);
    rows += await generate(handle, c.id, now);
  }
  console.log(
    `${handle.dialect}: ${CUSTOMERS} customer(s) × 10M queries / 30 days, ${DOMAINS} qnames/hour → ${rows} roll-up rows in ${((performance.now() - g0) / 1000).toFixed(1)} s`,
  );
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
  if (handle.dialect === 'postgres') await sql`analyze`.execute(handle.db);
  const owners = [
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
