/**
 * The query log's per-row cost on both of its threads, without sockets (issue 28, bench/README.md
 * "Resolver CPU per query"): the resolving thread's hand-off (`BatchBuilder.add` of each row, `take`
 * of each 1,000-row batch: querylog/batch.ts) and the writer thread's SQLite insert of those batches
 * (`insertQueryLogBatchesSqlite`, one transaction per batch, querylog/sqlite-raw.ts) into a fresh
 * migrated SQLite file in WAL mode, opened as the writer thread opens it.
 *
 *   node --import tsx bench/resolver-querylog-insert.ts [batches=300] [rounds=5]
 *
 * Rows are the peer benchmark's (bench/peers/run.sh): one customer and location, client 127.0.0.1,
 * a distinct qname each, blocked by category. Prints CPU µs per row (`process.cpuUsage()`, this
 * thread only does the work), the minimum over `rounds` rounds, each on a fresh file.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrateToLatest, openDatabase } from '@cordon/db';
import { DATA_PLANE_SQLITE_CACHE_KIB, openSqliteFile } from '@cordon/db/sqlite-file';
import { BatchBuilder } from '../apps/resolver/src/querylog/batch.ts';
import { insertQueryLogBatchesSqlite } from '../apps/resolver/src/querylog/sqlite-raw.ts';
import type { QueryLogRow } from '../apps/resolver/src/querylog/writer.ts';

const BATCHES = Number(process.argv[2] ?? 300);
const ROUNDS = Number(process.argv[3] ?? 5);
const PER_BATCH = 1000;

const row = (i: number): QueryLogRow => ({
  ts: 1_795_000_000_000 + i / 10,
  customer_id: 1,
  location_id: 1,
  policy_id: 1,
  client_ip: '127.0.0.1',
  qname: `r${i}.example${i % 977}.com`,
  qtype: 'A',
  protocol: 'udp',
  action: 'blocked',
  reason: 'category',
  categories: '12,31',
  rcode: 'NOERROR',
  answer_source: 'synthesized',
  latency_us: 35,
  device_id: null,
  user_id: null,
  user_name: '',
  group_id: null,
  matched_name: '',
});

const rows = Array.from({ length: PER_BATCH * BATCHES }, (_, i) => row(i));
const us = (u: NodeJS.CpuUsage) => u.user + u.system;
let bestHandoff = Number.POSITIVE_INFINITY;
let bestInsert = Number.POSITIVE_INFINITY;
for (let round = 0; round < ROUNDS; round++) {
  const dir = mkdtempSync(join(tmpdir(), 'cordon-qlog-insert-'));
  const file = join(dir, 'log.db');
  const handle = openDatabase({ sqlitePath: file });
  await migrateToLatest(handle);
  await handle.close();
  const lite = openSqliteFile(file, DATA_PLANE_SQLITE_CACHE_KIB);
  // The resolving thread's side: every row added, a batch taken per 1,000.
  const builder = new BatchBuilder(PER_BATCH);
  const messages = [];
  let t = process.cpuUsage();
  for (let i = 0; i < rows.length; i++) {
    builder.add(rows[i]!);
    if (builder.count === PER_BATCH) messages.push(builder.take());
  }
  const handoff = us(process.cpuUsage(t)) / rows.length;
  // The writer thread's side: one transaction per batch, as at a steady 10,000 QPS.
  t = process.cpuUsage();
  for (const m of messages) await insertQueryLogBatchesSqlite(lite, [m]);
  const insert = us(process.cpuUsage(t)) / rows.length;
  const written = (lite.prepare('select count(*) as n from query_log').get() as { n: number }).n;
  if (written !== rows.length) throw new Error(`${written} rows written of ${rows.length}`);
  lite.close();
  rmSync(dir, { recursive: true, force: true });
  bestHandoff = Math.min(bestHandoff, handoff);
  bestInsert = Math.min(bestInsert, insert);
  console.log(`round ${round + 1}: hand-off ${handoff.toFixed(3)} µs/row, insert ${insert.toFixed(3)} µs/row`);
}
console.log(
  `best of ${ROUNDS}: hand-off ${bestHandoff.toFixed(3)} µs/row, insert ${bestInsert.toFixed(3)} µs/row (${rows.length} rows, batches of ${PER_BATCH})`,
);
