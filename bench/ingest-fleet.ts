/**
 * A fleet's query log into one PostgreSQL (issue 28, docs/operations.md "Query log at fleet scale"):
 * `writers` simulated resolvers, each a process of its own with the resolver's query-log sink
 * (`QueryLogWorkerWriter`: rows pushed on the "resolving" thread, batched, posted to the writer
 * thread, which COPYs them on its own connection — the path `cordon serve --roles resolver` takes),
 * all writing at once, while this process runs the worker's fold (`rollups.startQueryLogFolder`, the
 * loop `cordon serve --roles worker` runs) into the roll-ups.
 *
 *   node --import tsx bench/ingest-fleet.ts [writers=4] [seconds=20] [peak-rows/s=35000]
 *   CORDON_BENCH_DATABASE_URL=postgres://… (default postgres://postgres@127.0.0.1:5432/test; a schema
 *   of its own, dropped at the end)
 *
 * Two phases of `seconds` each:
 * - "saturating": every writer pushes as fast as its sink acknowledges (at most `maxBuffer` rows
 *   unacknowledged, so nothing is dropped): the rows per second one PostgreSQL absorbs;
 * - "peak": the writers together offer `peak-rows/s` (the 10⁹ queries a day fleet's peak, 35,000/s;
 *   its average is 11,600/s), each a quarter, paced every 10 ms: do they keep up without a drop.
 * For each: rows/s end to end (pushed → acknowledged by the writer thread, until `close()`), per writer,
 * drops, and the fold: rows folded per second during the phase, the backlog (logged, not folded) when
 * the writers stop, and how long the fold then takes to catch up. Rows are the skewed mix of
 * bench/ingest.ts (20 customers of 2 MSPs, 5,000 qnames Zipf-like, 10 % blocked). The machine's load
 * average is printed beside each figure: the writers, PostgreSQL and the fold share its cores.
 * Numbers go in bench/README.md, never in tests.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { loadavg } from 'node:os';
import { rollups } from '@cordon/core';
import type { QueryLogRow } from '@cordon/db';
import { sql } from 'kysely';
import pino from 'pino';
import { QueryLogWorkerWriter } from '../apps/resolver/src/querylog/threaded.ts';
import { openBenchDatabase } from './support/database.ts';

/** What the parent tells a writer process, and what it answers. */
interface WriterJob {
  url: string;
  schema: string;
  index: number;
  seconds: number;
  /** Rows per second to offer; 0: as fast as the sink acknowledges. */
  rate: number;
  start: number;
}
interface WriterResult {
  index: number;
  pushed: number;
  /** Rows the writer thread acknowledged (committed) within the phase's `seconds`. */
  inWindow: number;
  written: number;
  dropped: number;
  failedBatches: number;
  /** Pushing ended → `close()` resolved (the rows still unacknowledged written), seconds. */
  drainSeconds: number;
  /** This process's CPU (both threads) over the phase, µs per row acknowledged in it. */
  cpuUsPerRow: number;
}

const MAX_BUFFER = 50_000; // the resolver's default QueryLogOptions.maxBuffer

/** `n` rows of the skewed mix (bench/ingest.ts), seeded by `seed`, stamped from `start` over an hour. */
function makeRows(n: number, start: number, seed: number): QueryLogRow[] {
  const rows: QueryLogRow[] = new Array(n);
  let s = seed;
  const rnd = () => {
    s = (s * 1_103_515_245 + 12_345) & 0x7fffffff;
    return s / 0x7fffffff;
  };
  for (let i = 0; i < n; i++) {
    const customer = 1 + Math.floor(rnd() * 20);
    const domain = Math.floor(5_000 ** rnd());
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
      device_id: i % 3 === 0 ? customer * 1000 + (domain % 500) : null,
      user_id: i % 6 === 0 ? customer * 1000 + (domain % 200) : null,
      user_name: i % 6 === 0 ? `user${domain % 200}` : '',
      group_id: i % 6 === 0 ? customer * 10 + (domain % 5) : null,
      matched_name: blocked && domain % 10 === 0 ? `edge${domain % 100}.cdn.example.net` : '',
    };
  }
  return rows;
}

