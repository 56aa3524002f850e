/**
 * One tenant's heavy history search must not stall the other tenants' API calls (issue 30, "One
 * tenant stalls everyone's API"; docs/security.md "Availability under hostile clients and heavy
 * use"). One customer's query log holds 1.6 million rows over 30 days; its admin runs four 30-day
 * searches at once on a real listening API (the console's history page in a few tabs; as many as the
 * test database's pool has connections, which they all held before the read pool), while a
 * thread of its own asks `GET /restapi/auth/profile` as another MSP's admin every 20 ms over HTTP,
 * so the searches never delay its clock. Every one of those calls must be answered within 100 ms
 * plus the machine's own noise meanwhile, measured by a thread that shares nothing with the API (a
 * few ms on a quiet machine); on a host so busy with other work that no such bound holds, within
 * half the time the shortest search took (a call that waits for a search takes about as long as
 * it). Another customer's own search must answer within a second (plus that noise). Each heavy search
 * must answer its page with the right total, or the clear time-out error within its bound. A second
 * case runs a search past a short bound: 503 `ERR_QUERY_TIMEOUT` in time, then the next search
 * answers normally. On the commit before the read pool the profile calls waited 2–6 s.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { createChangeFeed, type DatabaseHandle, migrateToLatest, openDatabase } from '@cordon/db';
import { createTestDatabase, testDialects } from '@cordon/db/testing';
import { createSecretBox } from '@cordon/pki';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, createTenant, login, type TenantFixture, type TestApp } from '../../../test/helpers.ts';
import { buildApp, ensureSystemAdmin } from '../../index.ts';

/** Rows of the heavy customer's query log (the finding's 1.6 M). */
const ROWS = 1_600_000;
/** The app clock: the searches' "30days" ends here (2025-06-15T12:00Z). */
const NOW = Date.UTC(2025, 5, 15, 12, 0, 0);
/** The rows span the 29 days before {@link NOW}, all inside "30days". */
const SPAN_MS = 29 * 86_400_000;
/** Searches the heavy tenant runs at once. */
const HEAVY = 4;
/** The promise: another tenant's call answered within this many ms. */
const DEADLINE_MS = 100;
/** One profile call every this many ms. */
const SAMPLE_EVERY_MS = 20;
/** The bound on a heavy read in the first case, ms. */
const READ_TIMEOUT_MS = 8_000;
/** The search text: `site7…` qnames, 111 of every 1,000 rows (`i % 1000` of 7, 70–79, 700–799). */
const Q = 'site7';

/** Rows `i` of the heavy customer whose qname `site<i % 1000>.example` contains {@link Q}. */
function expectedMatches(): number {
  let n = 0;
  for (let k = 0; k < 1000; k++) if (`site${k}`.includes(Q)) n += 1;
  return (ROWS / 1000) * n;
}

/**
 * The sampler, on a thread of its own: `GET url` with `token` every `everyMs` until told `stop`,
 * then posts each call as `[due, ms]`: when it was due (epoch ms) and its round trip from then
 * (null: failed or not 200).
 */
const SAMPLER = `
const { parentPort, workerData } = require('node:worker_threads');
const { url, token, everyMs } = workerData;
const now = () => performance.timeOrigin + performance.now();
const pending = [];
const results = [];
let stopping = false;
parentPort.on('message', () => { stopping = true; });
function tick(i, due) {
  if (stopping) {
    Promise.allSettled(pending).then(() => parentPort.postMessage(results));
    return;
  }
  results[i] = [due, null];
  pending.push(
    fetch(url, { headers: { authorization: 'Bearer ' + token } })
      .then(async (res) => { await res.arrayBuffer(); if (res.status === 200) results[i][1] = now() - due; })
      .catch(() => {}),
  );
  const next = due + everyMs;
  setTimeout(() => tick(i + 1, next), Math.max(0, next - now()));
}
tick(0, now());
`;

