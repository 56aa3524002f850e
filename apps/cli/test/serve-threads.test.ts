/**
 * `cordon serve` keeps the data plane on its own thread (docs/operations.md "Threads"): a slow API
 * request cannot delay a DNS answer, API changes still reach the resolver within a second (docs/architecture.md
 * §8), and SIGTERM still flushes the query log. Runs the real command as a child process, from the
 * sources (tsx) and as the production bundle.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import dgram from 'node:dgram';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { openDatabase } from '@cordon/db';
import dnsPacket from 'dns-packet';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CordonProcess, REPO_ROOT, SOURCES_CLI, startCordon } from '../../../e2e/support/cordon.ts';
import { authorizeQuery, basic } from '../../api/test/helpers.ts';
import { TEST_WORKER_BUNDLE_ENV } from '../../resolver/src/threads.ts';
import { type FakeUpstream, startFakeUpstream } from '../../resolver/test/helpers/fake-upstream.ts';

const run = promisify(execFile);
/** The production bundle, built for this test under node_modules so its external packages resolve. */
const BUNDLE_DIR = join(REPO_ROOT, 'node_modules', '.cordon-test-serve');
const ADMIN = { email: 'root@cordon.test', password: 'Sup3r-secret' };
/** Query-log rows seeded for the slow history search: ≈ 2 s of SQLite work on a dev box. */
const SEEDED_ROWS = 1_000_000;

/** Ports from the boot line (`http=127.0.0.1:N dns=127.0.0.1:N`); the command ran with port 0. */
function boundPorts(output: string[]): { http: number; dns: number } {
  const line = output.find((l) => l.startsWith('cordon serving:')) ?? '';
  return {
    http: Number(/ http=127\.0\.0\.1:(\d+)/.exec(line)?.[1]),
    dns: Number(/ dns=127\.0\.0\.1:(\d+)/.exec(line)?.[1]),
  };
}

/** RCODE names by value (RFC 1035 §4.1.1). */
const RCODES = ['NOERROR', 'FORMERR', 'SERVFAIL', 'NXDOMAIN', 'NOTIMP', 'REFUSED'];

/** One A query over UDP from 127.0.0.1; `ms` is the round trip measured on this (idle) thread. */
function probe(port: number, name: string): Promise<{ ms: number; rcode: string; answers: unknown[] }> {
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
      reject(new Error(`no answer to ${name} within 5 s`));
    }, 5000);
    let started = 0;
    socket.on('message', (msg) => {
      const ms = performance.now() - started;
      clearTimeout(timer);
      socket.close();
      const answer = dnsPacket.decode(msg);
      const rcode = RCODES[(answer.flags ?? 0) & 0xf] ?? 'OTHER';
      resolve({ ms, rcode, answers: (answer.answers ?? []).map((a) => (a.type === 'A' ? a.data : a.type)) });
    });
    started = performance.now();
    socket.send(query, port, '127.0.0.1');
  });
}

