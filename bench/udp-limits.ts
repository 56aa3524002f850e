/**
 * What the UDP limits cost per datagram (bench/README.md "UDP limits by claim"; docs/operations.md
 * "Response-rate limiting"): the real resolver (`startResolver`) on the tests' seeded tenants, over
 * loopback UDP, a blocked name asked from the claimed address 127.0.0.1 in windows of 200 (so the
 * client's buffer never overflows), with both limits on but set too high to limit anything
 * (`--rrl-rate` and `--location-rate-limit` 10,000,000): only their checks are measured.
 *
 *   node --expose-gc --import tsx bench/udp-limits.ts [queries=100000] [rounds=5]
 *
 * Then times the checks alone in process (ns and heap bytes per datagram): the RRL check every
 * datagram paid before, and the claim lookup plus the location bucket a claimed one pays now.
 *
 * Prints, per round, the process CPU time per answered query (client and server share the
 * process: compare before/after, not with other tables) and the heap growth per query over the
 * round (with gc before it), and the minimum of the rounds. Run it in a checkout of the commit
 * before (its resolver ignores `locationRate`) and after, alternating, on a quiet machine.
 */
import dgram from 'node:dgram';
import { createChangeFeed, migrateToLatest, openDatabase } from '@cordon/db';
import dnsPacket from 'dns-packet';
import pino from 'pino';
import { startResolver } from '../apps/resolver/src/index.ts';
import { SnapshotStore } from '../apps/resolver/src/snapshot/store.ts';
import { ResponseRateLimiter } from '../apps/resolver/src/transport/rrl.ts';
import { startFakeUpstream } from '../apps/resolver/test/helpers/fake-upstream.ts';
import { seedTenants } from '../apps/resolver/test/helpers/seed.ts';

const total = Number(process.argv[2] ?? 100_000);
const rounds = Number(process.argv[3] ?? 5);
const gc = (globalThis as { gc?: () => void }).gc;

const handle = openDatabase({ sqlitePath: ':memory:' });
await migrateToLatest(handle);
await seedTenants(handle);
const changes = createChangeFeed(handle);
const upstream = await startFakeUpstream();
const resolver = await startResolver({
  db: handle,
  changes,
  logger: pino({ level: 'silent' }),
  dns: { host: '127.0.0.1', port: 0 },
  upstreams: [{ host: '127.0.0.1', port: upstream.port }],
  blockAddresses: { ipv4: '127.0.0.1', ipv6: '::1' },
  rrl: { ratePerSecond: 10_000_000 },
  locationRate: 10_000_000,
  udpOnly: true,
} as Parameters<typeof startResolver>[0]);
const port = resolver.address.udp.port;
const wire = Array.from({ length: 200 }, (_, i) =>
  dnsPacket.encode({ id: i, type: 'query', questions: [{ name: 'gambling.example', type: 'A', class: 'IN' }] }),
);

/** Sends `n` queries in windows of 200, each answered before the next; returns the answers. */
async function run(n: number): Promise<number> {
  const socket = dgram.createSocket('udp4');
  let got = 0;
  socket.on('message', () => got++);
  await new Promise<void>((r) => socket.bind(0, '127.0.0.1', () => r()));
  for (let sent = 0; sent < n; ) {
    const want = got + 200;
    for (const w of wire) socket.send(w, port, '127.0.0.1');
    sent += 200;
    const until = Date.now() + 1000;
    while (got < want && Date.now() < until) await new Promise((r) => setImmediate(r));
  }
  socket.close();
  return got;
}

await run(20_000); // warm-up
const cpu: number[] = [];
const heap: number[] = [];
for (let r = 0; r < rounds; r++) {
  gc?.();
  const h0 = process.memoryUsage().heapUsed;
  const c0 = process.cpuUsage();
  const answered = await run(total);
  const c = process.cpuUsage(c0);
  const grown = process.memoryUsage().heapUsed - h0;
  cpu.push(((c.user + c.system) * 1000) / answered);
  heap.push(grown / answered);
  console.log(
    `round ${r + 1}: ${answered} answered, ${cpu[r]!.toFixed(0)} ns CPU/query, heap ${heap[r]!.toFixed(1)} B/query`,
  );
}
console.log(
  `min: ${Math.min(...cpu).toFixed(0)} ns CPU/query; metrics ${JSON.stringify({ rateLimited: resolver.metrics.rateLimited, locationLimited: resolver.metrics.locationLimited })}`,
);

// The checks alone, in process: the claim lookup (two addresses alternating, so the one-entry memo
// misses every time: the worst case) and the location bucket, against the RRL check they replace.
const store = new SnapshotStore(handle, pino({ level: 'silent' }));
await store.start();
let clock = 0;
const perLocation = new ResponseRateLimiter({ ratePerSecond: 10_000_000, tableSize: 16_384 }, () => clock);
const rrl = new ResponseRateLimiter({ ratePerSecond: 10_000_000 }, () => clock);
const addresses = ['127.0.0.1', '127.0.0.3'];
const claimed = (i: number) => perLocation.checkLocation(store.claimedLocation(addresses[i & 1]!) || 1);
const prefix = (i: number) => rrl.check(addresses[i & 1]!);
for (const [name, f] of [
  ['RRL check (before: every source)', prefix],
  ['claim lookup + location check (after: claimed sources)', claimed],
] as const) {
  for (let i = 0; i < 1_000_000; i++) f(i); // warm-up
  gc?.();
  const h0 = process.memoryUsage().heapUsed;
  for (let i = 0; i < 10_000; i++) f(i);
  const bytes = (process.memoryUsage().heapUsed - h0) / 10_000;
  let best = Number.POSITIVE_INFINITY;
  for (let r = 0; r < 5; r++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < 2_000_000; i++) {
      clock = i;
      f(i);
    }
    best = Math.min(best, Number(process.hrtime.bigint() - t0) / 2_000_000);
  }
  console.log(`${name}: ${best.toFixed(0)} ns/datagram, heap ${bytes.toFixed(2)} B/datagram`);
}
store.close();
await resolver.close();
await upstream.close();
await changes.close();
await handle.close();
