/**
 * Metrics and health of every role (docs/operations.md "Monitoring"): three `cordon serve` processes
 * on one SQLite file — `--roles api` (its endpoints on the API port), `--roles resolver,blockpage`
 * and `--roles worker` (each on `--metrics-addr`) — scraped by a real Prometheus server (Debian's
 * `prometheus`) on loopback, each exposition checked by `promtool check metrics`, and `/readyz`
 * answering per role with its reasons.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, type CordonProcess, startCordon } from '../../../e2e/support/cordon.ts';
import { type FakeUpstream, startFakeUpstream } from '../../resolver/test/helpers/fake-upstream.ts';
import { askA, bootPort, loopbackServeEnv, seedFixtureTenants } from './helpers/serve-test.ts';

const ADMIN = { email: 'root@metrics.test', password: 'Sup3r-secret' };

/** A port free on 127.0.0.1 now (for Prometheus, which cannot report a port it chose). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** `promtool check metrics` on an exposition: its complaints (empty when clean). */
function promtoolProblems(exposition: string): string {
  const run = spawnSync('promtool', ['check', 'metrics'], { input: exposition, encoding: 'utf8' });
  if (run.error) throw new Error(`promtool (Debian's prometheus package) is needed: ${run.error.message}`);
  return `${run.stdout}${run.stderr}`.trim() + (run.status === 0 ? '' : ` (exit ${run.status})`);
}

