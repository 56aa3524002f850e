/**
 * The API's main reads under load (bench/README.md "API reads"; budget p99 ≤ 50 ms at 500 req/s):
 * seeds 10 MSPs with 1,000 customers (a static location each, 100 devices each: 100,000 devices) and
 * today's roll-ups of the measured customer, starts the API in this process on a loopback port, logs
 * in as the system admin, an MSP admin and a customer admin through the real authorize route, then
 * times each route alone (200 requests one at a time after 100 of warm-up: its own cost), then runs autocannon (in a
 * child process, so the load generator has its own event loop) at a fixed 500 req/s per route and
 * prints the server's CPU time per request under that load (with a PostgreSQL on this machine, its
 * processes' CPU time per request too), p50/p99/max, errors and the 1-minute load average per route
 * as a Markdown table.
 *
 *   node --import tsx bench/api.ts [seconds=10] [rate=500]
 *   CORDON_BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node --import tsx bench/api.ts
 *   CORDON_BENCH_ROUTES=devices,customers node --import tsx bench/api.ts   # a subset, by label
 *   CORDON_BENCH_KEEP=1 …   # keeps the SQLite file or PostgreSQL schema (printed) to look at the queries' plans
 *   CORDON_BENCH_REUSE=/tmp/cordon-bench-api-123.db …   # measures a kept database again (a schema name with
 *                                                       # CORDON_BENCH_DATABASE_URL): no seeding, same rows
 *   CORDON_BENCH_PACING=even …   # the same rate spread evenly (bench/support/paced-load.mjs) instead of
 *                                # autocannon's bursts at the start of each second
 *
 * Customers and locations go through core (the mutation path: default policy, audit, claims), the
 * devices through one multi-row INSERT per customer with the columns the devices service writes.
 * Numbers go in bench/README.md, never in tests.
 */

import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { loadavg } from 'node:os';
import { buildApp, ensureSystemAdmin } from '@cordon/api';
import { customers, locations, msps, OPERATOR } from '@cordon/core';
import { createChangeFeed, type DatabaseHandle, openDatabase } from '@cordon/db';
import { createSecretBox } from '@cordon/pki';
import {
  customerCreateSchema,
  DEFAULT_CLAIM_LIMITS,
  mspCreateSchema,
  staticIpLocationCreateSchema,
} from '@cordon/shared';
import { sql } from 'kysely';
import { openBenchDatabase } from './support/database.ts';
import { postgresCpuMs, postgresCpuSpent } from './support/postgres-cpu.ts';

const SECONDS = Number(process.argv[2] ?? 10);
const RATE = Number(process.argv[3] ?? 500);
const MSPS = 10;
const CUSTOMERS = 1_000;
const DEVICES_PER_CUSTOMER = 100;
const PASSWORD = 'Bench-passw0rd';
const HOUR = 3_600_000;

const OS = ['windows', 'macos', 'linux', 'ios', 'android'];

/**
 * 100 devices of customer `customerId` (index `c`), as `POST /agent/register` and the heartbeats since
 * would have left them: last heard from in one of the 30 hours before `at` (device `i` `i % 30` hours
 * before), every 25th never, so the MSP overview's silent counts have hours on both sides of 24 h.
 */
function devicesOf(customerId: number, c: number, at: string) {
  const contact = (i: number) =>
    i % 25 === 24 ? null : new Date(Date.parse(at) - (i % 30) * HOUR - ((i * 37) % 60) * 60_000).toISOString();
  return Array.from({ length: DEVICES_PER_CUSTOMER }, (_, i) => ({
    customer_id: customerId,
    key: randomBytes(24).toString('base64url'),
    name: `${i % 3 === 0 ? 'laptop' : i % 3 === 1 ? 'desktop' : 'phone'}-${c}-${i}`,
    dns_name: `host${i}.c${c}.example`,
    tag: i % 10 === 0 ? 'finance' : 'staff',
    version: '1.4.2',
    os_type: OS[i % OS.length]!,
    extra_info: '{}',
    last_contact_at: contact(i),
    last_ip: `10.${c % 250}.${i >> 8}.${i & 255}`,
    policy_mode: 'default',
    created_at: at,
    updated_at: at,
  }));
}