/** One sampled call: when it was due (epoch ms) and its round trip, ms (null: failed). */
type Sample = [due: number, ms: number | null];

/** Starts {@link SAMPLER}; `stop()` resolves with the calls. */
function startSampler(url: string, token: string): { stop(): Promise<Sample[]> } {
  const worker = new Worker(SAMPLER, { eval: true, workerData: { url, token, everyMs: SAMPLE_EVERY_MS } });
  const results = new Promise<Sample[]>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  return {
    async stop() {
      worker.postMessage('stop');
      const r = await results;
      await worker.terminate();
      return r;
    },
  };
}

/**
 * The machine's own noise, measured where neither the API nor the searches are: a thread that, over
 * and over until told `stop`, waits 5 ms and, with PostgreSQL, then asks the server `select 1` three
 * times on a connection of its own (a profile call makes three round trips); it posts `[at, ms]`
 * for each turn: how late it woke plus those round trips (epoch ms). On a machine busy with other
 * work (other suites beside this one) this grows, and the API's answers are delayed as much; the API
 * blocking its own loop or waiting for a pooled connection does not show here.
 */
const CLOCK = `
const { parentPort, workerData } = require('node:worker_threads');
const now = () => performance.timeOrigin + performance.now();
const turns = [];
let stopping = false;
parentPort.on('message', () => { stopping = true; });
async function run() {
  let client = null;
  if (workerData.pg) {
    const { Client } = require(workerData.pg.driver);
    client = new Client({ connectionString: workerData.pg.url });
    await client.connect();
  }
  while (!stopping) {
    const at = now();
    await new Promise((r) => setTimeout(r, 5));
    let ms = now() - at - 5;
    if (client) {
      const asked = now();
      for (let i = 0; i < 3; i++) await client.query('select 1');
      ms += now() - asked;
    }
    turns.push([at, ms]);
  }
  if (client) await client.end();
  parentPort.postMessage(turns);
}
run();
`;

/** Starts {@link CLOCK} (with `pgUrl`: its `select 1` too); `stop()` resolves with its `[at, ms]`. */
function startClock(pgUrl?: string): { stop(): Promise<Array<[number, number]>> } {
  const pg = pgUrl ? { driver: createRequire(import.meta.url).resolve('pg'), url: pgUrl } : undefined;
  const worker = new Worker(CLOCK, { eval: true, workerData: { pg } });
  const results = new Promise<Array<[number, number]>>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  return {
    async stop() {
      worker.postMessage('stop');
      const r = await results;
      await worker.terminate();
      return r;
    },
  };
}

/** The worst round trip of `samples`, ms (Infinity when one failed). */
function worst(samples: readonly Sample[]): number {
  return Math.max(0, ...samples.map(([, ms]) => ms ?? Number.POSITIVE_INFINITY));
}

/** Fills the customer's query log with {@link ROWS} rows in one statement or transaction. */
async function fillQueryLog(handle: DatabaseHandle, customerId: number): Promise<void> {
  if (handle.dialect === 'postgres') {
    await sql`insert into query_log (ts, customer_id, client_ip, qname, qtype, protocol, action, reason,
        categories, rcode, answer_source, latency_us)
      select ${sql.lit(NOW)}::bigint - 1 - (g::bigint * ${sql.lit(SPAN_MS)} / ${sql.lit(ROWS)}), ${customerId}, '10.1.' || (g / 256 % 256) || '.' || (g % 256),
        'site' || (g % 1000) || '.example', 'A', 'udp', case when g % 10 = 0 then 'blocked' else 'allowed' end,
        'default', '', 'NOERROR', 'upstream', 100
      from generate_series(0, ${sql.lit(ROWS - 1)}) g`.execute(handle.db);
    await sql`analyze query_log`.execute(handle.db);
    return;
  }
  const db = handle.sqlite!;
  const insert = db.prepare(`insert into query_log (ts, customer_id, client_ip, qname, qtype, protocol, action,
      reason, categories, rcode, answer_source, latency_us)
    values (?, ?, ?, ?, 'A', 'udp', ?, 'default', '', 'NOERROR', 'upstream', 100)`);
  db.transaction(() => {
    for (let g = 0; g < ROWS; g++) {
      insert.run(
        NOW - 1 - Math.floor((g * SPAN_MS) / ROWS),
        customerId,
        `10.1.${(g >> 8) & 255}.${g & 255}`,
        `site${g % 1000}.example`,
        g % 10 === 0 ? 'blocked' : 'allowed',
      );
    }
  })();
}

