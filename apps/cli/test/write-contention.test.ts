/**
 * API writes under DNS load (issue 30, "API writes fail under DNS load"; docs/security.md
 * "Durability"): a real `cordon serve` on a SQLite file answers DNS over loopback UDP at ≈ 800
 * queries/s — so its query-log writer thread commits beside the API all along — while 1,200 API
 * writes that read and then write in one transaction (list entry adds, policy updates, location
 * edits) are made, 8 at a time. Every one must succeed: a writer waits its turn for SQLite's write
 * lock (docs/decisions.md "SQLite write transactions begin IMMEDIATE"), none answers 500
 * `SQLITE_BUSY`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { openDatabase } from '@cordon/db';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CLI, type CordonProcess, startCordon } from '../../../e2e/support/cordon.ts';
import { authorizeQuery, basic } from '../../api/test/helpers.ts';
import { type FakeUpstream, startFakeUpstream } from '../../resolver/test/helpers/fake-upstream.ts';

const ADMIN = { email: 'root@contention.test', password: 'Sup3r-secret' };
/** The finding's DNS load, queries a second. */
const QUERIES_PER_SECOND = 800;
/** The finding's API writes, and how many are in flight at once. */
const WRITES = 1_200;
const CONCURRENT_WRITES = 8;

/**
 * The DNS load, on a thread of its own so that the API calls on this thread never slow it: every
 * 10 ms, `perTick` A queries over loopback UDP from four sockets for names `load-<n>.example` (cycling over 500), until
 * told `stop`; then, once the stragglers had a second, posts `{ sent, answered }`.
 */
const LOAD = `
const { parentPort, workerData } = require('node:worker_threads');
const dgram = require('node:dgram');
const { port, perTick } = workerData;
// Several source ports, so the kernel spreads the load over the resolving threads.
const sockets = [0, 1, 2, 3].map(() => dgram.createSocket('udp4'));
let sent = 0;
let answered = 0;
let stopping = false;
for (const s of sockets) s.on('message', () => { answered++; });
parentPort.on('message', () => { stopping = true; });
function query(id, name) {
  const labels = name.split('.').map((l) => Buffer.concat([Buffer.from([l.length]), Buffer.from(l, 'ascii')]));
  const header = Buffer.alloc(12);
  header.writeUInt16BE(id, 0);
  header.writeUInt16BE(0x0100, 2);
  header.writeUInt16BE(1, 4);
  return Buffer.concat([header, ...labels, Buffer.from([0, 0, 1, 0, 1])]);
}
const started = performance.now();
function tick() {
  if (stopping) {
    setTimeout(() => { parentPort.postMessage({ sent, answered }); for (const s of sockets) s.close(); }, 1000);
    return;
  }
  // Catch up to the rate by the wall clock: a late timer sends the queries it owes.
  const due = Math.floor(((performance.now() - started) / 10) * perTick);
  while (sent < due) {
    sockets[sent % 4].send(query((sent % 65535) + 1, 'load-' + (sent % 500) + '.example'), port, '127.0.0.1');
    sent++;
  }
  setTimeout(tick, 10);
}
tick();
`;

/** Starts {@link LOAD} against `port`; `stop()` resolves with the queries sent and answered. */
function startLoad(port: number): { stop(): Promise<{ sent: number; answered: number }> } {
  const worker = new Worker(LOAD, { eval: true, workerData: { port, perTick: QUERIES_PER_SECOND / 100 } });
  const result = new Promise<{ sent: number; answered: number }>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  return {
    async stop() {
      worker.postMessage('stop');
      const r = await result;
      await worker.terminate();
      return r;
    },
  };
}

/** The ports of the boot line (`http=127.0.0.1:N dns=127.0.0.1:N`); the command ran with port 0. */
function bootPorts(p: CordonProcess): { http: number; dns: number } {
  const line = p.output.find((l) => l.startsWith('cordon serving:')) ?? '';
  return {
    http: Number(/ http=127\.0\.0\.1:(\d+)/.exec(line)?.[1]),
    dns: Number(/ dns=127\.0\.0\.1:(\d+)/.exec(line)?.[1]),
  };
}

let upstream: FakeUpstream;
let cordon: CordonProcess;
let dataDir: string;
let http = 0;
let dns = 0;
let token = '';

