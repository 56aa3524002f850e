/**
 * Losing and regaining PostgreSQL (issue 30; docs/operations.md "When the database goes away";
 * docs/security.md "Availability under hostile clients and heavy use"): every role of `cordon serve`
 * survives its connections being cut — through a loopback TCP proxy the test closes (every socket
 * destroyed, new connections refused) and reopens — and being terminated by the server
 * (`pg_terminate_backend`, what a restart or a failover does). Meanwhile the resolver answers from its
 * snapshot and keeps its query log, the API answers 503 `ERR_UNAVAILABLE`; afterwards the API answers
 * and logs in again, a change reaches DNS, the query log of the outage is in the database and the
 * worker folds it. Run on the all-in-one process and on the `--roles` split (API, resolver and block
 * page, worker). Needs a PostgreSQL server (`CORDON_TEST_DATABASE_URL`, which CI sets).
 */
import { randomBytes } from 'node:crypto';
import dgram from 'node:dgram';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DatabaseHandle, openDatabase } from '@cordon/db';
import dnsPacket from 'dns-packet';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, type CordonProcess, startCordon } from '../../../e2e/support/cordon.ts';
import { type PgProxy, pgTarget, startPgProxy } from '../../../packages/db/test/helpers/pg-proxy.ts';
import { authorizeQuery, basic } from '../../api/test/helpers.ts';
import { type FakeUpstream, startFakeUpstream } from '../../resolver/test/helpers/fake-upstream.ts';

const PG = process.env.CORDON_TEST_DATABASE_URL;
const ADMIN = { email: 'root@outage.test', password: 'Sup3r-secret' };
const BLOCK_IPV4 = '198.51.100.9';
const UPSTREAM_ANSWER = '192.0.2.10'; // the fake upstream's A answer

/** RCODE names by value (RFC 1035 §4.1.1). */
const RCODES = ['NOERROR', 'FORMERR', 'SERVFAIL', 'NXDOMAIN', 'NOTIMP', 'REFUSED'];

/** One A query over UDP from 127.0.0.1: the rcode and the first A answer ('' when none). @throws after 2 s without an answer */
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
      reject(new Error(`no answer to ${name} from port ${port} within 2 s`));
    }, 2000);
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

