/**
 * Prometheus metrics of a `cordon serve` process (docs/operations.md "Monitoring"), in the text
 * exposition format through prom-client. The resolver's figures are the counters it keeps anyway
 * (`ResolverMetrics`, copied from the data-plane thread once per scrape): the hot path does nothing
 * more for them. No label names a tenant: per-customer figures are the console's statistics.
 */
import type { ResolverMetrics } from '@cordon/resolver';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/** What a scrape reads from the process: each source present only when its role runs. */
export interface MetricsSources {
  /** `cordon_build_info` labels. */
  version: string;
  roles: readonly string[];
  /** The resolver's counters, null when the data plane has none (no `resolver` role, or stopped). */
  resolverMetrics?: () => Promise<ResolverMetrics | null>;
  /** Mail handed to SMTP servers and failed, since start (the `api` and `worker` roles send mail). */
  mailDeliveries?: () => { sent: number; failed: number };
}

/** The registry of one process and the API's request observer. */
export interface CordonMetrics {
  readonly registry: Registry;
  /** The exposition, after reading the resolver's counters once. */
  render(): Promise<string>;
  /** The exposition's Content-Type (text format 0.0.4). */
  readonly contentType: string;
  /**
   * Records one API request: `route` is the route's pattern (`/restapi/customers/:id`, bounded), or
   * `unmatched`; `seconds` from the request's arrival to its response.
   */
  observeRequest(method: string, route: string, status: number, seconds: number): void;
  /** Records one run of a worker job (`WorkerOptions.onJobDone` of `@cordon/core`). */
  observeJob(job: string, seconds: number, error: string | null, endedAt: number): void;
}

/** A counter mirrored from a monotonic value read at scrape time (the value is the total since start). */
function mirroredCounter<L extends string>(
  registry: Registry,
  name: string,
  help: string,
  labelNames: readonly L[],
  read: () => Array<[Partial<Record<L, string>>, number]>,
): void {
  new Counter<L>({
    name,
    help,
    labelNames,
    registers: [registry],
    collect() {
      this.reset();
      for (const [labels, value] of read()) if (value > 0) this.inc(labels, value);
    },
  });
}

function mirroredGauge<L extends string>(
  registry: Registry,
  name: string,
  help: string,
  labelNames: readonly L[],
  read: () => Array<[Partial<Record<L, string>>, number]>,
): void {
  new Gauge<L>({
    name,
    help,
    labelNames,
    registers: [registry],
    collect() {
      this.reset();
      for (const [labels, value] of read()) this.set(labels, value);
    },
  });
}

/**
 * Builds the metrics of one process: Node's process metrics (resident memory, heap, event-loop lag,
 * open file descriptors: prom-client's default collectors, prefix `cordon_`), `cordon_build_info`, the
 * API's request-duration histogram, and with `resolverMetrics` the resolver's counters under
 * `cordon_dns_*`. Metric names follow Prometheus's conventions (`_total` counters, base units).
 */