/** A writer process: the resolver's sink, fed for `job.seconds`, then closed; posts a {@link WriterResult}. */
async function runWriter(job: WriterJob): Promise<void> {
  const logger = pino({ level: 'warn' });
  const sink = new QueryLogWorkerWriter({ url: job.url, pgSchema: job.schema }, logger, {
    maxBuffer: MAX_BUFFER,
    spoolDir: null,
    // Normal priority: this process only writes (a resolver's writer waits for a free core beside answering).
    idleWriter: false,
  });
  const rows = makeRows(100_000, job.start, 42 + job.index * 7919);
  // Every writer starts pushing at once, when the parent says so (process starts take seconds under
  // load), its writer thread started and connected: one row written first.
  sink.push(rows[rows.length - 1]!);
  await sink.flush();
  const before = sink.stats.written;
  await new Promise<void>((resolve) => {
    process.once('message', () => resolve());
    process.send?.('ready');
  });
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const end = t0 + job.seconds * 1000;
  let pushed = 0;
  const unacked = () => pushed + before - sink.stats.written - sink.stats.dropped;
  while (performance.now() < end) {
    if (job.rate > 0) {
      // Paced: the rows due by now, every 10 ms.
      const due = Math.floor(((performance.now() - t0) / 1000) * job.rate);
      while (pushed < due) sink.push(rows[pushed++ % rows.length]!);
      await new Promise((r) => setTimeout(r, 10));
    } else if (unacked() < MAX_BUFFER - 1_000) {
      // Saturating: keep the sink full, never past its bound (a drop would not be "absorbed").
      for (let i = 0; i < 1_000; i++) sink.push(rows[pushed++ % rows.length]!);
      if (pushed % 10_000 === 0) await new Promise((r) => setImmediate(r));
    } else {
      await new Promise((r) => setTimeout(r, 1));
    }
  }
  const inWindow = sink.stats.written - before;
  const cpu = process.cpuUsage(c0);
  const t1 = performance.now();
  await sink.close();
  const result: WriterResult = {
    index: job.index,
    pushed,
    inWindow,
    written: sink.stats.written,
    dropped: sink.stats.dropped,
    failedBatches: sink.stats.failedBatches,
    drainSeconds: (performance.now() - t1) / 1000,
    cpuUsPerRow: (cpu.user + cpu.system) / Math.max(1, inWindow),
  };
  // The IPC channel keeps this process alive: close it once the result is sent.
  process.send?.(result, () => process.disconnect());
}

/**
 * Starts `n` writer processes with `job`; once all are ready, calls `onGo` and tells them to push.
 * Resolves with their results. @throws when one fails
 */
function runFleet(n: number, job: Omit<WriterJob, 'index'>, onGo: () => void): Promise<WriterResult[]> {
  const children: ChildProcess[] = [];
  let ready = 0;
  return Promise.all(
    Array.from(
      { length: n },
      (_, index) =>
        new Promise<WriterResult>((resolve, reject) => {
          const child = fork(process.argv[1]!, ['--writer', JSON.stringify({ ...job, index })], {
            execArgv: process.execArgv,
          });
          children.push(child);
          let result: WriterResult | null = null;
          child.on('message', (m) => {
            if (m === 'ready') {
              if (++ready === n) {
                onGo();
                for (const c of children) c.send('go');
              }
            } else result = m as WriterResult;
          });
          child.on('error', reject);
          // 'close', not 'exit': the result message may be delivered after 'exit'.
          child.on('close', (code) =>
            result ? resolve(result) : reject(new Error(`writer ${index} exited with ${code} and no result`)),
          );
        }),
    ),
  );
}

const load = () => loadavg()[0]!.toFixed(2);
const int = (n: number) => Math.round(n).toLocaleString('en-US');

