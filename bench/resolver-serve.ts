/**
 * Starts a resolver for dnsperf runs (bench/resolver-dnsperf.sh): the UT1 bench database of
 * bench/resolver-category-load.ts plus one customer whose location is 127.0.0.1/32 with a policy
 * blocking every category; the upstream is the tests' fake authoritative server on loopback.
 *
 *   node --import tsx bench/resolver-serve.ts [sqlite-file] [port] [upstream-port]
 *
 * CORDON_BENCH_QUERYLOG=inline writes the query log on the resolving thread (the default is the
 * writer thread), for before/after comparisons. CORDON_BENCH_UDP_BACKEND=dgram|batch picks the UDP
 * path (default auto); CORDON_BENCH_THREADS=N (> 1) serves from N data-plane threads sharing the
 * port (`--resolver-threads`, dataplane/host.ts). On SIGTERM it prints the process's CPU time per
 * answered query (all threads), the figure to compare on a shared machine.
 */

import { getHeapSpaceStatistics } from 'node:v8';
import { addressClaimColumns, createChangeFeed, migrateToLatest, openDatabase } from '@cordon/db';
import { CATEGORIES } from '@cordon/shared';
import pino from 'pino';
import { releaseLoadMemory, startDataPlane } from '../apps/resolver/src/dataplane/host.ts';
import { type ResolverMetrics, startResolver, type UdpBackend } from '../apps/resolver/src/index.ts';
import { startFakeUpstream } from '../apps/resolver/test/helpers/fake-upstream.ts';
import { formatProcMemory, procMemory } from './support/proc-memory.ts';