export function createMetrics(sources: MetricsSources): CordonMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'cordon_' });
  // Gauges named like counters, which `promtool check metrics` faults; the resource and handle
  // counts they give are not what an operator alerts on.
  for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total']) {
    registry.removeSingleMetric(`cordon_${name}`);
  }
  new Gauge({
    name: 'cordon_build_info',
    help: 'Version and roles of this process (always 1).',
    labelNames: ['version', 'roles'],
    registers: [registry],
  }).set({ version: sources.version, roles: [...sources.roles].join(',') }, 1);

  const requests = new Histogram({
    name: 'cordon_http_request_duration_seconds',
    help: 'API and console requests by method, route pattern and status, from arrival to response.',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });

  const jobRuns = new Counter({
    name: 'cordon_worker_job_runs_total',
    // `job_name`: Prometheus's own `job` label names the scrape target.
    help: 'Worker job runs on this process by job name and outcome (success, failure).',
    labelNames: ['job_name', 'outcome'],
    registers: [registry],
  });
  const jobDuration = new Histogram({
    name: 'cordon_worker_job_duration_seconds',
    help: 'Duration of worker job runs on this process.',
    labelNames: ['job_name'],
    buckets: [0.01, 0.1, 0.5, 1, 5, 15, 60, 300, 900],
    registers: [registry],
  });
  const jobLastSuccess = new Gauge({
    name: 'cordon_worker_job_last_success_timestamp_seconds',
    help: 'When each job last succeeded on this process (Unix time).',
    labelNames: ['job_name'],
    registers: [registry],
  });
  if (sources.mailDeliveries) {
    const read = sources.mailDeliveries;
    mirroredCounter(
      registry,
      'cordon_mail_messages_total',
      'Mail handed to an SMTP server (sent) or not (failed).',
      ['outcome'],
      () => {
        const m = read();
        return [
          [{ outcome: 'sent' }, m.sent],
          [{ outcome: 'failed' }, m.failed],
        ];
      },
    );
  }

  // Read once per scrape, then every collector below reads this copy.
  let dns: ResolverMetrics | null = null;
  if (sources.resolverMetrics) registerResolverMetrics(registry, () => dns);

  return {
    registry,
    contentType: registry.contentType,
    async render() {
      dns = sources.resolverMetrics ? await sources.resolverMetrics() : null;
      return registry.metrics();
    },
    observeRequest(method, route, status, seconds) {
      requests.observe({ method, route, status: String(status) }, seconds);
    },
    observeJob(job, seconds, error, endedAt) {
      jobRuns.inc({ job_name: job, outcome: error === null ? 'success' : 'failure' });
      jobDuration.observe({ job_name: job }, seconds);
      if (error === null) jobLastSuccess.set({ job_name: job }, endedAt / 1000);
    },
  };
}

