/**
 * A fleet on PostgreSQL (docs/operations.md "Fleet"): one API, two resolvers and two workers, each
 * a `cordon serve --roles …` process of its own, on one throwaway database. A change made through
 * the API reaches both resolvers within a second; the query log gets both resolvers' rows; each due
 * worker job runs once; a resolver restarted while the database is unreachable (its connection goes
 * through a TCP proxy the test closes) serves its snapshot from disk and catches up when the proxy
 * returns. Needs a PostgreSQL server (`CORDON_TEST_DATABASE_URL`, which CI sets); without one only
 * the configuration checks at the top run.
 */
import { randomBytes } from 'node:crypto';
import dgram from 'node:dgram';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DatabaseHandle, openDatabase } from '@cordon/db';
import dnsPacket from 'dns-packet';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, type CordonProcess, startCordon } from '../../../e2e/support/cordon.ts';
import { authorizeQuery, basic } from '../../api/test/helpers.ts';
import { type FakeUpstream, startFakeUpstream } from '../../resolver/test/helpers/fake-upstream.ts';
import { describeConfig, resolveServeConfig } from '../src/config.ts';
import { workerJobs } from '../src/worker-jobs.ts';

const PG = process.env.CORDON_TEST_DATABASE_URL;
const ADMIN = { email: 'root@fleet.test', password: 'Sup3r-secret' };
const BLOCK_IPV4 = '198.51.100.7';
const UPSTREAM_ANSWER = '192.0.2.10'; // the fake upstream's A answer

describe('fleet settings', () => {
  const env = { CORDON_UPSTREAM: '127.0.0.1:5399' };

  it('keeps the snapshot on disk under the data directory with PostgreSQL, and none with SQLite', () => {
    const pg = resolveServeConfig(
      { dataDir: '/srv/cordon' },
      { ...env, DATABASE_URL: 'postgres://db.internal/cordon' },
    );
    expect(pg.snapshotDir).toBe('/srv/cordon/snapshot');
    expect(describeConfig(pg, 'pg')).toContain('snapshot=/srv/cordon/snapshot');
    const sqlite = resolveServeConfig({ dataDir: '/srv/cordon' }, env);
    expect(sqlite.snapshotDir).toBeNull();
    expect(describeConfig(sqlite, 'x')).toContain('snapshot=off');
  });

  it('takes --snapshot-dir (a path, or off) over CORDON_SNAPSHOT_DIR', () => {
    const pgEnv = { ...env, DATABASE_URL: 'postgres://db.internal/cordon', CORDON_SNAPSHOT_DIR: '/var/lib/snap' };
    expect(resolveServeConfig({}, pgEnv).snapshotDir).toBe('/var/lib/snap');
    expect(resolveServeConfig({ snapshotDir: 'off' }, pgEnv).snapshotDir).toBeNull();
    // An empty value (commander passes an empty CORDON_SNAPSHOT_DIR as the flag) is unset, never the working directory.
    expect(resolveServeConfig({ snapshotDir: '' }, env).snapshotDir).toBeNull();
    expect(resolveServeConfig({ snapshotDir: '/elsewhere' }, env).snapshotDir).toBe('/elsewhere');
  });
});

/** RCODE names by value (RFC 1035 §4.1.1). */
const RCODES = ['NOERROR', 'FORMERR', 'SERVFAIL', 'NXDOMAIN', 'NOTIMP', 'REFUSED'];

/** One A query over UDP from 127.0.0.1: the rcode and the first A answer ('' when none). */
function ask(port: number, name: string): Promise<{ rcode: string; a: string }> {
  const socket = dgram.createSocket('udp4');
  const query = dnsPacket.encode({
    type: 'query',
    id: randomBytes(2).readUInt16BE(0),
    flags: dnsPacket.RECURSION_DESIRED,
    questions: [{ type: 'A', name, class: 'IN' }],
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      socket.close();
      reject(new Error(`no answer to ${name} from port ${port} within 3 s`));
    }, 3000);
    socket.on('message', (msg) => {
      clearTimeout(timer);
      socket.close();
      const answer = dnsPacket.decode(msg);
      const a = (answer.answers ?? []).find((r) => r.type === 'A');
      resolve({ rcode: RCODES[(answer.flags ?? 0) & 0xf] ?? 'OTHER', a: a?.type === 'A' ? a.data : '' });
    });
    socket.send(query, port, '127.0.0.1');
  });
}