/** One API call as the system admin: its status and body text. */
async function call(method: string, path: string, body?: unknown): Promise<{ status: number; text: string }> {
  const res = await fetch(`http://127.0.0.1:${http}/restapi${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, text: await res.text() };
}

/** {@link call} for the set-up: the parsed body. @throws Error with the body on a status ≥ 300 */
async function api<T = { id: number }>(method: string, path: string, body?: unknown): Promise<T> {
  const { status, text } = await call(method, path, body);
  if (status >= 300) throw new Error(`${method} ${path}: ${status} ${text}`);
  return JSON.parse(text) as T;
}

/** Rows in the query log for the load's names. */
async function loggedLoad(): Promise<number> {
  const handle = openDatabase({ sqlitePath: join(dataDir, 'cordon.sqlite') });
  try {
    const r = await handle.db
      .selectFrom('query_log')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('qname', 'like', 'load-%')
      .executeTakeFirstOrThrow();
    return Number(r.n);
  } finally {
    await handle.close();
  }
}

beforeAll(async () => {
  upstream = await startFakeUpstream();
  dataDir = mkdtempSync(join(tmpdir(), 'cordon-contention-'));
  cordon = await startCordon(
    {
      CORDON_DATA_DIR: dataDir,
      CORDON_HTTP_ADDR: '127.0.0.1:0',
      CORDON_DNS_ADDR: '127.0.0.1:0',
      CORDON_BLOCKPAGE_ADDR: '127.0.0.1:0',
      CORDON_BLOCKPAGE_HTTPS_ADDR: '127.0.0.1:0',
      CORDON_UPSTREAM: `127.0.0.1:${upstream.port}`,
      // The load comes from one address: response-rate limiting would drop most of it.
      CORDON_RRL_RATE: '0',
      // Two resolving threads, each with its query-log writer thread committing beside the API, behind
      // the production default's idle gate (docs/decisions.md "SQLite write transactions begin IMMEDIATE").
      CORDON_RESOLVER_THREADS: '2',
      CORDON_QUERY_LOG_WRITER: 'idle',
      CORDON_ADMIN_EMAIL: ADMIN.email,
      CORDON_ADMIN_PASSWORD: ADMIN.password,
      CORDON_LOG_LEVEL: 'warn',
    },
    90_000,
    CLI,
  );
  ({ http, dns } = bootPorts(cordon));
  const res = await fetch(`http://127.0.0.1:${http}/restapi/oauth/authorize?${new URLSearchParams(authorizeQuery())}`, {
    headers: { authorization: basic(ADMIN.email, ADMIN.password) },
  });
  expect(res.status).toBe(200);
  token = ((await res.json()) as { access_token: string }).access_token;
}, 120_000);

afterAll(async () => {
  if (cordon?.child.exitCode === null) await cordon.stop();
  await upstream?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

it('makes 1,200 read-then-write API changes, none failed, while the query log is written at ≈ 800 queries/s', async () => {
  const msp = await api('POST', '/msp', { name: 'Contention MSP', company_name: 'Contention Ltd' });
  const customer = await api('POST', '/users/', { accountName: 'Contention', msp_id: msp.id, timezone: 'UTC' });
  const policies: number[] = [];
  for (let i = 0; i < 4; i++) {
    policies.push(
      (await api('POST', '/policies', { user_id: customer.id, name: `Policy ${i}`, filtering_level: 'low' })).id,
    );
  }
  // The load's source is 127.0.0.1; the other locations only get renamed.
  const locations: number[] = [];
  for (let i = 0; i < 4; i++) {
    const loc = await api('POST', `/users/${customer.id}/locations/staticip`, {
      name: `Office ${i}`,
      policy_id: policies[i],
      addresses: [`127.0.0.${i + 1}/32`],
    });
    locations.push(loc.id);
  }
  const before = await loggedLoad();
  const load = startLoad(dns);
  // Let the load reach the query log before the writes start.
  await new Promise((r) => setTimeout(r, 1_000));

  const failures: string[] = [];
  let next = 0;
  const writer = async () => {
    for (let i = next++; i < WRITES; i = next++) {
      const kind = i % 3;
      const r =
        kind === 0
          ? await call('POST', `/policies/${policies[i % 4]}/domains/block`, {
              domain: `contention-${i}.example`,
              include_subdomains: true,
            })
          : kind === 1
            ? await call('PUT', `/policies/${policies[i % 4]}`, { description: `Revision ${i}` })
            : await call('POST', `/users/${customer.id}/locations/staticip/${locations[i % 4]}`, {
                name: `Office ${i}`,
              });
      if (r.status >= 300) failures.push(`write ${i}: ${r.status} ${r.text.slice(0, 200)}`);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENT_WRITES }, writer));
  // The query log was written meanwhile (a commit every 500 ms per writer thread): what the writes met.
  const loggedDuring = (await loggedLoad()) - before;
  const { sent, answered } = await load.stop();

  const busy = cordon.output.filter((l) => l.includes('SQLITE_BUSY')).length;
  expect(
    failures,
    `${failures.length} of ${WRITES} writes failed, ${busy} SQLITE_BUSY lines logged; ${failures.slice(0, 5).join('\n')}`,
  ).toEqual([]);
  expect(answered / sent, `${answered} of ${sent} queries answered`).toBeGreaterThan(0.95);
  expect(loggedDuring, `${loggedDuring} load queries logged while the writes ran`).toBeGreaterThanOrEqual(1_000);
  // Every answered query is logged, once the writer threads caught up.
  await expect
    .poll(async () => (await loggedLoad()) - before, { timeout: 15_000, interval: 250 })
    .toBeGreaterThanOrEqual(answered);
  // Every acknowledged change is in the database: the list entries and the last revisions.
  const entries = await api<{ data: unknown[]; total: number }>(
    'GET',
    `/policies/${policies[0]}/domains/block?limit=1000`,
  );
  expect(entries.total).toBe(Math.ceil(WRITES / 12));
}, 90_000);