/**
 * The hourly roll-ups of one customer over the whole UTC day of `now` (1,650 domain keys an hour, 24
 * hours, later hours included), so the stats overview of today reads the day's full ≈ 39,600 rows
 * whatever the hour of the run (its worst case, the day's last hour).
 */
async function rollupsOf(handle: DatabaseHandle, customerId: number, locationId: number, now: number) {
  const first = now - (now % 86_400_000);
  for (let hour = first; hour < first + 86_400_000; hour += HOUR) {
    const rows: Array<{ dim: string; action: string; key: string; count: number }> = [];
    for (let i = 0; i < 1500; i++)
      rows.push({ dim: 'domain', action: 'allowed', key: `site${i}.example.com`, count: (1 + 5000 / (i + 1)) | 0 });
    for (let i = 0; i < 150; i++)
      rows.push({ dim: 'domain', action: 'blocked', key: `ads${i}.tracker.net`, count: (1 + 500 / (i + 1)) | 0 });
    for (let i = 0; i < 20; i++) rows.push({ dim: 'category', action: 'allowed', key: String(13 + i), count: 100 });
    const requests = rows.reduce((a, r) => a + (r.dim === 'domain' ? r.count : 0), 0);
    const blocked = rows.reduce((a, r) => a + (r.dim === 'domain' && r.action === 'blocked' ? r.count : 0), 0);
    await handle.db
      .insertInto('stats_hourly')
      .values({
        customer_id: customerId,
        location_id: locationId,
        hour,
        requests,
        allowed: requests - blocked,
        blocked,
        bypassed: 0,
      })
      .execute();
    for (let i = 0; i < rows.length; i += 500) {
      await handle.db
        .insertInto('stats_hourly_top')
        .values(rows.slice(i, i + 500).map((r) => ({ customer_id: customerId, location_id: locationId, hour, ...r })))
        .execute();
    }
  }
}

/** How the load is offered: autocannon's (the default) or evenly over each second (`CORDON_BENCH_PACING=even`). */
const PACING = process.env.CORDON_BENCH_PACING === 'even' ? 'even' : 'autocannon';

/**
 * The load run of one route, in a child process (its own event loop and CPU time, as a real
 * client's would be): autocannon's command line with `--json` (20 connections, `-R`: each
 * connection sends its share of a second back to back when the second starts, so the p99 is that
 * of a burst with all 20 busy), or with `CORDON_BENCH_PACING=even` bench/support/paced-load.mjs
 * (the rate in steps of 10 ms, each request timed from when it was due); resolves with the result
 * object in autocannon's shape.
 */
