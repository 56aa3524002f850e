/**
 * The resolver's memory budget (issue 12): USS, PSS and RSS (bench/support/proc-memory.ts) of a
 * resolver holding 1,000,000 categorised domains, 100,000 allow/block list entries and 100,000
 * enrolled devices, after load and after traffic.
 *
 *   node --import tsx bench/resolver-memory.ts [sqlite-file]
 *
 * Builds the SQLite file once (default: resolver-memory.sqlite in the OS temp folder): the UT1 lists
 * (CORDON_UT1_DIR, default ../shared/data/categories/ut1 beside the repository) through the real
 * importer, topped up with synthetic names to 1,000,000 distinct domains; 100 customers of one MSP,
 * each with a default policy holding 1,000 list entries (half block, half allow) and 1,000 devices.
 * Without the UT1 folder every domain is synthetic. Then it starts, one after the other, bench/resolver-serve.ts
 * under tsx and the production bundle's `cordon serve --roles resolver` (`npm run build:server`;
 * tenancy, policy and the query log on), reads each one's memory from /proc/PID/smaps_rollup once it
 * answers, sends 200,000 UDP queries (categorised, listed and allowed names; devices are only held
 * here, not queried through), reads it again, and once more after 90 s idle (V8 returns garbage pages
 * lazily). Both run with glibc's settings of deploy/systemd/cordon-resolver.service (`MALLOC_*`; the
 * process sets none itself). Figures go to bench/README.md "Resolver memory", never into tests.
 * CORDON_BENCH_SETTLE_S shortens the idle time; CORDON_BENCH_SERVERS=bundle measures the bundle
 * alone — only once a full run has added the bench customer (bench/resolver-serve.ts does, on its
 * first start), else nothing answers. CORDON_MEMORY_BUNDLE names another bundle's cordon.mjs (an
 * earlier build, `node apps/cli/scripts/bundle.mjs --outdir node_modules/DIR`, for a before/after);
 * CORDON_MEMORY_NODE_FLAGS adds node flags to the bundle's command line (e.g. `--max-semi-space-size=2`,
 * as the unit's NODE_OPTIONS does).
 * CORDON_BENCH_SMAPS=1 prints beside each reading where the resident set is, by kind of mapping.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import dgram from 'node:dgram';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { migrateToLatest, openDatabase } from '@cordon/db';
import { importUt1Directory } from '@cordon/feeds';
import { CATEGORIES } from '@cordon/shared';
import { startFakeUpstream } from '../apps/resolver/test/helpers/fake-upstream.ts';
import { formatProcMemory, procMemory } from './support/proc-memory.ts';

const UT1 = process.env.CORDON_UT1_DIR ?? fileURLToPath(new URL('../../shared/data/categories/ut1', import.meta.url));
const DOMAINS = 1_000_000;
const CUSTOMERS = 100;
const LIST_ENTRIES_PER_CUSTOMER = 1_000;
const DEVICES_PER_CUSTOMER = 1_000;
const QUERIES = 200_000;
/** Idle time before the last reading, ms (CORDON_BENCH_SETTLE_S, default 90). */
const SETTLE_MS = Number(process.env.CORDON_BENCH_SETTLE_S ?? 90) * 1000;

// `cordon serve` reads cordon.sqlite in its data folder, so the file keeps that name.
const file = process.argv[2] ?? join(tmpdir(), 'cordon-resolver-memory', 'cordon.sqlite');
const port = Number(process.env.CORDON_BENCH_PORT ?? 5398);