describe.each(testDialects())('a heavy history search on %s', (dialect) => {
  let handle: DatabaseHandle;
  let dir = '';
  let app: FastifyInstance;
  let base = '';
  let heavy: TenantFixture;
  let other: TenantFixture;
  /** One signing key for every app of the file, so the tenants' tokens hold on each. */
  const jwtSecret = new Uint8Array(randomBytes(32));

  /** An app on `handle` (heavy reads bounded by `timeoutMs`), listening on loopback, with the system admin logged in. */
  async function start(timeoutMs: number): Promise<{ app: FastifyInstance; base: string; rootToken: string }> {
    const built = await buildApp({
      db: handle,
      changes: createChangeFeed(handle),
      jwtSecret,
      secrets: createSecretBox(randomBytes(32)),
      now: () => NOW,
      heavyReads: { timeoutMs },
    });
    await built.listen({ host: '127.0.0.1', port: 0 });
    const { port } = built.server.address() as AddressInfo;
    return {
      app: built,
      base: `http://127.0.0.1:${port}/restapi`,
      rootToken: await login(built, ADMIN.email, ADMIN.password),
    };
  }

  beforeAll(async () => {
    if (dialect === 'sqlite') {
      // A file, as `cordon serve` opens it: other connections (threads) can read it too.
      dir = mkdtempSync(join(tmpdir(), 'cordon-heavy-'));
      handle = openDatabase({ sqlitePath: join(dir, 'cordon.sqlite') });
      await migrateToLatest(handle);
    } else {
      handle = await createTestDatabase('postgres');
    }
    await ensureSystemAdmin(handle, { email: ADMIN.email, password: ADMIN.password });
    const started = await start(READ_TIMEOUT_MS);
    app = started.app;
    base = started.base;
    const t = { app, handle, rootToken: started.rootToken } as TestApp;
    heavy = await createTenant(t, 1);
    other = await createTenant(t, 2);
    await fillQueryLog(handle, heavy.customerId);
  }, 120_000);

  afterAll(async () => {
    await app?.close();
    await handle?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** One 30-day search of `customerId`'s history over HTTP: status, body and how long it took, ms. */
  async function search(url: string, customerId = heavy.customerId, token = heavy.customerToken) {
    const started = performance.now();
    const res = await fetch(`${url}/users/${customerId}/history/all/30days?q=${Q}&limit=50`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const body = (await res.json()) as { total?: number; data?: unknown[]; code?: string; error?: string };
    return { status: res.status, body, ms: performance.now() - started };
  }

  it(`answers another MSP's admin within ${DEADLINE_MS} ms while ${HEAVY} heavy searches run`, async () => {
    const clock = startClock(dialect === 'postgres' ? process.env.CORDON_TEST_DATABASE_URL : undefined);
    const sampler = startSampler(`${base}/auth/profile`, other.mspToken);
    // The same calls on a quiet API first, for comparison.
    await new Promise((r) => setTimeout(r, 500));
    const from = performance.timeOrigin + performance.now();
    const loop = monitorEventLoopDelay({ resolution: 10 });
    loop.enable();
    const heavySearches = Promise.all(Array.from({ length: HEAVY }, () => search(base)));
    // Meanwhile the other customer searches its own history: it does not queue behind the heavy ones.
    await new Promise((r) => setTimeout(r, 300));
    const own = await search(base, other.customerId, other.customerToken);
    const searches = await heavySearches;
    const to = performance.timeOrigin + performance.now();
    loop.disable();
    const samples = await sampler.stop();
    const noise = Math.max(0, ...(await clock.stop()).filter(([at]) => at >= from && at <= to).map(([, ms]) => ms));
    const quiet = samples.filter(([due]) => due < from);
    const during = samples.filter(([due]) => due >= from && due <= to);
    // The other tenant never waits for a search: 100 ms plus what the machine itself (and the database
    // server) delayed meanwhile work that shares nothing with the API — a few ms on a quiet machine —
    // or, on one so busy with other work that no such bound holds (other suites beside this one), half
    // the time the shortest search took. A call that waited for a search took about as long as it.
    const shortest = Math.min(...searches.map((s) => s.ms));
    const allowed = Math.max(DEADLINE_MS + noise, shortest / 2);
    console.log(
      `${dialect}: heavy searches ${searches.map((s) => `${s.status} in ${Math.round(s.ms)} ms`).join(', ')}; ` +
        `the other customer's search ${own.status} in ${Math.round(own.ms)} ms; ` +
        `the other MSP admin's profile: worst ${Math.round(worst(during))} ms over ${during.length} calls during ` +
        `the searches (slowest ${during
          .map(([, ms]) => Math.round(ms ?? -1))
          .sort((a, b) => b - a)
          .slice(0, 5)
          .join(', ')}), ${Math.round(worst(quiet))} ms over ${quiet.length} calls before; ` +
        `the API's event loop late by at most ${Math.round(loop.max / 1e6)} ms, the machine's own noise ` +
        `${Math.round(noise)} ms; allowed ${Math.round(allowed)} ms`,
    );
    expect(during.length).toBeGreaterThan(10);
    expect(
      during.filter(([, ms]) => ms === null),
      'every call of the other tenant answered 200',
    ).toEqual([]);
    expect(worst(during), "the other tenant's worst latency during the heavy searches, ms").toBeLessThan(allowed);
    expect({ status: own.status, total: own.body.total }).toEqual({ status: 200, total: 0 });
    expect(own.ms).toBeLessThan(1_000 + noise);
    for (const s of searches) {
      if (s.status === 200) {
        expect(s.body.total).toBe(expectedMatches());
        expect(s.body.data).toHaveLength(50);
      } else {
        expect({ status: s.status, code: s.body.code }).toEqual({ status: 503, code: 'ERR_QUERY_TIMEOUT' });
        expect(s.ms).toBeLessThan(READ_TIMEOUT_MS + 1_000);
      }
    }
  }, 60_000);

  it('answers ERR_QUERY_TIMEOUT within a short bound, then searches again', async () => {
    const bound = 150;
    const short = await start(bound);
    try {
      // Sorted by name, the whole month is read and sorted: far more than 150 ms.
      const url = `${short.base}/users/${heavy.customerId}/history/all/30days?q=site&order_by=qname`;
      const started = performance.now();
      const res = await fetch(url, { headers: { authorization: `Bearer ${heavy.customerToken}` } });
      const ms = performance.now() - started;
      expect({ status: res.status, body: await res.json() }).toEqual({
        status: 503,
        body: {
          code: 'ERR_QUERY_TIMEOUT',
          error:
            'The search took too long and was stopped. Narrow it: a shorter period, a more specific search text, or sort by time.',
        },
      });
      expect(ms).toBeLessThan(bound + 1_000);
      // The pool is free again: a one-day search answers.
      const day = await fetch(`${short.base}/users/${heavy.customerId}/history/blocked/2025-06-15?limit=5`, {
        headers: { authorization: `Bearer ${heavy.customerToken}` },
      });
      expect(day.status).toBe(200);
      expect(((await day.json()) as { data: unknown[] }).data).toHaveLength(5);
    } finally {
      await short.app.close();
    }
  }, 30_000);
});