/** Asks `name` until the A answer is `expected`; the ms it took from `since`. @throws after `limitMs` */
async function until(port: number, name: string, expected: string, since: number, limitMs: number): Promise<number> {
  let last = '';
  while (performance.now() - since < limitMs) {
    const got = await ask(port, name);
    last = `${got.rcode} ${got.a}`;
    if (got.rcode === 'NOERROR' && got.a === expected) return performance.now() - since;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`${name} on port ${port}: ${last}, not ${expected}, ${limitMs} ms after the change`);
}

/** A loopback TCP proxy to PostgreSQL that the test closes (the database "goes away") and reopens on the same port. */
interface Proxy {
  readonly port: number;
  close(): Promise<void>;
  reopen(): Promise<void>;
}

async function startProxy(target: { host: string; port: number }): Promise<Proxy> {
  const sockets = new Set<net.Socket>();
  let server: net.Server | null = null;
  let port = 0;
  const open = () =>
    new Promise<void>((resolve, reject) => {
      const s = net.createServer((client) => {
        const upstream = net.connect(target.port, target.host);
        sockets.add(client);
        sockets.add(upstream);
        const end = () => {
          client.destroy();
          upstream.destroy();
          sockets.delete(client);
          sockets.delete(upstream);
        };
        for (const sock of [client, upstream]) {
          sock.on('error', end);
          sock.on('close', end);
        }
        client.pipe(upstream).pipe(client);
      });
      s.once('error', reject);
      s.listen(port, '127.0.0.1', () => {
        port = (s.address() as net.AddressInfo).port;
        server = s;
        resolve();
      });
    });
  await open();
  return {
    get port() {
      return port;
    },
    close: async () => {
      const s = server;
      server = null;
      if (!s) return;
      const closed = new Promise<void>((resolve) => s.close(() => resolve()));
      for (const sock of sockets) sock.destroy();
      await closed;
    },
    reopen: open,
  };
}

/** The threads of process `pid` at SCHED_IDLE (policy 5 in /proc/<pid>/task/<tid>/sched), by id. */
function idleThreadsOf(pid: number): string[] {
  const ids: string[] = [];
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      if (/^policy\s*:\s*5$/m.test(readFileSync(`/proc/${pid}/task/${tid}/sched`, 'utf8'))) ids.push(tid);
    } catch {
      // the thread ended meanwhile
    }
  }
  return ids;
}

/** `url` with its database name replaced. */
function withDatabase(url: string, database: string, port?: number): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  if (port !== undefined) u.port = String(port);
  return u.toString();
}

/** The ports of the boot line (`http=127.0.0.1:N dns=127.0.0.1:N`); the processes ran with port 0. */
function bootPorts(p: CordonProcess): { http: number; dns: number } {
  const line = p.output.find((l) => l.startsWith('cordon serving:')) ?? '';
  return {
    http: Number(/ http=127\.0\.0\.1:(\d+)/.exec(line)?.[1]),
    dns: Number(/ dns=127\.0\.0\.1:(\d+)/.exec(line)?.[1]),
  };
}