/** Polls `probe` every 100 ms until it returns true. @throws with `what` and the last value after `limitMs` */
async function until(what: string, probe: () => Promise<unknown>, limitMs: number): Promise<void> {
  const deadline = performance.now() + limitMs;
  let last: unknown;
  while (performance.now() < deadline) {
    last = await probe().catch((err: unknown) => err);
    if (last === true) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what}: not within ${limitMs} ms (last: ${String(last)})`);
}

/** `url` with its database name (and port) replaced. */
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

/** One deployment on its own database, reached through its own proxy: the processes of `roles`, one per entry. */
function deployment(name: string, roleSets: readonly string[]) {
  const database = `cordon_outage_${name}_${randomBytes(4).toString('hex')}`;
  const caSecret = randomBytes(32).toString('base64url');
  const dirs: string[] = [];
  const processes: CordonProcess[] = [];
  let upstream: FakeUpstream;
  let proxy: PgProxy;
  let direct: DatabaseHandle;
  let apiPort = 0;
  let dnsPort = 0;
  let token = '';
  let policyId = 0;

  const serve = async (roles: string): Promise<CordonProcess> => {
    const dataDir = mkdtempSync(join(tmpdir(), `cordon-outage-${name}-`));
    dirs.push(dataDir);
    const p = await startCordon(
      {
        CORDON_ROLES: roles,
        DATABASE_URL: withDatabase(PG ?? '', database, proxy.port),
        CORDON_DATA_DIR: dataDir,
        CORDON_CA_SECRET: caSecret,
        CORDON_HTTP_ADDR: '127.0.0.1:0',
        CORDON_DNS_ADDR: '127.0.0.1:0',
        CORDON_BLOCKPAGE_ADDR: '127.0.0.1:0',
        CORDON_BLOCKPAGE_HTTPS_ADDR: '127.0.0.1:0',
        CORDON_UPSTREAM: `127.0.0.1:${upstream.port}`,
        CORDON_BLOCK_IPV4: BLOCK_IPV4,
        CORDON_ADMIN_EMAIL: ADMIN.email,
        CORDON_ADMIN_PASSWORD: ADMIN.password,
        CORDON_LOG_LEVEL: 'warn',
      },
      90_000,
      CLI,
    );
    processes.push(p);
    return p;
  };

  const login = () =>
    fetch(`http://127.0.0.1:${apiPort}/restapi/oauth/authorize?${new URLSearchParams(authorizeQuery())}`, {
      headers: { authorization: basic(ADMIN.email, ADMIN.password) },
    });
  const call = (method: string, path: string, body?: unknown) =>
    fetch(`http://127.0.0.1:${apiPort}/restapi${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
  const api = async <T = { id: number }>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await call(method, path, body);
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  };
  const logged = async (prefix: string): Promise<number> =>
    Number(
      (
        await direct.db
          .selectFrom('query_log')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('qname', 'like', `${prefix}%`)
          .executeTakeFirstOrThrow()
      ).n,
    );
  const rolledUp = async (prefix: string): Promise<number> =>
    Number(
      (
        await direct.db
          .selectFrom('stats_hourly_top')
          .select((eb) => eb.fn.sum<number>('count').as('n'))
          .where('dim', '=', 'domain')
          .where('key', 'like', `${prefix}%`)
          .executeTakeFirstOrThrow()
      ).n ?? 0,
    );
  /** Asserts every process still runs; else fails with the output of those that exited. */
  const expectAllAlive = () => {
    const dead = processes.filter((p) => p.child.exitCode !== null || p.child.signalCode !== null);
    expect(
      dead.map((p) => `exited ${p.child.exitCode ?? p.child.signalCode}:\n${p.output.slice(-30).join('\n')}`),
    ).toEqual([]);
  };

  /** Asks names `prefix` + `from`…`to − 1` while the outage lasts: each answered, allowed and blocked alike. */
  const answersMeanwhile = async (prefix: string, from: number, to: number) => {
    for (let i = from; i < to; i++) {
      expect(await ask(dnsPort, `${prefix}${i}.example`)).toEqual({ rcode: 'NOERROR', a: UPSTREAM_ANSWER });
      expect(await ask(dnsPort, 'www.blocked.example')).toEqual({ rcode: 'NOERROR', a: BLOCK_IPV4 });
    }
  };

  /** After the database came back: the API and logins answer, a change reaches DNS, the outage's log is written and folded. */
  const recovers = async (prefix: string, domain: string, rows: number) => {
    await until('the API answers again', async () => (await call('GET', '/auth/profile')).status === 200, 30_000);
    const again = await login();
    expect(again.status).toBe(200);
    await api('POST', `/policies/${policyId}/domains/block`, { domain, include_subdomains: false });
    await until(`${domain} blocked on the resolver`, async () => (await ask(dnsPort, domain)).a === BLOCK_IPV4, 15_000);
    await until(`the query log of ${prefix}* written`, async () => (await logged(prefix)) === rows, 30_000);
    await until(
      `the query log of ${prefix}* folded by the worker`,
      async () => (await rolledUp(prefix)) === rows,
      30_000,
    );
    expectAllAlive();
  };

  beforeAll(async () => {
    const admin = openDatabase({ url: PG, pgPoolSize: 1 });
    await sql`create database ${sql.id(database)}`.execute(admin.db);
    await admin.close();
    direct = openDatabase({ url: withDatabase(PG ?? '', database), pgPoolSize: 2 });
    upstream = await startFakeUpstream();
    proxy = await startPgProxy(pgTarget(PG ?? ''));
    // The process with the API first: it migrates the database and creates the system admin.
    const [first, ...rest] = roleSets;
    const started = [await serve(first!), ...(await Promise.all(rest.map((r) => serve(r))))];
    for (const p of started) {
      const ports = bootPorts(p);
      const roles = roleSets[started.indexOf(p)]!;
      if (roles.includes('api')) apiPort = ports.http;
      if (roles.includes('resolver')) dnsPort = ports.dns;
    }
    const res = await login();
    expect(res.status).toBe(200);
    token = ((await res.json()) as { access_token: string }).access_token;
    const msp = await api('POST', '/msp', { name: `Outage MSP ${name}`, company_name: 'Outage Ltd' });
    const customer = await api('POST', '/users/', { accountName: `Outage ${name}`, msp_id: msp.id, timezone: 'UTC' });
    policyId = (await api('POST', '/policies', { user_id: customer.id, name: 'Outage policy', filtering_level: 'low' }))
      .id;
    await api('POST', `/users/${customer.id}/locations/staticip`, {
      name: 'Office',
      policy_id: policyId,
      addresses: ['127.0.0.1/32'],
    });
    await api('POST', `/policies/${policyId}/domains/block`, { domain: 'blocked.example', include_subdomains: true });
    await until(
      'the block reaches the resolver',
      async () => (await ask(dnsPort, 'www.blocked.example')).a === BLOCK_IPV4,
      15_000,
    );
  }, 240_000);

  afterAll(async () => {
    await Promise.all(processes.map((p) => (p.child.exitCode === null ? p.stop() : null)));
    await proxy?.close();
    await upstream?.close();
    await direct?.close();
    const admin = openDatabase({ url: PG, pgPoolSize: 1 });
    await sql`drop database if exists ${sql.id(database)} with (force)`.execute(admin.db);
    await admin.close();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it('keeps answering DNS and answers 503 on the API while the connection is cut, then recovers', async () => {
    expect(apiPort).toBeGreaterThan(0);
    expect(dnsPort).toBeGreaterThan(0);
    await proxy.cut();
    try {
      await until('the API answers 503', async () => (await call('GET', '/auth/profile')).status === 503, 10_000);
      const down = await call('GET', '/auth/profile');
      expect(down.status).toBe(503);
      expect(down.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(await down.json()).toEqual({
        code: 'ERR_UNAVAILABLE',
        error: 'Service unavailable: the database cannot be reached. Please try again shortly.',
      });
      expect((await login()).status).toBe(503);
      await answersMeanwhile('cut-', 0, 5);
      // Long enough for every pool, the LISTEN connection and the query-log writer to have failed at least once.
      await new Promise((r) => setTimeout(r, 1500));
      await answersMeanwhile('cut-', 5, 10);
      expectAllAlive();
    } finally {
      await proxy.restore();
    }
    await recovers('cut-', 'after-cut.example', 10);
  }, 120_000);

  it('survives pg_terminate_backend of every connection and recovers', async () => {
    const terminate = async () => {
      const killed = await sql<{ n: number }>`select count(*)::int as n from (
          select pg_terminate_backend(pid) from pg_stat_activity
          where datname = ${database} and pid <> pg_backend_pid()) t`.execute(direct.db);
      return killed.rows[0]?.n ?? 0;
    };
    // The test's own connection is on the same database: it survives (pg_backend_pid), every other is cut.
    expect(await terminate()).toBeGreaterThan(0);
    await answersMeanwhile('terminated-', 0, 10);
    // Again while the processes reconnect and work: connections terminated mid-query, mid-COPY, mid-LISTEN.
    for (const pauseMs of [50, 150, 300, 600, 1000]) {
      await new Promise((r) => setTimeout(r, pauseMs));
      await terminate();
      expect(await ask(dnsPort, 'www.blocked.example')).toEqual({ rcode: 'NOERROR', a: BLOCK_IPV4 });
      expect([200, 503]).toContain((await call('GET', '/auth/profile')).status);
    }
    for (let i = 0; i < 10; i++) {
      const res = await call('GET', '/auth/profile');
      // Never a 500: the moment the pool finds its connection gone is a 503 at worst.
      expect([200, 503]).toContain(res.status);
    }
    expectAllAlive();
    await recovers('terminated-', 'after-terminate.example', 10);
  }, 120_000);
}

describe.runIf(PG)('losing PostgreSQL: cordon serve with every role in one process', () => {
  deployment('all', ['api,resolver,blockpage,worker']);
});

describe.runIf(PG)('losing PostgreSQL: --roles api, resolver,blockpage and worker as three processes', () => {
  deployment('split', ['api', 'resolver,blockpage', 'worker']);
});
