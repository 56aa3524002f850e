/**
 * The resolver's synchronous hot path in one process, without sockets: the real pipeline and
 * exchange (decode, identify, policy, cache, encode) on the tests' seeded tenants, for a blocked
 * name and a cached name (bench/README.md "Issue 12: hot path").
 *
 *   node --expose-gc --import tsx bench/resolver-hotpath.ts
 *
 * Prints per mix:
 * - heap bytes allocated per answered query: the heap growth over 500 queries with
 *   no garbage collection in between (checked), the minimum of 5 rounds — deterministic, unlike
 *   timings on a shared machine;
 * - CPU time per query, ns: `process.cpuUsage()` over 200,000 queries, the minimum of 5 rounds.
 * The query log is a stand-in that keeps nothing, so its writer's work is not counted (the row
 * object the pipeline builds is).
 */
import { PerformanceObserver } from 'node:perf_hooks';
import { migrateToLatest, openDatabase } from '@cordon/db';
import dnsPacket from 'dns-packet';
import pino from 'pino';
import { AnswerCache } from '../apps/resolver/src/cache/answer-cache.ts';
import { ResolverCounters } from '../apps/resolver/src/metrics.ts';
import { composePipeline } from '../apps/resolver/src/pipeline/order.ts';
import type { QueryLogSink } from '../apps/resolver/src/querylog/writer.ts';
import { SnapshotStore } from '../apps/resolver/src/snapshot/store.ts';
import { createExchange } from '../apps/resolver/src/transport/exchange.ts';
import { UpstreamClient } from '../apps/resolver/src/upstream/client.ts';
import { startFakeUpstream } from '../apps/resolver/test/helpers/fake-upstream.ts';
import { seedTenants } from '../apps/resolver/test/helpers/seed.ts';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');

const logger = pino({ level: 'silent' });
const handle = openDatabase({ sqlitePath: ':memory:' });
await migrateToLatest(handle);
await seedTenants(handle);
const store = new SnapshotStore(handle, logger);
await store.start();
const upstream = await startFakeUpstream();
const counters = new ResolverCounters();
let logged = 0;
const queryLog: QueryLogSink = {
  push: () => {
    logged++;
    return true;
  },
  flush: async () => undefined,
  close: async () => undefined,
  stats: { written: 0, dropped: 0, failedBatches: 0, spooled: 0, queued: 0, spoolBytes: 0 },
};
const handler = composePipeline({
  store,
  cache: new AnswerCache({ maxEntries: 1000 }),
  upstream: new UpstreamClient([{ host: '127.0.0.1', port: upstream.port }], {
    timeoutMs: 1500,
    probeIntervalMs: 5000,
  }),
  queryLog,
  counters,
  blockAddresses: { ipv4: '127.0.0.1', ipv6: '::1' },
});
const exchange = createExchange(handler, counters, logger);
const query = (name: string) =>
  dnsPacket.encode({ type: 'query', id: 4242, flags: dnsPacket.RECURSION_DESIRED, questions: [{ type: 'A', name }] });

// Prime the cache for the cached mix (the first answer comes from the fake upstream).
const primed = await exchange(query('allowed.example'), '127.0.0.1', 'udp');
if (!primed) throw new Error('no answer from the fake upstream');

let gcs = 0;
new PerformanceObserver((list) => {
  gcs += list.getEntries().length;
}).observe({ entryTypes: ['gc'] });
const settle = () => new Promise((r) => setTimeout(r, 20));

async function bytesPerQuery(raw: Buffer): Promise<number> {
  let best = Number.POSITIVE_INFINITY;
  for (let round = 0; round < 5; round++) {
    gc?.();
    await settle();
    const before = gcs;
    const used0 = process.memoryUsage().heapUsed;
    for (let i = 0; i < 500; i++) exchange(raw, '127.0.0.1', 'udp');
    const used1 = process.memoryUsage().heapUsed;
    await settle();
    if (gcs === before) best = Math.min(best, (used1 - used0) / 500);
  }
  return best;
}

function cpuNsPerQuery(raw: Buffer): number {
  let best = Number.POSITIVE_INFINITY;
  for (let round = 0; round < 5; round++) {
    const t0 = process.cpuUsage();
    for (let i = 0; i < 200_000; i++) exchange(raw, '127.0.0.1', 'udp');
    const t = process.cpuUsage(t0);
    best = Math.min(best, ((t.user + t.system) * 1000) / 200_000);
  }
  return best;
}

for (const [mix, name] of [
  ['blocked', 'gambling.example'],
  ['cached', 'allowed.example'],
] as const) {
  const raw = query(name);
  const answer = exchange(raw, '127.0.0.1', 'udp');
  if (!(answer instanceof Buffer)) throw new Error(`${mix}: not answered synchronously`);
  for (let i = 0; i < 50_000; i++) exchange(raw, '127.0.0.1', 'udp'); // warm the JIT
  const bytes = await bytesPerQuery(raw);
  const cpu = cpuNsPerQuery(raw);
  console.log(
    `${mix.padEnd(8)} heap ${Number.isFinite(bytes) ? bytes.toFixed(0) : '?'} B/query  cpu ${cpu.toFixed(0)} ns/query`,
  );
}
console.log(`(logged ${logged} rows, blocked ${counters.blocked}, cache hits ${counters.cacheHits})`);
store.close();
await upstream.close();
await handle.close();
process.exit(0);