describe.runIf(PG)('a fleet on PostgreSQL: one API, two resolvers and two workers on one database', () => {
  const database = `cordon_fleet_${randomBytes(5).toString('hex')}`;
  const dbUrl = withDatabase(PG ?? 'postgres://unset', database);
  const caSecret = randomBytes(32).toString('base64url');
  const dirs: string[] = [];
  const running = new Set<CordonProcess>();
  let upstream: FakeUpstream;
  let proxy: Proxy;
  let db: DatabaseHandle;
  let apiPort = 0;
  let token = '';
  let policyId = 0;
  /** DNS ports of resolver A (direct) and B (through the proxy). */
  let dnsA = 0;
  let dnsB = 0;
  let stopB: () => Promise<unknown> = async () => undefined;
  /** Resolver A, resolver B and the two workers, as started. */
  let resolvers: CordonProcess[] = [];
  const dirB = mkdtempSync(join(tmpdir(), 'cordon-fleet-b-'));
  dirs.push(dirB);

  const serve = async (roles: string, env: NodeJS.ProcessEnv = {}): Promise<CordonProcess> => {
    const dataDir = env.CORDON_DATA_DIR ?? mkdtempSync(join(tmpdir(), 'cordon-fleet-'));
    if (!dirs.includes(dataDir)) dirs.push(dataDir);
    const p = await startCordon(
      {
        CORDON_ROLES: roles,
        DATABASE_URL: dbUrl,
        CORDON_DATA_DIR: dataDir,
        CORDON_CA_SECRET: caSecret, // one deployment: every process unseals the same root CA
        CORDON_HTTP_ADDR: '127.0.0.1:0',
        CORDON_DNS_ADDR: '127.0.0.1:0',
        CORDON_UPSTREAM: `127.0.0.1:${upstream.port}`,
        CORDON_BLOCK_IPV4: BLOCK_IPV4,
        CORDON_ADMIN_EMAIL: ADMIN.email,
        CORDON_ADMIN_PASSWORD: ADMIN.password,
        CORDON_LOG_LEVEL: 'warn',
        ...env,
      },
      90_000,
      CLI,
    );
    running.add(p);
    return p;
  };
  const stop = async (p: CordonProcess) => {
    running.delete(p);
    return p.stop();
  };

  const api = async <T = { id: number }>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await fetch(`http://127.0.0.1:${apiPort}/restapi${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  };

  beforeAll(async () => {
    const admin = openDatabase({ url: PG, pgPoolSize: 1 });
    await sql`create database ${sql.id(database)}`.execute(admin.db);
    await admin.close();
    db = openDatabase({ url: dbUrl, pgPoolSize: 2 });
    upstream = await startFakeUpstream();
    const pgAddress = new URL(PG ?? '');
    proxy = await startProxy({ host: pgAddress.hostname, port: Number(pgAddress.port || 5432) });

    // The API first: it migrates the database and creates the system admin.
    apiPort = bootPorts(await serve('api')).http;
    resolvers = await Promise.all([
      serve('resolver'),
      serve('resolver', { CORDON_DATA_DIR: dirB, DATABASE_URL: withDatabase(dbUrl, database, proxy.port) }),
      // One tick at start, the next in 10 minutes: every job is due once during this file, even the
      // 1 s webhook deliveries (at the default 15 s tick a slow run saw a second, legitimate run).
      serve('worker', { CORDON_WORKER_TICK_MS: '600000' }),
      serve('worker', { CORDON_WORKER_TICK_MS: '600000' }),
    ]);
    const [resolverA, resolverB] = resolvers;
    dnsA = bootPorts(resolverA!).dns;
    dnsB = bootPorts(resolverB!).dns;
    stopB = () => stop(resolverB!);

    const res = await fetch(
      `http://127.0.0.1:${apiPort}/restapi/oauth/authorize?${new URLSearchParams(authorizeQuery())}`,
      {
        headers: { authorization: basic(ADMIN.email, ADMIN.password) },
      },
    );
    expect(res.status).toBe(200);
    token = ((await res.json()) as { access_token: string }).access_token;
  }, 240_000);

  afterAll(async () => {
    await Promise.all([...running].map((p) => stop(p)));
    await proxy?.close();
    await upstream?.close();
    await db?.close();
    const admin = openDatabase({ url: PG, pgPoolSize: 1 });
    await sql`drop database if exists ${sql.id(database)} with (force)`.execute(admin.db);
    await admin.close();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it('a location and a domain block made through the API reach both resolvers within one second', async () => {
    expect(dnsA).toBeGreaterThan(0);
    expect(dnsB).not.toBe(dnsA);
    expect((await ask(dnsA, 'before.example')).rcode).toBe('REFUSED');
    const msp = await api('POST', '/msp', { name: 'Fleet MSP', company_name: 'Fleet Ltd' });
    const customer = await api('POST', '/users/', { accountName: 'Fleet', msp_id: msp.id, timezone: 'UTC' });
    policyId = (await api('POST', '/policies', { user_id: customer.id, name: 'Fleet policy', filtering_level: 'low' }))
      .id;
    let since = performance.now();
    await api('POST', `/users/${customer.id}/locations/staticip`, {
      name: 'Office',
      policy_id: policyId,
      addresses: ['127.0.0.1/32'],
    });
    const located = await Promise.all([
      until(dnsA, 'office.example', UPSTREAM_ANSWER, since, 1000),
      until(dnsB, 'office.example', UPSTREAM_ANSWER, since, 1000),
    ]);
    expect(Math.max(...located)).toBeLessThan(1000);

    since = performance.now();
    await api('POST', `/policies/${policyId}/domains/block`, { domain: 'blocked.example', include_subdomains: true });
    const blocked = await Promise.all([
      until(dnsA, 'www.blocked.example', BLOCK_IPV4, since, 1000),
      until(dnsB, 'www.blocked.example', BLOCK_IPV4, since, 1000),
    ]);
    expect(Math.max(...blocked)).toBeLessThan(1000);
  });

  it('writes both resolvers’ queries to the one query log', async () => {
    for (let i = 0; i < 5; i++) {
      expect((await ask(dnsA, `from-a-${i}.example`)).a).toBe(UPSTREAM_ANSWER);
      expect((await ask(dnsB, `from-b-${i}.example`)).a).toBe(UPSTREAM_ANSWER);
    }
    const logged = async (prefix: string) =>
      Number(
        (
          await db.db
            .selectFrom('query_log')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('qname', 'like', `${prefix}%`)
            .executeTakeFirstOrThrow()
        ).n,
      );
    await expect.poll(() => logged('from-a-'), { timeout: 10_000 }).toBe(5);
    await expect.poll(() => logged('from-b-'), { timeout: 10_000 }).toBe(5);
    // The workers fold the log into the roll-ups (docs/architecture.md "Statistics"): each query counted once.
    const rolledUp = async (prefix: string) =>
      Number(
        (
          await db.db
            .selectFrom('stats_hourly_top')
            .select((eb) => eb.fn.sum<number>('count').as('n'))
            .where('dim', '=', 'domain')
            .where('key', 'like', `${prefix}%`)
            .executeTakeFirstOrThrow()
        ).n ?? 0,
      );
    await expect.poll(() => rolledUp('from-a-'), { timeout: 10_000 }).toBe(5);
    await expect.poll(() => rolledUp('from-b-'), { timeout: 10_000 }).toBe(5);
    // `--query-log-writer normal` (`startCordon`'s default for tests): no thread of either resolver at SCHED_IDLE (policy 5, sched(7)).
    for (const p of resolvers.slice(0, 2)) expect(idleThreadsOf(p.child.pid ?? 0)).toEqual([]);
  });

  it('runs each due worker job exactly once with two workers on the database', async () => {
    const defined = workerJobs(resolveServeConfig({}, { CORDON_UPSTREAM: '127.0.0.1:53' }));
    const jobs = defined.map((j) => j.name);
    const ledger = () => db.db.selectFrom('worker_jobs').select(['name', 'runs', 'last_finished_at']).execute();
    await expect
      .poll(async () => (await ledger()).filter((r) => r.last_finished_at !== null).length, {
        timeout: 60_000,
        interval: 500,
      })
      .toBe(jobs.length);
    const rows = await ledger();
    expect(rows.map((r) => r.name).sort()).toEqual([...jobs].sort());
    // Both workers ticked at start and found every job due; the advisory lock and the claim let one run it.
    // A job due again within the seconds between the two workers' first ticks (webhooks.deliver, every
    // 1 s) is rightly run by the second one too: each worker ticks once in the test (10-minute tick),
    // so such a job runs at most twice, and every job of a minute or more exactly once.
    const intervalOf = new Map(defined.map((j) => [j.name, j.intervalMs]));
    for (const r of rows) {
      const runs = Number(r.runs);
      if ((intervalOf.get(r.name) ?? 0) >= 60_000) expect({ name: r.name, runs }).toEqual({ name: r.name, runs: 1 });
      else expect(runs, r.name).toBeLessThanOrEqual(2);
    }
  }, 90_000);

  it('a resolver restarted with the database unreachable serves its snapshot from disk, then catches up', async () => {
    expect(await stopB()).toBe(0);
    const files = readdirSync(join(dirB, 'snapshot'));
    expect(files).toContain('lists.snap');
    expect(files).toContain('locations.snap');

    await proxy.close();
    const restarted = await serve('resolver', {
      CORDON_DATA_DIR: dirB,
      DATABASE_URL: withDatabase(dbUrl, database, proxy.port),
    });
    expect(restarted.output.join('\n')).toContain('serving the snapshot kept on disk');
    const dns = bootPorts(restarted).dns;
    // The location, its policy and the block list come from disk; allowed names still resolve upstream.
    expect(await ask(dns, 'www.blocked.example')).toEqual({ rcode: 'NOERROR', a: BLOCK_IPV4 });
    expect(await ask(dns, 'still-allowed.example')).toEqual({ rcode: 'NOERROR', a: UPSTREAM_ANSWER });

    // A change while it cannot see the database: resolver A applies it, the restarted one cannot yet.
    const since = performance.now();
    await api('POST', `/policies/${policyId}/domains/block`, { domain: 'later.example', include_subdomains: false });
    await until(dnsA, 'later.example', BLOCK_IPV4, since, 1000);
    expect((await ask(dns, 'later.example')).a).toBe(UPSTREAM_ANSWER);

    // The database returns: the restarted resolver reloads from it (retries back off to at most 10 s).
    const back = performance.now();
    await proxy.reopen();
    const caughtUp = await until(dns, 'later.example', BLOCK_IPV4, back, 15_000);
    expect(caughtUp).toBeLessThan(15_000);
    expect(await ask(dns, 'www.blocked.example')).toEqual({ rcode: 'NOERROR', a: BLOCK_IPV4 });
  }, 120_000);
});
