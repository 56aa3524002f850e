/**
 * Query-log ingest (docs/architecture.md "Statistics"): rows per second through the writers' insert
 * path (`insertQueryLogBatch`: raw rows per batch of 1,000, roll-ups gathered in a `RollupBuffer`),
 * through `insertQueryLogRows` (raw + roll-ups per batch, one transaction) and the raw insert alone
 * (`insertQueryLogRaw`: SQLite prepared multi-row statements, PostgreSQL COPY), on SQLite and
 * PostgreSQL.
 *
 *   node --import tsx bench/ingest.ts [rows=300000]                                   (SQLite file in /tmp)
 *   CORDON_BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node --import tsx bench/ingest.ts
 *   CORDON_BENCH_WRITER_ONLY=1 …                  (without the slow per-batch transaction variant)
 *
 * The rows mimic a busy hour of 20 customers of 2 MSPs (seeded, so the per-MSP roll-ups of migration
 * 0033 are written too): 5,000 qnames with a Zipf-like skew, 10% blocked with a category, 200 client
 * addresses per customer, 4 locations, a third of the queries from devices (half of those with an
 * internal user and group: migration 0029). Also times the writers' path with the former roll-up
 * window (1 s / 50,000 rows) and the raw INSERT alone (no roll-ups) for comparison. Each line gives the
 * rows per second and the CPU time of this process per row: the writer thread's share (SQLite's work
 * included, PostgreSQL server's not). Numbers go in bench/README.md, never in tests.
 */
import type { DatabaseHandle } from '@cordon/db';
import { RollupBuffer } from '../apps/resolver/src/querylog/rollup.ts';
import {
  flushRollups,
  insertQueryLogBatch,
  insertQueryLogRaw,
  insertQueryLogRows,
  type QueryLogRow,
} from '../apps/resolver/src/querylog/writer.ts';
import { openBenchDatabase } from './support/database.ts';

const ROWS = Number(process.argv[2] ?? 300_000);
const BATCH = Number(process.env.CORDON_BENCH_BATCH ?? 1_000);
/** `CORDON_BENCH_WRITER_ONLY=1`: leave out the slow per-batch transaction variant (`insertQueryLogRows`). */
const WRITER_ONLY = Boolean(process.env.CORDON_BENCH_WRITER_ONLY);

function makeRows(n: number, start: number): QueryLogRow[] {
  const rows: QueryLogRow[] = new Array(n);
  let seed = 42;
  const rnd = () => {
    seed = (seed * 1_103_515_245 + 12_345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
  for (let i = 0; i < n; i++) {
    const customer = 1 + Math.floor(rnd() * 20);
    const domain = Math.floor(5_000 ** rnd()); // Zipf-like: small ids far more often
    const blocked = rnd() < 0.1;
    rows[i] = {
      ts: start + Math.floor((i / n) * 3_600_000),
      customer_id: customer,
      location_id: customer * 10 + Math.floor(rnd() * 4),
      policy_id: customer * 100,
      client_ip: `10.${customer}.${Math.floor(rnd() * 2)}.${Math.floor(rnd() * 100)}`,
      qname: `host${domain}.example${domain % 50}.com`,
      qtype: 'A',
      protocol: 'udp',
      action: blocked ? 'blocked' : 'allowed',
      reason: blocked ? 'category' : 'default',
      categories: blocked ? String(1 + (domain % 50)) : domain % 3 === 0 ? '13' : '',
      rcode: blocked ? 'NXDOMAIN' : 'NOERROR',
      answer_source: 'upstream',
      latency_us: 200,
      // A third of the queries from agents' devices (500 per customer), half of those with a user and group.
      device_id: i % 3 === 0 ? customer * 1000 + (domain % 500) : null,
      user_id: i % 6 === 0 ? customer * 1000 + (domain % 200) : null,
      user_name: i % 6 === 0 ? `user${domain % 200}` : '',
      group_id: i % 6 === 0 ? customer * 10 + (domain % 5) : null,
    };
  }
  return rows;
}

async function timed(
  label: string,
  handle: DatabaseHandle,
  rows: QueryLogRow[],
  write: (b: QueryLogRow[]) => Promise<void>,
  end: () => Promise<void> = async () => undefined,
) {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < rows.length; i += BATCH) await write(rows.slice(i, i + BATCH));
  await end();
  const s = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(c0);
  const top = await handle.db
    .selectFrom('stats_hourly_top')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  const us = (cpu.user + cpu.system) / rows.length;
  console.log(
    `${handle.dialect} ${label}: ${rows.length} rows in ${s.toFixed(2)} s = ${Math.round(rows.length / s)} rows/s, ` +
      `CPU ${us.toFixed(1)} µs/row (stats_hourly_top rows: ${top.n})`,
  );
}

const start = Date.UTC(2026, 10, 22, 10);
const { handle, drop } = await openBenchDatabase('ingest', 2);
try {
  const now = new Date().toISOString();
  for (const msp of [1, 2])
    await handle.db
      .insertInto('msps')
      .values({
        id: msp,
        name: `msp${msp}`,
        company_name: `MSP ${msp}`,
        license: '',
        timezone: 'UTC',
        created_at: now,
        updated_at: now,
      })
      .execute();
  for (let c = 1; c <= 20; c++)
    await handle.db
      .insertInto('customers')
      .values({
        id: c,
        msp_id: c <= 10 ? 1 : 2,
        account_name: `c${c}`,
        uuid_str: `bench-${c}`,
        timezone: 'UTC',
        created_at: now,
        updated_at: now,
      })
      .execute();
  // The writers' path: raw rows per batch, roll-ups gathered in a RollupBuffer with its defaults.
  const buffer = new RollupBuffer();
  await timed(
    'writer path (raw per batch + buffered roll-ups)',
    handle,
    makeRows(ROWS, start),
    (b) => insertQueryLogBatch(handle, b, buffer),
    () => flushRollups(handle, buffer),
  );
  // The same with the former window: roll-ups upserted every 50,000 rows or 1 s.
  const short = new RollupBuffer(50_000, 1_000, Number.POSITIVE_INFINITY);
  await timed(
    'writer path, 1 s / 50,000-row roll-up window',
    handle,
    makeRows(ROWS, start + 3_600_000 * 5),
    (b) => insertQueryLogBatch(handle, b, short),
    () => flushRollups(handle, short),
  );
  // Raw rows and their roll-ups in one transaction per batch (insertQueryLogRows; tests use it).
  if (!WRITER_ONLY)
    await timed('raw + roll-ups per batch', handle, makeRows(ROWS, start + 7_200_000), (b) =>
      insertQueryLogRows(handle, b),
    );
  const raw = makeRows(ROWS, start + 3_600_000 * 3);
  await timed('raw INSERT only', handle, raw, (b) => insertQueryLogRaw(handle, b));
} finally {
  await drop();
}