/** The resolver's `cordon_dns_*` metrics, read from `current()` (null: none exposed this scrape). */
function registerResolverMetrics(registry: Registry, current: () => ResolverMetrics | null): void {
  const from =
    <L extends string>(pick: (m: ResolverMetrics) => Array<[Partial<Record<L, string>>, number]>) =>
    () => {
      const m = current();
      return m ? pick(m) : [];
    };
  const one = (pick: (m: ResolverMetrics) => number) => from<never>((m) => [[{}, pick(m)]]);

  mirroredCounter(
    registry,
    'cordon_dns_queries_total',
    'DNS queries decoded and handed to the pipeline.',
    [],
    one((m) => m.queries),
  );
  mirroredCounter(
    registry,
    'cordon_dns_responses_total',
    'DNS answers by decision: allowed (and bypassed), blocked, refused (no location claims the source), rate_limited (RRL dropped or slipped), location_limited (over --location-rate-limit), malformed (FORMERR/NOTIMP/BADVERS or dropped).',
    ['decision'],
    from((m) => [
      [{ decision: 'allowed' }, m.allowed],
      [{ decision: 'blocked' }, m.blocked],
      [{ decision: 'refused' }, m.unknownClients],
      [{ decision: 'rate_limited' }, m.rateLimited],
      [{ decision: 'location_limited' }, m.locationLimited],
      [{ decision: 'malformed' }, m.malformed],
    ]),
  );
  mirroredCounter(
    registry,
    'cordon_dns_queries_by_transport_total',
    'DNS queries decoded, by transport: udp, tcp, doh, dot.',
    ['transport'],
    from((m) => Object.entries(m.byTransport).map(([transport, n]) => [{ transport }, n])),
  );
  mirroredCounter(
    registry,
    'cordon_dns_queries_by_qtype_total',
    'DNS queries decoded, by qtype: the common ones by name, every other as other (a bounded set).',
    ['qtype'],
    from((m) => Object.entries(m.byQtype).map(([qtype, n]) => [{ qtype }, n])),
  );
  mirroredCounter(
    registry,
    'cordon_dns_responses_by_rcode_total',
    'Answers to decoded queries, by RCODE (NOERROR, NXDOMAIN, SERVFAIL, REFUSED…; at most 16 values).',
    ['rcode'],
    from((m) => Object.entries(m.byRcode).map(([rcode, n]) => [{ rcode }, n])),
  );
  registerUpstreamLatency(registry, current);
  mirroredCounter(
    registry,
    'cordon_dns_blocked_by_alias_total',
    'Of the blocked answers: allowed qnames whose upstream answer named a blocked CNAME, DNAME or HTTPS/SVCB target.',
    [],
    one((m) => m.blockedByAlias),
  );
  mirroredCounter(
    registry,
    'cordon_dns_answer_events_total',
    'Answers by what happened to them: servfail, truncated (TC=1), stale (served past TTL), minimal_any (RFC 8482), slipped (RRL TC=1), non_internet_class.',
    ['event'],
    from((m) => [
      [{ event: 'servfail' }, m.servfail],
      [{ event: 'truncated' }, m.truncated],
      [{ event: 'stale' }, m.staleAnswers],
      [{ event: 'minimal_any' }, m.minimalAny],
      [{ event: 'slipped' }, m.slipped],
      [{ event: 'non_internet_class' }, m.nonInternetClass],
    ]),
  );
  mirroredCounter(
    registry,
    'cordon_dns_transport_queries_total',
    'Queries over the encrypted transports (UDP and TCP are the rest of cordon_dns_queries_total).',
    ['transport'],
    from((m) => [
      [{ transport: 'doh' }, m.doh.queries],
      [{ transport: 'dot' }, m.dot.queries],
    ]),
  );
  mirroredCounter(
    registry,
    'cordon_dns_identified_total',
    'Queries identified by a device key or a roaming location key rather than by source address.',
    ['by'],
    from((m) => [
      [{ by: 'device_key' }, m.identifiedBy.deviceKey],
      [{ by: 'location_key' }, m.identifiedBy.locationKey],
    ]),
  );
  mirroredCounter(
    registry,
    'cordon_dns_cache_lookups_total',
    'Answer-cache lookups: hit, miss, and coalesced (a miss that waited for the same question in flight).',
    ['result'],
    from((m) => [
      [{ result: 'hit' }, m.cacheHits],
      [{ result: 'miss' }, m.cacheMisses],
      [{ result: 'coalesced' }, m.coalesced],
    ]),
  );
  mirroredGauge(
    registry,
    'cordon_dns_cache_entries',
    'Answers held in the cache.',
    [],
    one((m) => m.cacheEntries),
  );
  mirroredCounter(
    registry,
    'cordon_dns_upstream_events_total',
    'Upstream exchanges: queries (UDP attempts), retransmissions, timeouts, tcp_fallbacks, mismatched (ignored datagrams), errors.',
    ['event'],
    from((m) => [
      [{ event: 'queries' }, m.upstream.queries],
      [{ event: 'retransmissions' }, m.upstream.retransmissions],
      [{ event: 'timeouts' }, m.upstream.timeouts],
      [{ event: 'tcp_fallbacks' }, m.upstream.tcpFallbacks],
      [{ event: 'mismatched' }, m.upstream.mismatched],
      [{ event: 'errors' }, m.upstream.errors],
    ]),
  );
  const upstreamLabel = (u: { host: string; port: number }) => ({
    upstream: u.host.includes(':') ? `[${u.host}]:${u.port}` : `${u.host}:${u.port}`,
  });
  mirroredGauge(
    registry,
    'cordon_dns_upstream_up',
    'Whether each configured upstream is answering (1) or marked failed (0).',
    ['upstream'],
    from((m) => m.upstreamHealth.map((u) => [upstreamLabel(u), u.healthy ? 1 : 0])),
  );
  mirroredGauge(
    registry,
    'cordon_dns_upstream_srtt_seconds',
    'Smoothed round-trip time of each upstream (RFC 6298 §2); 0 before its first answer.',
    ['upstream'],
    from((m) => m.upstreamHealth.map((u) => [upstreamLabel(u), u.rttMs / 1000])),
  );
  mirroredGauge(
    registry,
    'cordon_dns_upstream_consecutive_failures',
    'Queries in a row each upstream got attempts in and did not answer.',
    ['upstream'],
    from((m) => m.upstreamHealth.map((u) => [upstreamLabel(u), u.consecutiveFailures])),
  );
  mirroredCounter(
    registry,
    'cordon_dns_query_log_rows_total',
    'Query-log rows: written to the database, spooled to disk (memory full), dropped (spool full or failed).',
    ['outcome'],
    from((m) => [
      [{ outcome: 'written' }, m.queryLog.written],
      [{ outcome: 'spooled' }, m.queryLog.spooled],
      [{ outcome: 'dropped' }, m.queryLog.dropped],
    ]),
  );
  mirroredGauge(
    registry,
    'cordon_dns_query_log_queued_rows',
    'Query-log rows in memory not yet written to the database (at most 50,000; beyond, the spool).',
    [],
    one((m) => m.queryLog.queued),
  );
  mirroredGauge(
    registry,
    'cordon_dns_query_log_spool_bytes',
    'Bytes of query-log spool files not yet written to the database.',
    [],
    one((m) => m.queryLog.spoolBytes),
  );
  mirroredCounter(
    registry,
    'cordon_dns_query_log_failed_batches_total',
    'Query-log batches the database refused.',
    [],
    one((m) => m.queryLog.failedBatches),
  );
  mirroredCounter(
    registry,
    'cordon_dns_stream_rows_total',
    'Query-log rows per log stream (dnstap, syslog, ndjson): sent to the peer, dropped (buffer full: slow or dead peer).',
    ['sink', 'outcome'],
    from((m) =>
      (m.queryLog.streams ?? []).flatMap((s) => [
        [{ sink: s.kind, outcome: 'sent' }, s.sent] as const,
        [{ sink: s.kind, outcome: 'dropped' }, s.dropped] as const,
      ]),
    ),
  );
  mirroredGauge(
    registry,
    'cordon_dns_stream_connected',
    'Resolving threads whose log stream is connected to its peer (dnstap: handshake done; ndjson: last POST accepted).',
    ['sink'],
    from((m) => (m.queryLog.streams ?? []).map((s) => [{ sink: s.kind }, s.connected] as const)),
  );
  mirroredCounter(
    registry,
    'cordon_dns_snapshot_reloads_total',
    'Snapshot loads by part (tenant: locations and policies; category; list), failed ones, and the safety-net resyncs.',
    ['part'],
    from((m) => [
      [{ part: 'tenant' }, m.snapshot.tenantReloads],
      [{ part: 'category' }, m.snapshot.categoryReloads],
      [{ part: 'list' }, m.snapshot.listReloads],
      [{ part: 'failed' }, m.snapshot.reloadFailures],
      [{ part: 'resync' }, m.snapshot.resyncs],
    ]),
  );
  mirroredCounter(
    registry,
    'cordon_dns_snapshot_part_loads_total',
    'Reads of each snapshot part from the database that succeeded (changes and the 5-minute resync).',
    ['part'],
    from((m) => Object.entries(m.snapshot.parts).map(([part, r]) => [{ part }, r.loads])),
  );
  mirroredCounter(
    registry,
    'cordon_dns_snapshot_resync_parts_total',
    'Safety-net resyncs by part and outcome: rebuilt (its digest changed) or skipped (digest unchanged, nothing else read).',
    ['part', 'outcome'],
    from((m) =>
      Object.entries(m.snapshot.parts).flatMap(([part, r]) => [
        [{ part, outcome: 'rebuilt' }, r.resyncRebuilt] as const,
        [{ part, outcome: 'skipped' }, r.resyncSkipped] as const,
      ]),
    ),
  );
  mirroredGauge(
    registry,
    'cordon_dns_snapshot_part_loaded_timestamp_seconds',
    'When each snapshot part was last read from the database or found unchanged by the resync digest (Unix time); its age past the 5-minute resync means it is stale.',
    ['part'],
    from((m) =>
      Object.entries(m.snapshot.parts)
        .filter(([, r]) => r.loadedAt > 0)
        .map(([part, r]) => [{ part }, r.loadedAt / 1000]),
    ),
  );
  mirroredGauge(
    registry,
    'cordon_dns_snapshot_serving_from_disk',
    '1 while the snapshot served is the one read from disk at start (the database unreachable).',
    [],
    one((m) => (m.snapshot.servingFromDisk ? 1 : 0)),
  );
  mirroredGauge(
    registry,
    'cordon_dns_snapshot_objects',
    'Objects in the snapshot: categorised domains, devices, internal users.',
    ['kind'],
    from((m) => [
      [{ kind: 'category_domain' }, m.snapshot.categoryDomains],
      [{ kind: 'device' }, m.snapshot.devices],
      [{ kind: 'user' }, m.snapshot.users],
    ]),
  );
  mirroredGauge(
    registry,
    'cordon_dns_snapshot_load_seconds',
    'Duration of the last category-index load, of the last identity relink, and of the last safety-net resync (digests and rebuilds).',
    ['step'],
    from((m) => [
      [{ step: 'category_load' }, m.snapshot.categoryLoadMs / 1000],
      [{ step: 'relink' }, m.snapshot.relinkMs / 1000],
      [{ step: 'resync' }, m.snapshot.lastResyncMs / 1000],
    ]),
  );
  mirroredGauge(
    registry,
    'cordon_dns_connections',
    'Connections open now by transport.',
    ['transport'],
    from((m) => [
      [{ transport: 'tcp' }, m.tcp.connections],
      [{ transport: 'dot' }, m.dot.connections],
    ]),
  );
  mirroredCounter(
    registry,
    'cordon_dns_connections_closed_total',
    'Connections refused at accept or closed by a limit: refused, idle, deadline (slow drip), stalled (unread answers), malformed, dot_refused, dot_handshake_failed.',
    ['reason'],
    from((m) => [
      [{ reason: 'refused' }, m.tcp.refused],
      [{ reason: 'idle' }, m.tcp.idleClosed],
      [{ reason: 'deadline' }, m.tcp.deadlineClosed],
      [{ reason: 'stalled' }, m.tcp.stalledClosed],
      [{ reason: 'malformed' }, m.tcp.malformedClosed],
      [{ reason: 'dot_refused' }, m.dot.rejected],
      [{ reason: 'dot_handshake_failed' }, m.dot.handshakeFailed],
    ]),
  );
  mirroredCounter(
    registry,
    'cordon_dns_doh_rejected_total',
    'DoH requests answered with an HTTP error (unknown key or path, bad method, type, size or message).',
    [],
    one((m) => m.doh.rejected),
  );
  mirroredCounter(
    registry,
    'cordon_dns_udp_send_errors_total',
    'UDP answers the kernel refused to send (dropped).',
    [],
    one((m) => m.udpSendErrors),
  );
}