function load(url: string, token: string): Promise<AutocannonResult> {
  const cli = createRequire(import.meta.url).resolve('autocannon/autocannon.js');
  const paced = new URL('./support/paced-load.mjs', import.meta.url).pathname;
  const args =
    PACING === 'even'
      ? [paced, url, String(SECONDS), String(RATE), `Bearer ${token}`]
      : [cli, '-c', '20', '-d', String(SECONDS), '-R', String(RATE), '-H', `authorization=Bearer ${token}`, '-j', url];
  return new Promise((resolve, reject) => {
    execFile(process.execPath, args, { maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${PACING}: ${err.message} ${stderr}`));
      else resolve(JSON.parse(stdout) as AutocannonResult);
    });
  });
}

interface AutocannonResult {
  latency: { p50: number; p99: number; max: number };
  requests: { total: number; average: number };
  errors: number;
  timeouts: number;
  non2xx: number;
}

/**
 * A database kept by an earlier run (`CORDON_BENCH_KEEP=1`), opened as it is: the SQLite file, or the
 * schema on `CORDON_BENCH_DATABASE_URL`'s server. Closing it keeps it.
 */
function reuseDatabase(name: string): { handle: DatabaseHandle; drop: () => Promise<void> } {
  const url = process.env.CORDON_BENCH_DATABASE_URL;
  const handle = url ? openDatabase({ url, pgSchema: name, pgPoolSize: 10 }) : openDatabase({ sqlitePath: name });
  return { handle, drop: () => handle.close() };
}

/** Seeds the MSPs, customers, locations, devices and roll-ups (see the header); returns the customers' ids in order. */
async function seed(handle: DatabaseHandle): Promise<number[]> {
  const changes = createChangeFeed(handle);
  const deps = { handle, changes, now: () => Date.now(), claims: DEFAULT_CLAIM_LIMITS };
  const t0 = performance.now();
  const admin = { email: 'root@bench.example', password: PASSWORD };
  await ensureSystemAdmin(handle, admin);
  const mspIds: number[] = [];
  for (let m = 0; m < MSPS; m++) {
    const body = mspCreateSchema.parse({
      name: `Bench MSP ${m}`,
      company_name: `Bench MSP ${m} Ltd`,
      ...(m === 0 ? { admin_email: 'msp0@bench.example', admin_password: PASSWORD } : {}),
    });
    mspIds.push((await msps.createMsp(deps, OPERATOR, body)).id);
  }
  const customerIds: number[] = [];
  const locationIds: number[] = [];
  for (let c = 0; c < CUSTOMERS; c++) {
    const body = customerCreateSchema.parse({
      accountName: `Bench customer ${String(c).padStart(4, '0')}`,
      msp_id: mspIds[c % MSPS],
      timezone: 'UTC',
      ...(c === 0 ? { admin_email: 'cust0@bench.example', admin_password: PASSWORD } : {}),
    });
    const customer = await customers.createCustomer(deps, OPERATOR, body);
    customerIds.push(customer.id);
    const loc = await locations.createStaticLocation(
      deps,
      OPERATOR,
      customer.id,
      staticIpLocationCreateSchema.parse({ name: 'Head office', addresses: [`198.18.${c >> 8}.${c & 255}/32`] }),
    );
    locationIds.push(loc.id);
  }
  const t1 = performance.now();
  const at = new Date().toISOString();
  for (let c = 0; c < CUSTOMERS; c++) {
    await handle.db
      .insertInto('devices')
      .values(devicesOf(customerIds[c]!, c, at))
      .execute();
  }
  await rollupsOf(handle, customerIds[0]!, locationIds[0]!, Date.now());
  if (handle.dialect === 'postgres') await sql`analyze`.execute(handle.db);
  const t2 = performance.now();
  console.log(
    `${handle.dialect}: ${MSPS} MSPs, ${CUSTOMERS} customers with a location each through core in ${((t1 - t0) / 1000).toFixed(1)} s; ` +
      `${CUSTOMERS * DEVICES_PER_CUSTOMER} devices and one customer's roll-ups of today in ${((t2 - t1) / 1000).toFixed(1)} s`,
  );
  await changes.close();
  return customerIds;
}

const reuse = process.env.CORDON_BENCH_REUSE;
const { handle, drop } = reuse ? reuseDatabase(reuse) : await openBenchDatabase('api', 10);
try {
  const customerIds = reuse
    ? (await handle.db.selectFrom('customers').select('id').orderBy('id').execute()).map((r) => r.id)
    : await seed(handle);
  if (reuse) console.log(`${handle.dialect}: reusing ${reuse} (${customerIds.length} customers)`);
  const changes = createChangeFeed(handle);
  const admin = { email: 'root@bench.example', password: PASSWORD };

  const app = await buildApp({
    db: handle,
    changes,
    jwtSecret: new Uint8Array(randomBytes(32)),
    secrets: createSecretBox(randomBytes(32)),
    // The bench logs in three times from one address: no throttling concern.
  });
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  const login = async (email: string): Promise<string> => {
    // The console's login: PKCE S256 (RFC 7636 §4.2) with a 128-hex verifier and a 40-hex state.
    const verifier = randomBytes(64).toString('hex');
    const query = new URLSearchParams({
      client_id: '2',
      response_type: 'code',
      redirect_uri: 'http://localhost/callback',
      code_challenge_method: 'S256',
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_verifier: verifier,
      state: randomBytes(20).toString('hex'),
    });
    const res = await fetch(`${address}/restapi/oauth/authorize?${query}`, {
      headers: { authorization: `Basic ${Buffer.from(`${email}:${PASSWORD}`).toString('base64')}` },
    });
    if (res.status !== 200) throw new Error(`login ${email}: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { access_token: string }).access_token;
  };
  const root = await login(admin.email);
  const msp = await login('msp0@bench.example');
  const cust = await login('cust0@bench.example');
  const cid = customerIds[0]!;
  const mspId = Number(
    (await handle.db.selectFrom('customers').select('msp_id').where('id', '=', cid).executeTakeFirstOrThrow()).msp_id,
  );
  const policyId = (
    await handle.db
      .selectFrom('policies')
      .select('id')
      .where('customer_id', '=', cid)
      .where('is_default', '=', 1)
      .executeTakeFirstOrThrow()
  ).id;
  // Paths as printed: {id} the measured customer, {msp} its MSP, {policy} its default policy.
  const shown: Array<{ label: string; who: string; token: string; shape: string }> = [
    { label: 'whoami', who: 'customer', token: cust, shape: '/restapi/auth/profile' },
    { label: 'ui-interface', who: 'customer', token: cust, shape: '/restapi/ui/interface' },
    { label: 'customers', who: 'system', token: root, shape: '/restapi/users/?limit=25&offset=500&sortkey=name' },
    { label: 'customers-search', who: 'system', token: root, shape: '/restapi/users/?limit=25&filter=customer%200042' },
    { label: 'customers-msp', who: 'MSP', token: msp, shape: '/restapi/users/?limit=25&offset=50' },
    { label: 'devices', who: 'customer', token: cust, shape: '/restapi/users/{id}/devices?limit=25&offset=50' },
    {
      label: 'devices-search',
      who: 'customer',
      token: cust,
      shape: '/restapi/users/{id}/devices?limit=25&filter=laptop',
    },
    { label: 'devices-msp', who: 'MSP', token: msp, shape: '/restapi/users/{id}/devices?limit=25&filter=finance' },
    { label: 'policies', who: 'customer', token: cust, shape: '/restapi/policies?user_id={id}' },
    { label: 'locations', who: 'customer', token: cust, shape: '/restapi/users/{id}/locations/staticip' },
    { label: 'stats-overview', who: 'customer', token: cust, shape: '/restapi/users/{id}/stats/today' },
    // The other list routes of the console's pages (apps/console/src/features/*/api.ts), each as its page first asks it.
    { label: 'locations-all', who: 'customer', token: cust, shape: '/restapi/users/{id}/locations/all?limit=25' },
    { label: 'msp-customers', who: 'MSP', token: msp, shape: '/restapi/msp/{msp}/stats/customers?limit=25' },
    { label: 'msps', who: 'system', token: root, shape: '/restapi/msp?limit=25' },
    { label: 'admins', who: 'system', token: root, shape: '/restapi/admin?limit=25' },
    { label: 'audit', who: 'system', token: root, shape: '/restapi/audit?limit=25&offset=1000' },
    { label: 'audit-msp', who: 'MSP', token: msp, shape: '/restapi/audit?limit=25' },
    { label: 'groups', who: 'customer', token: cust, shape: '/restapi/users/{id}/groups?limit=25' },
    { label: 'internal-users', who: 'customer', token: cust, shape: '/restapi/users/{id}/users/?limit=25' },
    {
      label: 'device-exceptions',
      who: 'customer',
      token: cust,
      shape: '/restapi/device_exceptions?user_id={id}&limit=25',
    },
    {
      label: 'policy-domains',
      who: 'customer',
      token: cust,
      shape: '/restapi/policies/{policy}/domains/block?limit=25',
    },
    { label: 'global-domains', who: 'MSP', token: msp, shape: '/restapi/global/domains/block?msp_id={msp}&limit=25' },
    { label: 'cloudkeys', who: 'customer', token: cust, shape: '/restapi/users/{id}/cloudkeys?limit=25' },
    { label: 'staticroutes', who: 'customer', token: cust, shape: '/restapi/staticroutes?user_id={id}&limit=25' },
    { label: 'reports-archive', who: 'customer', token: cust, shape: '/restapi/users/{id}/reports/archive?limit=25' },
    {
      label: 'scheduled-reports',
      who: 'customer',
      token: cust,
      shape: '/restapi/users/{id}/scheduledreports?limit=25',
    },
    { label: 'webhooks', who: 'customer', token: cust, shape: '/restapi/webhooks?user_id={id}' },
    { label: 'api-tokens', who: 'customer', token: cust, shape: '/restapi/auth/api-tokens' },
    { label: 'log-streams', who: 'MSP', token: msp, shape: '/restapi/log-streams?msp_id={msp}' },
    { label: 'feeds', who: 'system', token: root, shape: '/restapi/feeds?limit=25' },
    { label: 'history', who: 'customer', token: cust, shape: '/restapi/users/{id}/history/all/today?limit=25' },
  ];
  const routes = shown.map((r) => ({
    ...r,
    path: r.shape.replaceAll('{id}', String(cid)).replace('{msp}', String(mspId)).replace('{policy}', String(policyId)),
  }));
  const only = process.env.CORDON_BENCH_ROUTES?.split(',');
  // Each route answers 200 before it is loaded: a wrong path would only measure 404s.
  for (const r of routes) {
    const res = await fetch(`${address}${r.path}`, { headers: { authorization: `Bearer ${r.token}` } });
    if (res.status !== 200) throw new Error(`${r.label}: ${res.status} ${await res.text()}`);
  }
  // Twenty at a time before any is measured: the PostgreSQL pool opens its connections (each parses
  // its prepared statements anew) here, not in the first route's measured run (an even load showed
  // it as a 0.3–0.4 s stall there).
  const warm = routes.find((r) => !only || only.includes(r.label)) ?? routes[0]!;
  await Promise.all(
    Array.from({ length: 20 }, async () => {
      for (let i = 0; i < 10; i++) {
        await (
          await fetch(`${address}${warm.path}`, { headers: { authorization: `Bearer ${warm.token}` } })
        ).arrayBuffer();
      }
    }),
  );
  // The PostgreSQL server's CPU per request too, when it runs on this machine.
  const pgCpu = handle.dialect === 'postgres' && postgresCpuMs() !== undefined;
  const shape = PACING === 'even' ? `evenly, ${RATE / 100} every 10 ms` : 'autocannon, 20 connections';
  console.log(`\n${handle.dialect}, ${RATE} req/s for ${SECONDS} s per route (${shape}):\n`);
  console.log(
    `| Route | Caller | Alone: median ms | Server CPU ms/request |${pgCpu ? ' PostgreSQL CPU ms/request |' : ''} Requests | p50 ms | p99 ms | max ms | errors / non-2xx | load avg |`,
  );
  console.log(`|---|---|---|---|${pgCpu ? '---|' : ''}---|---|---|---|---|---|`);
  for (const r of routes) {
    if (only && !only.includes(r.label)) continue;
    // One request at a time first: the route's own time (its CPU cost; 100 warm-up requests
    // uncounted), then the fixed-rate load.
    const alone: number[] = [];
    for (let i = 0; i < 300; i++) {
      const t = performance.now();
      await (await fetch(`${address}${r.path}`, { headers: { authorization: `Bearer ${r.token}` } })).arrayBuffer();
      if (i >= 100) alone.push(performance.now() - t);
    }
    alone.sort((a, b) => a - b);
    // The server's CPU time per request under load (this process: the API and its SQLite or
    // PostgreSQL client; autocannon runs apart): 1,000 / it is what one event loop can serve a second,
    // whatever the other processes on the box take.
    const cpu = process.cpuUsage();
    const pgBefore = pgCpu ? postgresCpuMs() : undefined;
    const res = await load(`${address}${r.path}`, r.token);
    const used = process.cpuUsage(cpu);
    const pgAfter = pgCpu ? postgresCpuMs() : undefined;
    const cpuMs = (used.user + used.system) / 1000 / Math.max(1, res.requests.total);
    const pgCell =
      pgBefore === undefined || pgAfter === undefined
        ? ''
        : ` ${(postgresCpuSpent(pgBefore, pgAfter) / Math.max(1, res.requests.total)).toFixed(2)} |`;
    console.log(
      `| ${r.label} \`${r.shape}\` | ${r.who} | ${alone[100]!.toFixed(1)} | ${cpuMs.toFixed(2)} |${pgCell} ${res.requests.total} | ${res.latency.p50} | ${res.latency.p99} | ${res.latency.max} | ${res.errors + res.timeouts} / ${res.non2xx} | ${loadavg()[0]!.toFixed(1)} |`,
    );
  }
  await app.close();
  await changes.close();
} finally {
  await drop();
}