async function main(): Promise<void> {
  const writers = Number(process.argv[2] ?? 4);
  const seconds = Number(process.argv[3] ?? 20);
  const peak = Number(process.argv[4] ?? 35_000);
  process.env.CORDON_BENCH_DATABASE_URL ??= 'postgres://postgres@127.0.0.1:5432/test';
  const url = process.env.CORDON_BENCH_DATABASE_URL;
  const { handle, drop } = await openBenchDatabase('ingest-fleet', 2);
  try {
    const schema = (await sql<{ s: string }>`select current_schema() as s`.execute(handle.db)).rows[0]!.s;
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
    console.log(
      `${writers} writer processes into PostgreSQL (${url.replace(/\/\/[^@]*@/, '//')}, schema ${schema}), ` +
        `${seconds} s a phase; the fold in this process; load average ${load()}`,
    );
    const start = Date.UTC(2026, 10, 22, 10);
    for (const [phase, rate] of [
      ['saturating', 0],
      ['peak', peak],
    ] as const) {
      const folder = rollups.startQueryLogFolder(handle, { intervalMs: 1_000 });
      const folded0 = await foldedId(handle);
      // The fold's watermark and the log's last id when the pushing ends (the window), read on a timer.
      let foldedAtEnd = folded0;
      let logged = 0;
      let atEnd: Promise<void> = Promise.resolve();
      const results = await runFleet(writers, { url, schema, seconds, rate: rate / writers, start }, () => {
        atEnd = new Promise((resolve) =>
          setTimeout(async () => {
            [foldedAtEnd, logged] = await Promise.all([foldedId(handle), loggedId(handle)]);
            resolve();
          }, seconds * 1000),
        );
      });
      await atEnd;
      const wall = seconds;
      const loadEnd = load();
      const tc = performance.now();
      await folder.foldNow();
      // The backlog left when the writers stopped, folded to the end (the loop's pass may have stopped short).
      await rollups.foldQueryLogAll(handle);
      await folder.close();
      const catchUp = (performance.now() - tc) / 1000;
      const written = results.reduce((a, r) => a + r.inWindow, 0);
      const dropped = results.reduce((a, r) => a + r.dropped, 0);
      console.log(
        `\n${phase}${rate ? ` (offered ${int(rate)} rows/s)` : ''}: ${int(written)} rows committed in the ${wall} s window = ` +
          `**${int(written / wall)} rows/s** absorbed end to end, ${int(dropped)} dropped, ` +
          `${results.reduce((a, r) => a + r.failedBatches, 0)} failed batches; load average ${loadEnd}`,
      );
      for (const r of results.sort((a, b) => a.index - b.index))
        console.log(
          `  writer ${r.index + 1}: ${int(r.inWindow / wall)} rows/s (${int(r.pushed)} pushed, ${int(r.written)} written ` +
            `after a ${r.drainSeconds.toFixed(1)} s drain), ${r.dropped} dropped, its process's CPU ${r.cpuUsPerRow.toFixed(1)} µs/row`,
        );
      const foldedDuring = foldedAtEnd - folded0;
      console.log(
        `  fold (the worker): ${int(foldedDuring)} rows folded during the phase = ${int(foldedDuring / wall)} rows/s; ` +
          `backlog when the writers stopped ${int(logged - foldedAtEnd)} rows, folded in ${catchUp.toFixed(1)} s; ` +
          `${foldedDuring / wall >= (rate || written / wall) * 0.95 ? 'kept up' : 'did not keep up'}`,
      );
    }
  } finally {
    await drop();
  }
}

/** The fold's watermark: the last query_log id folded. */
async function foldedId(handle: Awaited<ReturnType<typeof openBenchDatabase>>['handle']): Promise<number> {
  const r = await sql<{ last_id: string | number }>`select last_id from query_log_fold where id = 1`.execute(handle.db);
  return Number(r.rows[0]?.last_id ?? 0);
}
/** The last query_log id written. */
async function loggedId(handle: Awaited<ReturnType<typeof openBenchDatabase>>['handle']): Promise<number> {
  const r = await sql<{ id: string | number | null }>`select max(id) as id from query_log`.execute(handle.db);
  return Number(r.rows[0]?.id ?? 0);
}

if (process.argv[2] === '--writer') await runWriter(JSON.parse(process.argv[3]!) as WriterJob);
else await main();