/** A JSON call to the running API. @throws Error with the body on a status ≥ 300 */
async function api<T = { id: number }>(
  httpPort: number,
  token: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<T> {
  const res = await fetch(`http://127.0.0.1:${httpPort}/restapi${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/** Logs the system admin in over HTTP. */
async function login(httpPort: number): Promise<string> {
  const res = await fetch(
    `http://127.0.0.1:${httpPort}/restapi/oauth/authorize?${new URLSearchParams(authorizeQuery())}`,
    { headers: { authorization: basic(ADMIN.email, ADMIN.password) } },
  );
  if (res.status !== 200) throw new Error(`login: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { access_token: string }).access_token;
}

/**
 * As the system admin: an MSP and a customer; then a static-IP location claiming 127.0.0.1/32 (the
 * probes' source), asserting the resolver enforces it within docs/architecture.md "Decision order"'s second.
 * @returns the customer id and the NOERROR probes sent (each one a query-log row)
 */
async function tenantOnLoopback(http: number, dns: number): Promise<{ customerId: number; logged: string[] }> {
  const token = await login(http);
  const msp = await api(http, token, 'POST', '/msp', {
    name: 'MSP',
    company_name: 'MSP Ltd',
    admin_email: 'msp@example.test',
    admin_password: 'Passw0rd!',
  });
  const customer = await api(http, token, 'POST', '/users/', {
    accountName: 'Acme',
    msp_id: msp.id,
    timezone: 'UTC',
    admin_email: 'acme@example.test',
    admin_password: 'Passw0rd!',
  });
  expect((await probe(dns, 'before.example')).rcode).toBe('REFUSED');
  await api(http, token, 'POST', `/users/${customer.id}/locations/staticip`, {
    name: 'Office',
    addresses: ['127.0.0.1/32'],
  });
  const changed = performance.now();
  const logged: string[] = [];
  for (let i = 0; ; i++) {
    const name = `probe-${i}.example`;
    const answer = await probe(dns, name);
    if (answer.rcode === 'NOERROR') {
      expect(answer.answers).toEqual(['192.0.2.10']);
      logged.push(name);
      break;
    }
    expect(performance.now() - changed).toBeLessThan(1000);
  }
  return { customerId: customer.id, logged };
}

/**
 * Inserts `rows` query-log rows for `customerId` over the last ≈ 11 days, 100,000 per statement (a
 * recursive CTE): short write transactions, so the resolver's query-log writer is never locked out
 * past SQLite's busy timeout.
 */
async function seedQueryLog(sqlitePath: string, customerId: number, rows: number): Promise<void> {
  const handle = openDatabase({ sqlitePath });
  // The server's own writes (its roll-up fold of these rows) can hold the lock past the default 5 s on
  // a busy machine; the seed waits its turn (it is the test's setup, not what the test measures).
  handle.sqlite!.pragma('busy_timeout = 60000');
  try {
    const now = Date.now();
    for (let from = 0; from < rows; from += 100_000) {
      const to = Math.min(rows, from + 100_000);
      await sql`insert into query_log (ts, customer_id, location_id, policy_id, client_ip, qname, qtype, protocol,
          action, reason, categories, rcode, answer_source, latency_us)
        with recursive n(i) as (select ${from + 1} union all select i + 1 from n where i < ${to})
        select ${now} - i * 1000, ${customerId}, null, null, '127.0.0.1', 'seeded-' || i || '.example', 'A', 'udp',
          case when i % 3 = 0 then 'blocked' else 'allowed' end, 'category', '', 'NOERROR', 'upstream', 100
        from n`.execute(handle.db);
    }
  } finally {
    await handle.close();
  }
}

describe('cordon serve: the data plane on its own thread', () => {
  let upstream: FakeUpstream;
  const dirs: string[] = [];

  beforeAll(async () => {
    upstream = await startFakeUpstream();
    await run(process.execPath, [join(REPO_ROOT, 'apps/cli/scripts/bundle.mjs'), '--outdir', BUNDLE_DIR], {
      cwd: REPO_ROOT,
    });
  }, 120_000);
  afterAll(async () => {
    await upstream?.close();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  const boot = async (
    entry: string,
    env: NodeJS.ProcessEnv = {},
  ): Promise<{ cordon: CordonProcess; dataDir: string }> => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cordon-serve-'));
    dirs.push(dataDir);
    const cordon = await startCordon(
      {
        CORDON_DATA_DIR: dataDir,
        CORDON_HTTP_ADDR: '127.0.0.1:0',
        CORDON_DNS_ADDR: '127.0.0.1:0',
        CORDON_BLOCKPAGE_ADDR: '127.0.0.1:0',
        CORDON_BLOCKPAGE_HTTPS_ADDR: '127.0.0.1:0',
        CORDON_UPSTREAM: `127.0.0.1:${upstream.port}`,
        CORDON_ADMIN_EMAIL: ADMIN.email,
        CORDON_ADMIN_PASSWORD: ADMIN.password,
        CORDON_LOG_LEVEL: 'warn',
        // From the sources, the threads start from the sources too (not the suite's bundle of them).
        ...(entry === SOURCES_CLI ? { [TEST_WORKER_BUNDLE_ENV]: '' } : {}),
        ...env,
      },
      90_000,
      entry,
    );
    return { cordon, dataDir };
  };

  it.each([
    ['the sources (tsx)', SOURCES_CLI],
    ['the production bundle', join(BUNDLE_DIR, 'cordon.mjs')],
  ])(
    'from %s: answers DNS within 100 ms while a history search runs for seconds',
    async (_, entry) => {
      const { cordon, dataDir } = await boot(entry);
      let stopped = false;
      try {
        const { http, dns } = boundPorts(cordon.output);
        const { customerId, logged } = await tenantOnLoopback(http, dns);
        await seedQueryLog(join(dataDir, 'cordon.sqlite'), customerId, SEEDED_ROWS);
        const token = await login(http);

        // SQLite works on this for most of a second or more (on one of the API's read threads since issue 30,
        // docs/operations.md "Heavy reads"; it held the API thread before): the history
        // search scans the raw rows (the stats calls read roll-ups and are fast).
        let pending = true;
        const sent = performance.now();
        const stats = api<{ total: number }>(
          http,
          token,
          'GET',
          `/users/${customerId}/history/all/30days?q=seeded&order_by=qname&limit=1`,
        ).finally(() => {
          pending = false;
        });
        await new Promise((resolve) => setTimeout(resolve, 300));
        for (let i = 0; i < 5; i++) {
          const name = `during-${i}.example`;
          const answer = await probe(dns, name);
          expect(answer.rcode).toBe('NOERROR');
          expect(answer.ms).toBeLessThan(100);
          // Answered while the search had not completed.
          expect(pending).toBe(true);
          logged.push(name);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        const overview = await stats;
        // The search ran through every probe above (`pending` stayed true).
        expect(performance.now() - sent).toBeGreaterThanOrEqual(500);
        expect(overview.total).toBeGreaterThanOrEqual(SEEDED_ROWS);

        // SIGTERM flushes the data-plane thread's query log before the process exits 0.
        stopped = true;
        expect(await cordon.stop()).toBe(0);
        const handle = openDatabase({ sqlitePath: join(dataDir, 'cordon.sqlite') });
        const rows = await handle.db
          .selectFrom('query_log')
          .select('qname')
          .where('qname', 'not like', 'seeded-%')
          .orderBy('id')
          .execute();
        await handle.close();
        expect(rows.map((r) => r.qname)).toEqual(logged);
      } finally {
        if (!stopped) await cordon.stop();
      }
    },
    180_000,
  );

  /**
   * What starting from the bundle's `files` evaluates: every file they import statically, transitively
   * (dynamic imports, such as the roles' modules, are not followed), and the packages imported.
   */
  const staticClosure = (files: string[]): { files: Set<string>; packages: Set<string> } => {
    const seen = new Set<string>();
    const packages = new Set<string>();
    const visit = (file: string): void => {
      if (seen.has(file)) return;
      seen.add(file);
      const code = readFileSync(join(BUNDLE_DIR, file), 'utf8');
      for (const m of code.matchAll(/^import\s*(?:[^'";]*?\s*from\s*)?"([^"]+)";?$/gms)) {
        const spec = m[1]!;
        if (spec.startsWith('./')) visit(spec.slice(2));
        else packages.add(spec);
      }
    };
    for (const f of files) visit(f);
    return { files: seen, packages };
  };
  /** The bundle's file holding the module `source` (esbuild marks each module with a `// path` line). */
  const fileOf = (source: string): string => {
    const file = readdirSync(BUNDLE_DIR).find(
      (f) => f.endsWith('.mjs') && readFileSync(join(BUNDLE_DIR, f), 'utf8').includes(`\n// ${source}\n`),
    );
    if (file === undefined) throw new Error(`${source} is in no file of the bundle`);
    return file;
  };

  it('the query-log writer thread of the bundle evaluates no Kysely, pg or migrations for a SQLite file', () => {
    // Each isolate evaluates its own copy of what it imports; PostgreSQL's path is a dynamic import.
    const { files, packages } = staticClosure(['querylog-worker.mjs']);
    expect(files.size).toBeGreaterThan(1);
    expect([...packages].sort()).toEqual([
      'better-sqlite3',
      'node:fs',
      'node:module',
      'node:path',
      'node:worker_threads',
    ]);
    const evaluated = [...files].map((f) => readFileSync(join(BUNDLE_DIR, f), 'utf8')).join('\n');
    expect(evaluated).toContain('// apps/resolver/src/querylog/sqlite-raw.ts');
    expect(evaluated).not.toContain('// packages/db/src/migrate.ts');
    // The whole bundle does ship the PostgreSQL path, behind the dynamic import.
    expect(readFileSync(join(BUNDLE_DIR, 'querylog-worker.mjs'), 'utf8')).toMatch(
      /import\("\.\/chunk-[A-Z0-9]+\.mjs"\)/,
    );
  });

  it('a resolver-only process of the bundle evaluates no zod, pg or X.509 code', () => {
    // `cordon serve --roles resolver`: the command, the data plane's host and its run loop (each
    // reached by a dynamic import) and what they import statically; the API's, the worker's and the
    // signing listeners' modules are dynamic imports not taken (bench/README.md "Resolver memory").
    const { files, packages } = staticClosure([
      'cordon.mjs',
      fileOf('apps/cli/src/commands/serve.ts'),
      fileOf('apps/resolver/src/dataplane/host.ts'),
      fileOf('apps/resolver/src/dataplane/run.ts'),
    ]);
    expect(packages).toContain('better-sqlite3');
    const evaluated = [...files].map((f) => readFileSync(join(BUNDLE_DIR, f), 'utf8')).join('\n');
    // A package is imported (EXTERNAL in apps/cli/scripts/bundle.mjs) or taken into the bundle.
    expect(evaluated).toContain('// node_modules/dns-packet/');
    for (const heavy of ['zod', 'pg', 'pg-copy-streams', '@peculiar/x509', 'fastify']) {
      expect(packages).not.toContain(heavy);
      expect(evaluated).not.toContain(`// node_modules/${heavy}/`);
    }
    expect(evaluated).toContain('// packages/policy/src/category-index.ts');
    expect(evaluated).not.toContain('// packages/pki/src/ca.ts');
    expect(evaluated).not.toContain('// packages/shared/src/schemas/');
  });

  it('an API process of the bundle evaluates no PDF or X.509 code until it renders or signs', () => {
    // `cordon serve --roles api`: ≈ 200 ms of CPU a start went to evaluating pdfkit and
    // @peculiar/x509 (docs/contributing.md "Running the tests"); a report's PDF and the root's
    // creation import them when they are needed.
    const { files, packages } = staticClosure([
      'cordon.mjs',
      fileOf('apps/cli/src/commands/serve.ts'),
      fileOf('apps/api/src/app.ts'),
    ]);
    const evaluated = [...files].map((f) => readFileSync(join(BUNDLE_DIR, f), 'utf8')).join('\n');
    expect(evaluated).toContain('// node_modules/fastify/');
    for (const heavy of ['pdfkit', '@peculiar/x509']) {
      expect(packages).not.toContain(heavy);
      expect(evaluated).not.toContain(`// node_modules/${heavy}/`);
    }
    expect(evaluated).toContain('// packages/core/src/reports/pdf.ts');
    expect(evaluated).toContain('// packages/pki/src/download.ts');
    expect(evaluated).not.toContain('// packages/pki/src/ca.ts');
  });
});
