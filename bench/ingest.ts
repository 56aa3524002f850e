/**
 * Query-log ingest (docs/architecture.md "Statistics"): rows per second through the writers' raw
 * insert (`insertQueryLogRaw`: SQLite prepared multi-row statements, PostgreSQL COPY under the write
 * lock), and through the worker's fold of those rows into the roll-ups (`rollups.foldQueryLog`,
 * transactions of 10,000 rows), on SQLite and PostgreSQL.
 *
 *   node --import tsx bench/ingest.ts [rows=300000]                                   (SQLite file in /tmp)
 *   CORDON_BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node --import tsx bench/ingest.ts
 *
 * Two row mixes: "skewed" mimics a busy hour of 20 customers of 2 MSPs (seeded, so the per-MSP
 * roll-ups of migration 0033 are written too): 5,000 qnames with a Zipf-like skew, 10% blocked with a
 * category, 200 client addresses per customer, 4 locations, a third of the queries from devices (half
 * of those with an internal user and group: migration 0029); "distinct" gives every row a qname of
 * its own (the fold's worst case: no key repeats, as in the peer benchmark's blocked mixes). Each line
 * gives the rows per second and the CPU time of this process per row (SQLite's work included,
 * PostgreSQL server's not), and after each mix's raw insert the bytes a stored row takes: the table's
 * and each index's pages as the engine reports them (SQLite's `dbstat` table; PostgreSQL's
 * `pg_relation_size` over the partitions, TOAST included), the growth over that mix's rows. Numbers go
 * in bench/README.md, never in tests.
 */
import { rollups } from '@cordon/core';
import type { DatabaseHandle } from '@cordon/db';
import { sql } from 'kysely';
import { insertQueryLogRaw, type QueryLogRow } from '../apps/resolver/src/querylog/writer.ts';
import { openBenchDatabase } from './support/database.ts';
import { postgresCpuMs, postgresCpuSpent } from './support/postgres-cpu.ts';

const ROWS = Number(process.argv[2] ?? 300_000);
const BATCH = Number(process.env.CORDON_BENCH_BATCH ?? 1_000);

function makeRows(n: number, start: number, distinct = false): QueryLogRow[] {
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
      qname: distinct ? `d${i}.host${domain}.example${domain % 50}.com` : `host${domain}.example${domain % 50}.com`,
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
      // A tenth of the blocks decided on a name of the answer's alias chain (issue 24), else empty.
      matched_name: blocked && domain % 10 === 0 ? `edge${domain % 100}.cdn.example.net` : '',
    };
  }
  return rows;
}

/**
 * Runs `work`; prints rows/s, this process's CPU per row and, on a local PostgreSQL, the server's
 * (every `postgres` process: backends, WAL writer, checkpointer).
 */
async function timed(label: string, handle: DatabaseHandle, rows: number, work: () => Promise<void>) {
  const pg0 = handle.dialect === 'postgres' ? postgresCpuMs() : undefined;
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  await work();
  const s = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(c0);
  const us = (cpu.user + cpu.system) / rows;
  const pg1 = pg0 && postgresCpuMs();
  const server = pg0 && pg1 ? `, PostgreSQL CPU ${((postgresCpuSpent(pg0, pg1) * 1000) / rows).toFixed(1)} µs/row` : '';
  console.log(
    `${handle.dialect} ${label}: ${rows} rows in ${s.toFixed(2)} s = ${Math.round(rows / s)} rows/s, ` +
      `CPU ${us.toFixed(1)} µs/row${server}`,
  );
}

/**
 * Bytes on disk of the query log's table and of each of its indexes, by name ('table' for the rows):
 * SQLite's pages from `dbstat` (every page of the b-tree, free space in it included); PostgreSQL's
 * from `pg_relation_size` of every partition (main fork, TOAST and its index with the table), the
 * partitions' indexes summed under the partitioned index's name.
 */
async function storedBytes(handle: DatabaseHandle): Promise<Map<string, number>> {
  const bytes = new Map<string, number>();
  if (handle.dialect === 'sqlite') {
    const rows = handle
      .sqlite!.prepare(
        `select case when m.type = 'table' then 'table' else m.name end as what, sum(d.pgsize) as n
           from dbstat d join sqlite_master m on m.name = d.name
          where m.tbl_name = 'query_log' group by 1`,
      )
      .all() as Array<{ what: string; n: number }>;
    for (const r of rows) bytes.set(r.what, r.n);
    return bytes;
  }
  const { rows } = await sql<{ what: string; n: string }>`
    select 'table' as what, coalesce(sum(pg_table_size(i.inhrelid)), 0) as n
      from pg_inherits i where i.inhparent = 'query_log'::regclass
    union all
    select pi.relname, coalesce(sum(pg_relation_size(ci.inhrelid)), 0)
      from pg_index x join pg_class pi on pi.oid = x.indexrelid
      left join pg_inherits ci on ci.inhparent = x.indexrelid
     where x.indrelid = 'query_log'::regclass group by pi.relname`.execute(handle.db);
  for (const r of rows) bytes.set(r.what, Number(r.n));
  return bytes;
}

/** Prints the bytes a row of the last `rows` took: the growth of {@link storedBytes} since `before`. */
function printStoredBytes(
  label: string,
  handle: DatabaseHandle,
  before: Map<string, number>,
  after: Map<string, number>,
  rows: number,
) {
  const parts = [...after].map(([what, n]) => ({ what, perRow: (n - (before.get(what) ?? 0)) / rows }));
  const all = parts.reduce((sum, p) => sum + p.perRow, 0);
  const each = parts.map((p) => `${p.what} ${p.perRow.toFixed(1)}`).join(', ');
  console.log(`${handle.dialect} ${label}: ${all.toFixed(1)} bytes a stored row (${each})`);
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
  for (const [mix, distinct, hourShift] of [
    ['skewed', false, 0],
    ['distinct', true, 2],
  ] as const) {
    const rows = makeRows(ROWS, start + hourShift * 3_600_000, distinct);
    const before = await storedBytes(handle);
    await timed(`${mix}: raw insert (the writers)`, handle, rows.length, async () => {
      for (let i = 0; i < rows.length; i += BATCH) await insertQueryLogRaw(handle, rows.slice(i, i + BATCH));
    });
    printStoredBytes(`${mix}: stored`, handle, before, await storedBytes(handle), rows.length);
    await timed(`${mix}: fold into the roll-ups (the worker)`, handle, rows.length, async () => {
      const folded = await rollups.foldQueryLogAll(handle);
      if (folded !== rows.length) throw new Error(`folded ${folded} rows of ${rows.length}`);
    });
  }
} finally {
  await drop();
}
