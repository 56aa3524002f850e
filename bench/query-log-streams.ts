/**
 * The process's CPU per answered query with a query-log stream and without (bench/README.md
 * "Query-log streaming"): a resolver on the tests' seeded tenants (SQLite file, query-log writer
 * thread as `cordon serve` runs it), loaded over UDP from a child process (64 queries in flight, a
 * tenth blocked, the rest cached names), alternating rounds without a sink and with a dnstap sink
 * read by `fstrm_capture` (another process) writing to /dev/null.
 *
 *   node --import tsx bench/query-log-streams.ts [rounds=3] [queries=60000] [in-flight=64]
 *
 * CPU is `process.cpuUsage()` — every thread of the resolver's process, the writer thread and its
 * sinks included — from the first measured query until the resolver is closed (so the rows still
 * buffered are written and streamed), divided by the queries answered.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createChangeFeed, migrateToLatest, openDatabase } from '@cordon/db';
import pino from 'pino';
import { startResolver } from '../apps/resolver/src/index.ts';
import type { StreamTarget } from '../apps/resolver/src/querylog/streams/targets.ts';
import { startFakeUpstream } from '../apps/resolver/test/helpers/fake-upstream.ts';
import { seedTenants } from '../apps/resolver/test/helpers/seed.ts';

const rounds = Number(process.argv[2] ?? 3);
const queries = Number(process.argv[3] ?? 60_000);
/** Queries in flight: 64 saturates the core (the writer thread's idle gate then waits for the end); 4 leaves it time. */
const window = Number(process.argv[4] ?? 64);
const dir = mkdtempSync(join(tmpdir(), 'cordon-bench-streams-'));
const file = join(dir, 'bench.sqlite');
const handle = openDatabase({ sqlitePath: file });
await migrateToLatest(handle);
await seedTenants(handle);
const upstream = await startFakeUpstream();
const logger = pino({ level: 'warn' });
const changes = createChangeFeed(handle);
await changes.start();

/** The load: `count` A queries from a child process, `window` in flight; resolves when all are answered. */
function load(port: number, count: number, window: number): Promise<void> {
  const script = `
    import dgram from 'node:dgram';
    const [port, count, window] = process.argv.slice(1).map(Number);
    const s = dgram.createSocket('udp4');
    const names = Array.from({ length: 500 }, (_, i) => i % 10 === 0 ? 'gambling.example' : 'c' + i + '.example');
    const q = (id) => {
      const name = names[id % names.length];
      const labels = name.split('.');
      const b = Buffer.alloc(12 + name.length + 2 + 4);
      b.writeUInt16BE(id & 0xffff, 0); b.writeUInt16BE(0x0100, 2); b.writeUInt16BE(1, 4);
      let o = 12; for (const l of labels) { b[o++] = l.length; b.write(l, o, 'latin1'); o += l.length; }
      b[o++] = 0; b.writeUInt16BE(1, o); b.writeUInt16BE(1, o + 2);
      s.send(b, port, '127.0.0.1');
    };
    let sent = 0, answered = 0;
    s.on('message', () => { answered++; if (sent < count) q(sent++); else if (answered >= count) process.exit(0); });
    // A lost datagram would stall a window slot: refill every 100 ms.
    setInterval(() => { for (let i = sent - answered; i < window && sent < count; i++) q(sent++); if (answered >= count - 10 && sent >= count) process.exit(0); }, 100);
    s.bind(0, '127.0.0.1', () => { for (let i = 0; i < window; i++) q(sent++); });
  `;
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--input-type=module', '-e', script, String(port), String(count), String(window)],
      {
        stdio: 'inherit',
      },
    );
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`load exited ${code}`))));
  });
}

/** One round: CPU per answered query (µs) and the stream's counters. */
async function round(streams: StreamTarget[]): Promise<{ us: number; streamed: string }> {
  const resolver = await startResolver({
    db: handle,
    changes,
    logger,
    dns: { host: '127.0.0.1', port: 0 },
    upstreams: [{ host: '127.0.0.1', port: upstream.port }],
    blockAddresses: { ipv4: '127.0.0.1', ipv6: '::1' },
    rrl: { ratePerSecond: 0 },
    locationRate: 0,
    queryLog: { streams, spoolDir: join(dir, 'spool') },
  });
  const port = resolver.address.udp.port;
  await load(port, 2000, 64);
  const before = resolver.metrics.queries;
  const cpu0 = process.cpuUsage();
  await load(port, queries, window);
  const answered = resolver.metrics.queries - before;
  await resolver.close();
  const cpu = process.cpuUsage(cpu0);
  const s = resolver.metrics.queryLog.streams ?? [];
  return {
    us: (cpu.user + cpu.system) / answered,
    streamed: s.map((x) => `${x.kind} sent=${x.sent} dropped=${x.dropped}`).join(', ') || 'none',
  };
}

let capture: ChildProcess | null = null;
const socket = join(dir, 'dnstap.sock');
capture = spawn('fstrm_capture', ['-t', 'protobuf:dnstap.Dnstap', '-u', socket, '-w', '/dev/null'], {
  stdio: 'ignore',
});
while (!existsSync(socket)) await new Promise((r) => setTimeout(r, 50));

const results: Record<string, number[]> = { none: [], dnstap: [] };
for (let i = 0; i < rounds; i++) {
  for (const [name, streams] of [
    ['none', []],
    ['dnstap', [{ kind: 'dnstap', path: socket }]],
  ] as Array<[string, StreamTarget[]]>) {
    const r = await round(streams);
    results[name]!.push(r.us);
    console.log(`round ${i + 1} ${name}: ${r.us.toFixed(2)} µs CPU/query (${r.streamed})`);
  }
}
for (const [name, us] of Object.entries(results)) {
  const sorted = [...us].sort((a, b) => a - b);
  console.log(
    `${name}: median ${sorted[Math.floor(sorted.length / 2)]!.toFixed(2)} µs, min ${sorted[0]!.toFixed(2)} µs`,
  );
}
capture.kill('SIGTERM');
await upstream.close();
await changes.close();
await handle.close();
rmSync(dir, { recursive: true, force: true });
process.exit(0);