/** Polls `check` every 250 ms until it returns a value, for at most `ms`. @throws Error with the last failure */
async function eventually<T>(check: () => Promise<T | undefined>, ms: number, what: string): Promise<T> {
  const deadline = Date.now() + ms;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`${what} not within ${ms} ms${last ? `: ${last}` : ''}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe('metrics and health of every role, scraped by Prometheus', () => {
  let upstream: FakeUpstream;
  let dataDir: string;
  let api: CordonProcess;
  let resolver: CordonProcess;
  let worker: CordonProcess;
  let prometheus: ChildProcess | undefined;
  let promPort: number;
  const endpoints: Record<'api' | 'resolver' | 'worker', string> = { api: '', resolver: '', worker: '' };
  let dnsPort = 0;

  beforeAll(async () => {
    upstream = await startFakeUpstream();
    dataDir = mkdtempSync(join(tmpdir(), 'cordon-metrics-'));
    const common = loopbackServeEnv(dataDir, upstream.port, ADMIN);
    // The API first: it migrates the file and seeds the admin.
    api = await startCordon({ ...common, CORDON_ROLES: 'api' }, 90_000, CLI);
    [resolver, worker] = await Promise.all([
      startCordon({ ...common, CORDON_ROLES: 'resolver,blockpage', CORDON_METRICS_ADDR: '127.0.0.1:0' }, 90_000, CLI),
      startCordon({ ...common, CORDON_ROLES: 'worker', CORDON_METRICS_ADDR: '127.0.0.1:0' }, 90_000, CLI),
    ]);
    endpoints.api = `127.0.0.1:${bootPort(api, 'http')}`;
    endpoints.resolver = `127.0.0.1:${bootPort(resolver, 'metrics')}`;
    endpoints.worker = `127.0.0.1:${bootPort(worker, 'metrics')}`;
    dnsPort = bootPort(resolver, 'dns');

    // Customers whose locations claim 127.0.0.1 and 127.0.0.2, so the resolver answers this test's queries.
    await seedFixtureTenants(bootPort(api, 'http'), ADMIN);
    await eventually(
      async () => ((await askA(dnsPort, 'first.example'))?.rcode === 0 ? true : undefined),
      10_000,
      'NOERROR',
    );
    for (let i = 0; i < 20; i++) expect((await askA(dnsPort, `q${i}.example`))?.rcode).toBe(0);

    promPort = await freePort();
    const promDir = join(dataDir, 'prometheus');
    const config = join(dataDir, 'prometheus.yml');
    writeFileSync(
      config,
      [
        'global:',
        '  scrape_interval: 1s',
        '  scrape_timeout: 1s',
        'scrape_configs:',
        ...Object.entries(endpoints).flatMap(([job, target]) => [
          `  - job_name: ${job}`,
          '    static_configs:',
          `      - targets: ['${target}']`,
        ]),
        '',
      ].join('\n'),
    );
    prometheus = spawn(
      'prometheus',
      [
        `--config.file=${config}`,
        `--storage.tsdb.path=${promDir}`,
        `--web.listen-address=127.0.0.1:${promPort}`,
        '--log.level=warn',
      ],
      { stdio: 'ignore' },
    );
  }, 240_000);

  afterAll(async () => {
    prometheus?.kill('SIGTERM');
    await Promise.all([api?.stop(), resolver?.stop(), worker?.stop()]);
    await upstream?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** An instant PromQL query: its result vector. */
  async function promQuery(expr: string): Promise<Array<{ metric: Record<string, string>; value: [number, string] }>> {
    const res = await fetch(`http://127.0.0.1:${promPort}/api/v1/query?${new URLSearchParams({ query: expr })}`);
    const body = (await res.json()) as { status: string; data: { result: [] } };
    if (body.status !== 'success') throw new Error(`PromQL ${expr}: ${JSON.stringify(body)}`);
    return body.data.result;
  }

  it('Prometheus scrapes every role, and sees the resolver, API and process figures', async () => {
    const jobs = await eventually(
      async () => {
        const up = await promQuery('up == 1');
        return up.length === 3 ? up.map((r) => r.metric.job).sort() : undefined;
      },
      60_000,
      'all three targets up',
    );
    expect(jobs).toEqual(['api', 'resolver', 'worker']);
    // The resolver's answers as Prometheus stored them: at least the 21 NOERROR queries above.
    const allowed = await promQuery('cordon_dns_responses_total{decision="allowed"}');
    expect(allowed).toHaveLength(1);
    expect(Number(allowed[0]?.value[1])).toBeGreaterThanOrEqual(21);
    // By transport, qtype and RCODE, and the upstream's latency histogram.
    const udp = await promQuery('cordon_dns_queries_by_transport_total{transport="udp"}');
    expect(Number(udp[0]?.value[1])).toBeGreaterThanOrEqual(21);
    const a = await promQuery('cordon_dns_queries_by_qtype_total{qtype="A"}');
    expect(Number(a[0]?.value[1])).toBeGreaterThanOrEqual(21);
    const noerror = await promQuery('cordon_dns_responses_by_rcode_total{rcode="NOERROR"}');
    expect(Number(noerror[0]?.value[1])).toBeGreaterThanOrEqual(21);
    const latency = await promQuery('cordon_dns_upstream_latency_seconds_count');
    expect(Number(latency[0]?.value[1])).toBeGreaterThanOrEqual(21);
    const median = await promQuery('histogram_quantile(0.5, cordon_dns_upstream_latency_seconds_bucket)');
    expect(Number(median[0]?.value[1])).toBeLessThan(0.1);
    // Every snapshot part was read from the database moments ago.
    const ages = await promQuery('time() - cordon_dns_snapshot_part_loaded_timestamp_seconds');
    expect(ages.map((r) => r.metric.part)).toEqual(expect.arrayContaining(['locations', 'policies', 'lists']));
    for (const r of ages) expect(Number(r.value[1])).toBeLessThan(120);
    const upstreamUp = await promQuery('cordon_dns_upstream_up');
    expect(upstreamUp.map((r) => [r.metric.upstream, r.value[1]])).toEqual([[`127.0.0.1:${upstream.port}`, '1']]);
    // The query log's backlog: a few rows in memory at most (written every 500 ms), nothing spooled.
    const queued = await promQuery('cordon_dns_query_log_queued_rows');
    expect(queued).toHaveLength(1);
    expect(Number(queued[0]?.value[1])).toBeLessThan(1_000);
    const spoolBytes = await promQuery('cordon_dns_query_log_spool_bytes');
    expect(spoolBytes.map((r) => r.value[1])).toEqual(['0']);
    // The API's request histogram names route patterns, never ids.
    const routes = await promQuery('cordon_http_request_duration_seconds_count{job="api"}');
    const patterns = routes.map((r) => r.metric.route);
    expect(patterns).toContain('/restapi/users/:id/locations/staticip');
    expect(patterns.every((p) => !/\/\d+(\/|$)/.test(p ?? ''))).toBe(true);
    // Process figures for each role.
    const rss = await promQuery('cordon_process_resident_memory_bytes');
    expect(rss.map((r) => r.metric.job).sort()).toEqual(['api', 'resolver', 'worker']);
    for (const r of rss) expect(Number(r.value[1])).toBeGreaterThan(10_000_000);
    const fds = await promQuery('cordon_process_open_fds');
    expect(fds).toHaveLength(3);
    // The worker ran its due jobs at start: each job's run and last success.
    const jobs_ = await promQuery('cordon_worker_job_runs_total{job="worker", outcome="success"}');
    expect(jobs_.length).toBeGreaterThan(3);
    expect(jobs_.every((r) => typeof r.metric.job_name === 'string')).toBe(true);
    const lastSuccess = await promQuery('time() - cordon_worker_job_last_success_timestamp_seconds');
    expect(lastSuccess.length).toBe(jobs_.length);
    for (const r of lastSuccess) expect(Number(r.value[1])).toBeLessThan(120);
    const roles = await promQuery('cordon_build_info');
    expect(Object.fromEntries(roles.map((r) => [r.metric.job, r.metric.roles]))).toEqual({
      api: 'api',
      resolver: 'resolver,blockpage',
      worker: 'worker',
    });
  }, 90_000);

  it.each(['api', 'resolver', 'worker'] as const)(
    "promtool check metrics finds nothing to fault in the %s role's exposition",
    async (role) => {
      const res = await fetch(`http://${endpoints[role]}/metrics`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
      const text = await res.text();
      expect(text).toContain('cordon_build_info');
      expect(promtoolProblems(text)).toBe('');
      // No tenant in any label: the customer's and MSP's names and ids never appear.
      expect(text).not.toMatch(/Acme|Northwind|Beta Office|customer_id|msp_id/);
    },
  );

  it.each(['api', 'resolver', 'worker'] as const)('%s answers /healthz and /readyz with its checks', async (role) => {
    const health = await fetch(`http://${endpoints[role]}/healthz`);
    expect(health.status).toBe(200);
    expect(((await health.json()) as { status: string }).status).toBe('ok');
    const ready = await fetch(`http://${endpoints[role]}/readyz`);
    const body = (await ready.json()) as {
      ready: boolean;
      checks: Array<{ name: string; ok: boolean; detail: string }>;
    };
    expect(ready.status).toBe(200);
    expect(body.ready).toBe(true);
    const names = body.checks.map((c) => c.name);
    expect(names).toEqual(role === 'resolver' ? ['database', 'snapshot', 'upstream', 'query_log'] : ['database']);
    for (const c of body.checks) expect(c.detail.length).toBeGreaterThan(0);
  });

  it('a resolver whose upstream stops answering is not ready, and says why; ready again when it answers', async () => {
    upstream.setDown(true);
    try {
      // The upstream is marked failed after queries go unanswered.
      const notReady = await eventually(
        async () => {
          await askA(dnsPort, `down-${randomBytes(4).toString('hex')}.example`);
          const res = await fetch(`http://${endpoints.resolver}/readyz`);
          return res.status === 503
            ? ((await res.json()) as { checks: Array<{ name: string; ok: boolean; detail: string }> })
            : undefined;
        },
        30_000,
        'resolver not ready',
      );
      const check = notReady.checks.find((c) => c.name === 'upstream');
      expect(check?.ok).toBe(false);
      expect(check?.detail).toMatch(/^no upstream answering: 127\.0\.0\.1:\d+ failed \d+ in a row/);
      // The API and the worker do not depend on the upstream.
      expect((await fetch(`http://${endpoints.api}/readyz`)).status).toBe(200);
    } finally {
      upstream.setDown(false);
    }
    await eventually(
      async () => ((await fetch(`http://${endpoints.resolver}/readyz`)).status === 200 ? true : undefined),
      30_000,
      'resolver ready again',
    );
  }, 90_000);
});