const file = process.argv[2] ?? '/tmp/cordon-bench-ut1.db';
const port = Number(process.argv[3] ?? 5399);
// A third argument names a shared upstream's port (bench/peers/run.sh: Cordon and every peer resolve
// allowed names from the same server); without it, a private fake upstream on loopback.
const sharedUpstream = process.argv[4] === undefined ? null : Number(process.argv[4]);
const handle = openDatabase({ sqlitePath: file });
await migrateToLatest(handle);
const db = handle.db;
if (!(await db.selectFrom('location_addresses').select('id').where('ip', '=', '127.0.0.1/32').executeTakeFirst())) {
  const now = new Date().toISOString();
  const ts = { created_at: now, updated_at: now };
  const msp = await db
    .insertInto('msps')
    .values({ name: 'Bench', company_name: 'Bench', license: '', timezone: 'UTC', ...ts })
    .returning('id')
    .executeTakeFirstOrThrow();
  const c = await db
    .insertInto('customers')
    .values({ msp_id: msp.id, account_name: 'Bench', uuid_str: 'bench', timezone: 'UTC', ...ts })
    .returning('id')
    .executeTakeFirstOrThrow();
  const p = await db
    .insertInto('policies')
    .values({
      customer_id: c.id,
      name: 'All',
      description: '',
      level: 'custom',
      is_default: 1,
      allow_unclassified: 1,
      ...ts,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await db
    .insertInto('policy_categories')
    .values(CATEGORIES.filter((x) => x.id > 0).map((x) => ({ policy_id: p.id, customer_id: c.id, category_id: x.id })))
    .execute();
  const l = await db
    .insertInto('locations')
    .values({ customer_id: c.id, type: 'staticip', name: 'Bench', policy_id: null, key: null, ...ts })
    .returning('id')
    .executeTakeFirstOrThrow();
  await db
    .insertInto('location_addresses')
    .values({ location_id: l.id, customer_id: c.id, ...addressClaimColumns('127.0.0.1/32'), created_at: now })
    .execute();
}
const upstream = sharedUpstream === null ? await startFakeUpstream() : null;
const upstreamPort = upstream?.port ?? (sharedUpstream as number);
const udpBackend = (process.env.CORDON_BENCH_UDP_BACKEND ?? 'auto') as UdpBackend;
const threads = Number(process.env.CORDON_BENCH_THREADS ?? 1);
const logger = pino({ level: 'info' });
const common = {
  dns: { host: '127.0.0.1', port },
  upstreams: [{ host: '127.0.0.1', port: upstreamPort }],
  blockAddresses: { ipv4: '127.0.0.1', ipv6: '::1' },
  // As `cordon serve` ships: the writer thread's backlog spooled beside the database.
  queryLog: {
    worker: process.env.CORDON_BENCH_QUERYLOG !== 'inline',
    spoolDir: process.env.CORDON_BENCH_SPOOL === 'off' ? null : `${file}.querylog-spool`,
    idleWriter: process.env.CORDON_BENCH_IDLE_WRITER !== 'off',
  },
  // dnsperf sends every query from 127.0.0.1: response-rate limiting would measure itself.
  // CORDON_BENCH_RRL_RATE=1000000000 measures the limiter's per-query cost at a rate nothing reaches.
  rrl: { ratePerSecond: Number(process.env.CORDON_BENCH_RRL_RATE ?? 0) },
  // The same for the per-location limit (issue 30): 127.0.0.1 is the bench location's claim, and its
  // default 5,000/s would cap every run there. CORDON_BENCH_LOCATION_RATE sets one.
  locationRate: Number(process.env.CORDON_BENCH_LOCATION_RATE ?? 0),
  udpBackend,
};
const changes = createChangeFeed(handle);
let metrics: () => Promise<ResolverMetrics | null>;
let close: () => Promise<void>;
if (threads > 1) {
  const plane = await startDataPlane({
    connection: { sqlitePath: file },
    logger,
    resolver: common,
    resolverThreads: threads,
  });
  metrics = () => plane.metrics();
  close = () => plane.close();
} else {
  await changes.start();
  const resolver = await startResolver({ ...common, db: handle, changes, logger });
  metrics = async () => resolver.metrics;
  close = () => resolver.close();
}
// As `cordon serve` does once its in-process data plane is loaded (dataplane/host.ts).
if (threads === 1) releaseLoadMemory();
console.log(`ready ${formatProcMemory(procMemory())} threads=${threads} udp=${udpBackend}`);
const cpuAtReady = process.cpuUsage();
const stop = async () => {
  const cpu = process.cpuUsage(cpuAtReady);
  const before = await metrics();
  await close();
  // One thread: read again once closed, so the query log's figures include the rows its close wrote.
  const m = threads > 1 ? before : await metrics();
  console.log(JSON.stringify(m));
  const queries = m?.queries ?? 0;
  const micros = cpu.user + cpu.system;
  console.log(
    `cpu=${(micros / 1e6).toFixed(2)}s queries=${queries} cpu_per_query=${queries ? (micros / queries).toFixed(2) : '-'}us udp=${m?.udpBackend}`,
  );
  console.log(formatProcMemory(procMemory()));
  await upstream?.close();
  await changes.close();
  await handle.close();
  process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
// Where the main thread's memory is (bench/README.md "Resolver memory"): SIGUSR2 prints node's
// figures and each V8 heap space's used / committed size, MB.
// With --expose-gc, a second line follows a full collection: what is live.
const printMemory = (when: string) => {
  const mb = (n: number) => (n / 1048576).toFixed(1);
  const u = process.memoryUsage();
  const spaces = getHeapSpaceStatistics()
    .map((s) => `${s.space_name}=${mb(s.space_used_size)}/${mb(s.physical_space_size)}`)
    .join(' ');
  console.log(
    `memory ${when} rss=${mb(u.rss)} heapUsed=${mb(u.heapUsed)} heapTotal=${mb(u.heapTotal)} external=${mb(u.external)} arrayBuffers=${mb(u.arrayBuffers)} ${spaces} ${formatProcMemory(procMemory())}`,
  );
};
process.on('SIGUSR2', () => {
  printMemory('now');
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) return;
  gc();
  printMemory('after-gc');
});