async function build(): Promise<void> {
  mkdirSync(dirname(file), { recursive: true });
  const handle = openDatabase({ sqlitePath: file });
  await migrateToLatest(handle);
  const db = handle.db;
  const t0 = performance.now();
  if (existsSync(UT1)) {
    const report = await importUt1Directory(handle, UT1);
    console.log(`UT1: ${report.rows} facts from ${report.lists} lists`);
  } else {
    console.log(`no UT1 folder at ${UT1}: synthetic domains only`);
  }
  const distinct = await db
    .selectFrom('category_domains')
    .select((eb) => eb.fn.count<number>('domain').distinct().as('n'))
    .executeTakeFirstOrThrow();
  const categoryIds = CATEGORIES.filter((c) => c.id > 0).map((c) => c.id);
  const missing = DOMAINS - Number(distinct.n);
  for (let start = 0; start < missing; start += 5_000) {
    const rows = [];
    for (let i = start; i < Math.min(missing, start + 5_000); i++) {
      rows.push({
        domain: `s${i}.synthetic-${i % 997}.example`,
        category_id: categoryIds[i % categoryIds.length]!,
        source: 'bench',
      });
    }
    await db.insertInto('category_domains').values(rows).execute();
  }
  const now = new Date().toISOString();
  const ts = { created_at: now, updated_at: now };
  const msp = await db
    .insertInto('msps')
    .values({ name: 'Memory', company_name: 'Memory', license: '', timezone: 'UTC', ...ts })
    .returning('id')
    .executeTakeFirstOrThrow();
  for (let c = 0; c < CUSTOMERS; c++) {
    await db.transaction().execute(async (trx) => {
      const customer = await trx
        .insertInto('customers')
        .values({ msp_id: msp.id, account_name: `Memory ${c}`, uuid_str: `memory-${c}`, timezone: 'UTC', ...ts })
        .returning('id')
        .executeTakeFirstOrThrow();
      const policy = await trx
        .insertInto('policies')
        .values({
          customer_id: customer.id,
          name: 'Default',
          description: '',
          level: 'medium',
          is_default: 1,
          allow_unclassified: 1,
          ...ts,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      const entries = [];
      for (let i = 0; i < LIST_ENTRIES_PER_CUSTOMER; i++) {
        entries.push({
          policy_id: policy.id,
          customer_id: customer.id,
          domain: `listed-${i}.customer-${c}.example`,
          action: i % 2 === 0 ? 'block' : 'allow',
          include_subdomains: 1,
          comment: '',
          log_requests: 1,
          ...ts,
        });
      }
      for (let i = 0; i < entries.length; i += 500)
        await trx
          .insertInto('policy_domains')
          .values(entries.slice(i, i + 500))
          .execute();
      const devices = [];
      for (let i = 0; i < DEVICES_PER_CUSTOMER; i++) {
        devices.push({
          customer_id: customer.id,
          key: randomBytes(24).toString('base64url'),
          name: `laptop-${c}-${i}`,
          last_contact_at: null,
          location_id: null,
          policy_id: null,
          device_exception_id: null,
          advanced_config: null,
          ...ts,
        });
      }
      for (let i = 0; i < devices.length; i += 500)
        await trx
          .insertInto('devices')
          .values(devices.slice(i, i + 500))
          .execute();
    });
  }
  console.log(`built ${file} in ${Math.round(performance.now() - t0)} ms`);
  await handle.close();
}

/** Encodes an A query for `name` with message id `id` (RFC 1035 §4.1). */
function aQuery(id: number, name: string): Buffer {
  const parts = [Buffer.from([(id >> 8) & 0xff, id & 0xff, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0])];
  for (const label of name.split('.')) parts.push(Buffer.from([label.length]), Buffer.from(label));
  parts.push(Buffer.from([0, 0, 1, 0, 1]));
  return Buffer.concat(parts);
}

/** Sends `count` queries in rounds of 100 (each round waits for its answers, at most 1 s); resolves with the answers received. */
async function blast(count: number): Promise<number> {
  const socket = dgram.createSocket('udp4');
  const names = [
    (i: number) => `s${i % 400_000}.synthetic-${i % 997}.example`,
    (i: number) => `listed-${i % 1000}.customer-0.example`,
    (i: number) => `allowed-${i % 50}.example.org`,
  ];
  let received = 0;
  let pending = 0;
  let roundDone: (() => void) | null = null;
  socket.on('message', () => {
    received++;
    if (--pending === 0) roundDone?.();
  });
  for (let sent = 0; sent < count; sent += 100) {
    pending = 100;
    const round = new Promise<void>((resolve) => {
      roundDone = resolve;
      setTimeout(resolve, 1_000).unref();
    });
    for (let i = sent; i < sent + 100; i++)
      socket.send(aQuery(i & 0xffff, names[i % names.length]!(i)), port, '127.0.0.1');
    await round;
  }
  socket.close();
  return received;
}

/**
 * glibc's settings of the resolver's unit (`Environment=MALLOC_…` lines of
 * deploy/systemd/cordon-resolver.service), so the bench runs with the heap the service has.
 */
function unitMallocEnvironment(): Record<string, string> {
  const unit = readFileSync(new URL('../deploy/systemd/cordon-resolver.service', import.meta.url), 'utf8');
  return Object.fromEntries([...unit.matchAll(/^Environment=(MALLOC_\w+)=(\S+)$/gm)].map((m) => [m[1]!, m[2]!]));
}

/**
 * Where process `pid`'s resident set is (Linux `/proc/PID/smaps`), MB by kind, largest first:
 * `v8 pages` (anonymous 256 KiB mappings: V8's heap pages, every isolate's), `malloc arenas`
 * (anonymous mappings at a 64 MiB boundary: glibc's per-thread arenas), `[heap]` (the main malloc heap), the
 * node binary, native addons, shared libraries, and the other anonymous mappings (V8's large objects,
 * `ArrayBuffer` stores, stacks) by size. For CORDON_BENCH_SMAPS=1.
 */
function smapsBreakdown(pid: number): string {
  const kb = new Map<string, number>();
  let kind = '';
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \d+\s*(.*)$/.exec(line);
    if (head !== null) {
      const sizeKiB = (Number.parseInt(head[2]!, 16) - Number.parseInt(head[1]!, 16)) / 1024;
      const path = head[3]!.trim();
      if (path === '') {
        // glibc's thread arenas are 64 MiB-aligned (HEAP_MAX_SIZE); their unused tail is a separate mapping.
        const arena = Number.parseInt(head[1]!, 16) % (64 * 1024 * 1024) === 0;
        kind =
          sizeKiB === 256
            ? 'v8 pages'
            : arena
              ? 'malloc arenas'
              : sizeKiB >= 2048
                ? 'other anonymous ≥ 2 MiB'
                : 'other anonymous < 2 MiB';
      } else if (path.startsWith('[')) kind = path;
      else if (path === process.execPath) kind = 'node binary';
      else if (path.endsWith('.node')) kind = 'native addons';
      else if (path.includes('.so')) kind = 'shared libraries';
      else kind = 'other files';
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss !== null) kb.set(kind, (kb.get(kind) ?? 0) + Number(rss[1]));
  }
  return [...kb]
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${k} ${(v / 1024).toFixed(1)}`)
    .join(', ');
}

/** Readings of `/proc/PID/smaps` by kind beside each reading (CORDON_BENCH_SMAPS=1). */
const SHOW_SMAPS = process.env.CORDON_BENCH_SMAPS === '1';

/** Waits until the resolver answers a query on `port` (it answers only once its snapshot is loaded). */
async function waitForAnswers(child: ReturnType<typeof spawn>): Promise<void> {
  const deadline = Date.now() + 300_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`resolver exited ${child.exitCode}`);
    if (Date.now() > deadline) {
      child.kill('SIGTERM');
      throw new Error(
        'no answer within 5 minutes: is the bench customer there? (run once without CORDON_BENCH_SERVERS)',
      );
    }
    const socket = dgram.createSocket('udp4');
    const answered = await new Promise<boolean>((resolve) => {
      socket.once('message', (msg) => resolve((msg[3]! & 0x0f) !== 5)); // not REFUSED: the claim is loaded
      socket.send(aQuery(1, 's1.synthetic-1.example'), port, '127.0.0.1');
      setTimeout(() => resolve(false), 200).unref();
    });
    socket.close();
    if (answered) return;
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Starts `command`, measures its memory when it answers and after {@link QUERIES} queries, and stops it. */
async function measure(label: string, args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  const child = spawn(process.execPath, args, {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, ...unitMallocEnvironment(), ...env },
  });
  const t0 = performance.now();
  await waitForAnswers(child);
  const loadMs = Math.round(performance.now() - t0);
  // Let the loaders' garbage go before the first reading.
  await new Promise((r) => setTimeout(r, 3_000));
  const ready = procMemory(child.pid!);
  if (SHOW_SMAPS) console.log(`  ready: ${smapsBreakdown(child.pid!)}`);
  const answered = await blast(QUERIES);
  await new Promise((r) => setTimeout(r, 1_000));
  const after = procMemory(child.pid!);
  if (SHOW_SMAPS) console.log(`  after the queries: ${smapsBreakdown(child.pid!)}`);
  // V8's memory reducer gives the loaders' and the traffic's garbage back after a while of idling.
  await new Promise((r) => setTimeout(r, SETTLE_MS));
  const settled = procMemory(child.pid!);
  if (SHOW_SMAPS) console.log(`  ${SETTLE_MS / 1000} s later: ${smapsBreakdown(child.pid!)}`);
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  console.log(
    `${label}: answering after ${loadMs} ms; ready ${formatProcMemory(ready)}; after ${answered}/${QUERIES} queries ${formatProcMemory(after)}; ${SETTLE_MS / 1000} s later ${formatProcMemory(settled)}`,
  );
}

if (!existsSync(file)) await build();
const upstream = await startFakeUpstream();
const serveScript = fileURLToPath(new URL('./resolver-serve.ts', import.meta.url));
// CORDON_BENCH_SERVERS=bundle measures the production bundle only (default: tsx,bundle).
const servers = (process.env.CORDON_BENCH_SERVERS ?? 'tsx,bundle').split(',');
// bench/resolver-serve.ts adds the bench customer (127.0.0.1/32, every category blocked) on first start.
if (servers.includes('tsx')) {
  await measure(
    'resolver (tsx, bench/resolver-serve.ts)',
    ['--import', 'tsx', serveScript, file, String(port), String(upstream.port)],
    {},
  );
}
const bundle =
  process.env.CORDON_MEMORY_BUNDLE ?? fileURLToPath(new URL('../apps/cli/dist/cordon.mjs', import.meta.url));
const nodeFlags = (process.env.CORDON_MEMORY_NODE_FLAGS ?? '').split(' ').filter((f) => f.length > 0);
if (!servers.includes('bundle')) {
  // not asked for
} else if (existsSync(bundle)) {
  const label = `cordon serve --roles resolver (${bundle}${nodeFlags.length > 0 ? ` ${nodeFlags.join(' ')}` : ''})`;
  await measure(label, [...nodeFlags, bundle, 'serve'], {
    CORDON_DATA_DIR: dirname(file),
    CORDON_ROLES: 'resolver',
    CORDON_DNS_ADDR: `127.0.0.1:${port}`,
    CORDON_DOH_ADDR: 'off',
    CORDON_UPSTREAM: `127.0.0.1:${upstream.port}`,
    CORDON_RRL_RATE: '0',
    CORDON_LOG_LEVEL: 'warn',
  });
} else {
  console.log('no apps/cli/dist/cordon.mjs: run `npm run build:server` to measure the production bundle too');
}
await upstream.close();