/**
 * `cordon_dns_upstream_latency_seconds`, a histogram per upstream of the round trips its client
 * counted (`UpstreamHealth.latency`): a collector of prom-client's metric shape, since prom-client's
 * own Histogram only counts observations made through it.
 */
function registerUpstreamLatency(registry: Registry, current: () => ResolverMetrics | null): void {
  const name = 'cordon_dns_upstream_latency_seconds';
  const metric = {
    name,
    help: "Round trips of the UDP answers of each upstream to the resolver's queries (not probes or static routes).",
    type: 'histogram',
    aggregator: 'sum',
    get: async () => {
      const values: Array<{ metricName: string; labels: Record<string, string | number>; value: number }> = [];
      for (const u of current()?.upstreamHealth ?? []) {
        const upstream = u.host.includes(':') ? `[${u.host}]:${u.port}` : `${u.host}:${u.port}`;
        let cumulative = 0;
        u.latency.boundsMs.forEach((bound, i) => {
          cumulative += u.latency.counts[i] ?? 0;
          values.push({ metricName: `${name}_bucket`, labels: { upstream, le: bound / 1000 }, value: cumulative });
        });
        cumulative += u.latency.counts[u.latency.boundsMs.length] ?? 0;
        values.push({ metricName: `${name}_bucket`, labels: { upstream, le: '+Inf' }, value: cumulative });
        values.push({ metricName: `${name}_sum`, labels: { upstream }, value: u.latency.sumMs / 1000 });
        values.push({ metricName: `${name}_count`, labels: { upstream }, value: cumulative });
      }
      return { name, help: metric.help, type: 'histogram', values, aggregator: 'sum' };
    },
  };
  registry.registerMetric(metric as unknown as Parameters<Registry['registerMetric']>[0]);
}
