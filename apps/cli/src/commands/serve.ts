import { existsSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { createChangeFeed, isDatabaseUnreachable, migrateToLatest, type OpenDatabaseOptions } from '@cordon/db';
import { createSecretBox, loadCaSecret, rootCaPresent } from '@cordon/pki/secrets';
import type { ResolverMetrics } from '@cordon/resolver';
import type { DataPlaneReconfigure, RunningDataPlane } from '@cordon/resolver/dataplane';
import type { StreamTarget } from '@cordon/resolver/streams';
import { setOutboundAllow } from '@cordon/shared/outbound';
import type { Logger } from 'pino';
import { describeConfig, type HostPort, RELOADABLE_SETTINGS, SERVE_SETTINGS, type ServeConfig } from '../config.ts';
import { openConfiguredDatabase } from '../database.ts';
import { createReadiness } from '../ops/health.ts';
import { createMetrics } from '../ops/metrics.ts';
import { type OpsEndpoints, registerOpsRoutes, startOpsServer } from '../ops/server.ts';
import { CORDON_VERSION } from '../version.ts';

/** A running `cordon serve`: the bound addresses and how to stop it. */
export interface RunningCordon {
  http?: HostPort;
  dns?: HostPort;
  blockPage?: HostPort;
  blockPageHttps?: HostPort;
  /** The resolver's DoH listener (`--doh-addr`), when it runs. */
  doh?: HostPort;
  /** The resolver's DoT listener (`--dot-addr`), when it runs. */
  dot?: HostPort;
  /** `/metrics`, `/healthz` and `/readyz` of a process without the `api` role (`--metrics-addr`), when served. */
  metrics?: HostPort;
  /** The resolver's counters, copied from the data-plane thread; null without the `resolver` role. */
  resolverMetrics(): Promise<ResolverMetrics | null>;
  /**
   * Resolves (never rejects) when a role fails at runtime — the data-plane thread died — once
   * everything else has been stopped; `cordon serve` then exits 1 (docs/operations.md "Threads").
   */
  readonly failed: Promise<Error>;
  /**
   * Applies the settings of `next` that need no restart ({@link RELOADABLE_SETTINGS}: upstreams, log
   * level, and the DoH/DoT certificate files, re-read even when their names did not change), without
   * dropping a query (SIGHUP; docs/operations.md "Configuration check and reload").
   * @returns the settings applied, and those that changed but take effect only after a restart
   * @throws Error when the data plane refuses the change or a certificate file cannot be read; the
   *   running settings stay
   */
  reload(next: ServeConfig): Promise<{ applied: string[]; restartNeeded: string[] }>;
  /** Stops listeners, flushes the query log, closes the database. Safe to call twice. */
  close(): Promise<void>;
}

const bound = (a: AddressInfo | string | null | undefined, fallback: HostPort): HostPort =>
  a && typeof a === 'object' ? { host: a.address, port: a.port } : fallback;

/**
 * Starts Cordon (issue #2 deliverable 2): migrations, the first-run system admin, the console and
 * `/restapi`, the resolver on UDP+TCP and the block page, each as its role is enabled. Prints the
 * generated admin password once, then one boot line of the effective configuration.
 *
 * The API runs on this thread; the resolver and the block page run on their own thread (the data
 * plane, with its own database connection and change feed), so no API request, import or report
 * can delay a DNS answer. Topics the API publishes are relayed to that thread at once. Without the
 * `api` and `worker` roles the data plane runs on this thread instead (docs/operations.md "Threads").
 * Each role's modules are imported only when the role is on.
 * @throws Error when the database cannot be opened or migrated or an address cannot be bound;
 *   anything already started is stopped again first
 */
export async function startCordon(
  config: ServeConfig,
  logger: Logger,
  print: (line: string) => void,
): Promise<RunningCordon> {
  // The outbound-request guard (docs/security.md "Outbound requests"): the operator's allowance;
  // what it refuses or fails to reach is logged here, the tenant sees one generic message.
  // One child per role, each line carrying `role`; all of them follow a log-level reload (docs/operations.md "Logs").
  const roleLoggers = new Set<Logger>();
  const roleLog = (role: string): Logger => {
    const child = logger.child({ role });
    roleLoggers.add(child);
    return child;
  };
  const log = roleLog('serve');
  let apiLog: { level: string } | null = null;
  setOutboundAllow(config.outboundAllow, (fields) => log.warn(fields, 'outbound request refused or failed'));
  // A lost connection is logged once per connection; the pool opens a new one on the next query.
  const handle = openConfiguredDatabase(config, (err) =>
    log.warn({ err }, 'database connection lost; the next query reconnects'),
  );
  // Held until close: a process without a listening socket (`--roles worker`) would otherwise end,
  // status 0, once an outage closed its last database connection (docs/operations.md "When the
  // database goes away"); every other timer of the roles is unref'd.
  const keepAlive = setInterval(() => undefined, 1 << 30);
  const closers: Array<() => Promise<void>> = [async () => clearInterval(keepAlive), () => handle.close()];
  let dataPlane: RunningDataPlane | null = null;
  let fail: (err: Error) => void = () => undefined;
  let current = config;
  const running: RunningCordon = {
    resolverMetrics: async () => (dataPlane ? dataPlane.metrics() : null),
    reload: async (next) => {
      const changed = SERVE_SETTINGS.map((s) => s.key).filter(
        (key) => JSON.stringify(next[key]) !== JSON.stringify(current[key]),
      );
      const applied = changed.filter((key) => RELOADABLE_SETTINGS.includes(key));
      const change: DataPlaneReconfigure = {};
      if (applied.includes('logLevel')) change.logLevel = next.logLevel;
      if (applied.includes('upstreams')) change.upstreams = next.upstreams;
      // Re-read whatever the names: a renewal replaces the files' contents in place.
      if (next.dohCertFile && next.dohKeyFile && (next.dohAddr || next.dotAddr)) {
        change.tls = { certPem: readFileSync(next.dohCertFile, 'utf8'), keyPem: readFileSync(next.dohKeyFile, 'utf8') };
        if (!applied.includes('dohCertFile')) applied.push('dohCertFile');
      }
      await dataPlane?.reconfigure(change);
      if (change.logLevel) {
        for (const l of [logger, ...roleLoggers]) l.level = change.logLevel;
        if (apiLog) apiLog.level = apiLogLevel(change.logLevel);
      }
      current = { ...current, ...Object.fromEntries(applied.map((key) => [key, next[key]])) };
      return { applied, restartNeeded: changed.filter((key) => !RELOADABLE_SETTINGS.includes(key)) };
    },
    failed: new Promise<Error>((resolve) => {
      fail = resolve;
    }),
    close: async () => {
      while (closers.length > 0) {
        const close = closers.pop();
        try {
          await close?.();
        } catch (err) {
          log.error({ err }, 'shutdown step failed');
        }
      }
    },
  };
  // Metrics and health (docs/operations.md "Monitoring"): the resolver's figures are read from the
  // data plane at scrape time, so nothing is added to its hot path.
  const resolverMetrics = config.roles.includes('resolver') ? () => running.resolverMetrics() : undefined;
  // Mail goes out from the API (invitations, resets) and the worker (reports); core loads only then.
  const mailDeliveries = config.roles.some((r) => r === 'api' || r === 'worker')
    ? (await import('@cordon/core')).mail.mailDeliveries
    : undefined;
  const ops: OpsEndpoints = {
    roles: config.roles,
    metrics: createMetrics({
      version: CORDON_VERSION,
      roles: config.roles,
      ...(resolverMetrics ? { resolverMetrics } : {}),
      ...(mailDeliveries ? { mailDeliveries: () => mailDeliveries } : {}),
    }),
    readiness: createReadiness({ roles: config.roles, handle, ...(resolverMetrics ? { resolverMetrics } : {}) }),
  };
  try {
    // A resolver alone may start with the database down: it then serves its snapshot kept on disk
    // and catches up when the database returns (docs/operations.md "Fleet").
    const fromDisk = config.roles.every((r) => r === 'resolver') && config.snapshotDir !== null;
    const reachable = await migrateToLatest(handle).then(
      (applied) => {
        if (applied.length > 0) log.info({ migrations: applied }, 'database migrated');
        return true;
      },
      (err: unknown) => {
        if (!(fromDisk && isDatabaseUnreachable(err))) throw err;
        log.warn({ err }, 'database unreachable: the resolver starts from its snapshot on disk');
        return false;
      },
    );
    // The root CA's key is sealed with a secret kept outside the database (docs/decisions.md "Root CA").
    // Created here on the first start, whatever the roles, so the download works at once.
    const ca = loadCaSecret({ file: config.caSecretFile, secret: config.caSecret });
    if (ca.created) print(`First run: root CA secret created in ${config.caSecretFile}`);
    // Checked without the X.509 code, which only creating the root (or signing with it) loads.
    if (reachable && !(await rootCaPresent(handle, ca.secret))) {
      const { ensureRootCa } = await import('@cordon/pki/signing');
      await ensureRootCa(handle, ca.secret);
    }
    // The same secret seals the secrets stored in the database (SMTP passwords, TOTP secrets).
    const secrets = createSecretBox(ca.secret);
    // Not started: nothing on this thread follows changes; the API publishes, the data-plane
    // thread polls for other processes' changes itself and gets this one's relayed.
    const changes = createChangeFeed(handle);
    closers.push(() => changes.close());
    changes.subscribe((topic) => dataPlane?.relay(topic));
    // The data plane's own connection: the SQLite file (WAL allows it) or the URL (the handle keeps no password).
    const connection = config.databaseUrl ? { url: config.databaseUrl } : { sqlitePath: handle.location };
    // The data plane names each of its roles in its lines itself (dataplane/run.ts).
    const dataPlaneStarting = startDataPlaneRoles(config, connection, logger, ca.secret.toString('utf8'));
    // Awaited after the API has started; marked handled now so a failure meanwhile is not "unhandled".
    dataPlaneStarting?.catch(() => undefined);
    closers.push(async () => {
      const started = await dataPlaneStarting?.catch(() => null);
      await started?.close();
    });

    if (config.roles.includes('api')) {
      // Each role's modules load only when it is on (dynamic imports, chunks of the bundle): a
      // resolver-only process never evaluates the API, fastify, pdf or mail (bench/README.md "Resolver memory").
      const { buildApp, ensureSystemAdmin, loadJwtKeyRing } = await import('@cordon/api');
      const admin = await ensureSystemAdmin(handle, { email: config.adminEmail, password: config.adminPassword });
      if (admin.generatedPassword) {
        print(
          `First run: system admin ${admin.email} created with password ${admin.generatedPassword} (shown once; change it after logging in)`,
        );
      } else if (admin.created) {
        print(`First run: system admin ${admin.email} created`);
      }
      // The signing keys live outside the database (docs/security.md): CORDON_JWT_KEY, else the key file.
      const jwt = loadJwtKeyRing({ file: config.jwtKeyFile, keys: config.jwtKey });
      if (jwt.created) print(`First run: access-token signing key created in ${config.jwtKeyFile}`);
      const app = await buildApp({
        db: handle,
        changes,
        jwtKeys: jwt.ring,
        trustProxy: config.trustProxy,
        upstreams: config.upstreams,
        // One tenant's lists must not grow the resolver's snapshot without bound (docs/operations.md "List sizes").
        listLimits: { maxEntries: config.maxListEntries },
        // One tenant's history search must not hold the others' requests (docs/operations.md "Heavy reads").
        heavyReads: { size: config.readPool, timeoutMs: config.readTimeout * 1000 },
        // What the console shows for phones, and the Apple profiles' DoH URL (docs/agent.md "Phones").
        phoneSetup: { dohUrl: config.dohPublicUrl, dotHostname: config.dotHostname },
        dnsRateLimits: { locationQps: config.locationRateLimit, rrlQps: config.rrlRate },
        logger: { level: apiLogLevel(config.logLevel), base: { pid: process.pid, hostname: hostname(), role: 'api' } },
        claims: {
          maxPrefixV4: config.claimMaxPrefixV4,
          maxPrefixV6: config.claimMaxPrefixV6,
          allowPrivate: config.claimAllowPrivate,
          allowSpecial: config.claimAllowSpecial,
        },
        ...(existsSync(config.consoleDir) ? { consoleDir: config.consoleDir } : {}),
        secrets,
        observeRequest: (method, route, status, seconds, requestId) => {
          ops.metrics.observeRequest(method, route, status, seconds);
          if (seconds * 1000 >= config.slowRequestMs) {
            app.log.warn({ reqId: requestId, method, route, status, ms: Math.round(seconds * 1000) }, 'slow request');
          }
        },
      });
      apiLog = app.log;
      registerOpsRoutes(app, ops);
      await app.listen({ host: config.httpAddr.host, port: config.httpAddr.port });
      closers.push(() => app.close());
      running.http = bound(app.server.address(), config.httpAddr);
    }
    if (config.roles.includes('worker')) {
      // Background jobs (retention, scheduled reports, …) on this thread's connection; several
      // workers on one database run each job once (docs/architecture.md "Worker").
      const [{ worker, rollups }, { workerJobs }] = await Promise.all([
        import('@cordon/core'),
        import('../worker-jobs.ts'),
      ]);
      const workerLog = roleLog('worker');
      // Jobs retry while the database is unreachable; stopping ends the retries (docs/operations.md
      // "When the database goes away").
      const stopping = new AbortController();
      const running = worker.startWorker(
        { handle, changes, now: Date.now, secrets },
        workerJobs(config, stopping.signal),
        {
          log: workerLog,
          onJobDone: ops.metrics.observeJob,
          tickMs: config.workerTickMs,
        },
      );
      closers.push(() => {
        stopping.abort();
        return running.close();
      });
      // The resolvers append raw rows; the roll-ups are folded here every second (docs/architecture.md "Statistics").
      const folder = rollups.startQueryLogFolder(handle, { log: workerLog });
      closers.push(() => folder.close());
    }
    if (dataPlaneStarting) {
      const started = await dataPlaneStarting;
      dataPlane = started;
      if (dataPlaneInProcess(config)) {
        // What loading the snapshot left resident goes back before the first answer (dataplane/host.ts).
        const { releaseLoadMemory } = await import('@cordon/resolver/dataplane');
        const released = releaseLoadMemory();
        log.debug(released, 'memory released after the snapshot load');
      }
      if (started.dns) running.dns = bound(started.dns.udp, config.dnsAddr);
      if (started.dns?.doh && config.dohAddr) running.doh = bound(started.dns.doh, config.dohAddr);
      if (started.dns?.dot && config.dotAddr) running.dot = bound(started.dns.dot, config.dotAddr);
      if (started.blockPage) running.blockPage = bound(started.blockPage, config.blockPageAddr);
      if (started.blockPageHttps) running.blockPageHttps = bound(started.blockPageHttps, config.blockPageHttpsAddr);
      void started.failed.then(async (err) => {
        log.fatal({ err }, 'data-plane thread (resolver, block page) died; stopping cordon');
        await running.close();
        fail(err);
      });
    }
    if (!config.roles.includes('api') && config.metricsAddr) {
      const server = await startOpsServer(ops, config.metricsAddr);
      closers.push(() => server.close());
      running.metrics = bound(server.address, config.metricsAddr);
    }
  } catch (err) {
    await running.close();
    throw err;
  }
  print(
    `cordon serving: ${describeConfig(
      {
        ...config,
        httpAddr: running.http ?? config.httpAddr,
        dnsAddr: running.dns ?? config.dnsAddr,
        blockPageAddr: running.blockPage ?? config.blockPageAddr,
        blockPageHttpsAddr: running.blockPageHttps ?? config.blockPageHttpsAddr,
        dohAddr: running.doh ?? config.dohAddr,
        dotAddr: running.dot ?? config.dotAddr,
        metricsAddr: running.metrics ?? config.metricsAddr,
      },
      handle.location,
    )}`,
  );
  return running;
}

/** The API's Fastify log level for Cordon's: its per-request lines only at debug (the slow ones are logged anyway). */
function apiLogLevel(level: string): string {
  return level === 'debug' || level === 'trace' ? 'info' : 'warn';
}

/** True when the data plane runs on the main thread: nothing else (API, worker) shares this process. */
function dataPlaneInProcess(config: ServeConfig): boolean {
  return config.roles.every((r) => r === 'resolver' || r === 'blockpage');
}

/**
 * Starts the `resolver` and `blockpage` roles the config enables on the data-plane thread, which
 * opens `connection` itself; null when neither role is enabled.
 */
function startDataPlaneRoles(
  config: ServeConfig,
  connection: OpenDatabaseOptions,
  logger: Logger,
  caSecret: string,
): Promise<RunningDataPlane> | null {
  const resolver = config.roles.includes('resolver');
  const blockPage = config.roles.includes('blockpage');
  if (!resolver && !blockPage) return null;
  return import('@cordon/resolver/dataplane').then(({ startDataPlane }) =>
    startDataPlane({
      connection,
      logger,
      logLevel: config.logLevel,
      resolverThreads: config.resolverThreads,
      // Without the API and the worker nothing else runs on this thread: no second isolate
      // (docs/operations.md "Threads").
      inProcess: dataPlaneInProcess(config),
      ...(resolver
        ? {
            resolver: {
              dns: config.dnsAddr,
              upstreams: config.upstreams,
              blockAddresses: { ipv4: config.blockIpv4, ipv6: config.blockIpv6 },
              chaos: { version: config.chaosVersion, identity: config.chaosIdentity },
              rrl: { ratePerSecond: config.rrlRate, slip: config.rrlSlip },
              locationRate: config.locationRateLimit,
              tcp: { maxConnections: config.tcpMaxConnections, maxConnectionsPerSource: config.tcpMaxPerSource },
              udpRecvBufferBytes: config.udpRecvBuffer,
              udpBackend: config.udpBackend,
              snapshotDir: config.snapshotDir,
              // The query-log writer's backlog beyond its memory bound (docs/decisions.md "Query-log spool").
              // …and its streams (docs/operations.md "Query-log streaming"), fed by the writer thread.
              queryLog: {
                spoolDir: join(config.dataDir, 'querylog-spool'),
                idleWriter: config.queryLogWriter === 'idle',
                streams: logStreamTargets(config),
                // The MSPs' destinations: their sealed values and the outbound guard's allowance.
                mspStreams: { sealKey: caSecret, outboundAllow: config.outboundAllow },
              },
              // DoH (docs/agent.md "DoH"): the configured PEM files, else leaves minted from the root CA.
              ...(config.dohAddr
                ? {
                    doh: {
                      ...config.dohAddr,
                      tls:
                        config.dohCertFile && config.dohKeyFile
                          ? {
                              certPem: readFileSync(config.dohCertFile, 'utf8'),
                              keyPem: readFileSync(config.dohKeyFile, 'utf8'),
                            }
                          : { caSecret },
                    },
                  }
                : {}),
              // DoT (docs/agent.md "DoT"): the same certificate choices as DoH, the key in the SNI host name.
              ...(config.dotAddr
                ? {
                    dot: {
                      ...config.dotAddr,
                      hostname: config.dotHostname,
                      tls:
                        config.dohCertFile && config.dohKeyFile
                          ? {
                              certPem: readFileSync(config.dohCertFile, 'utf8'),
                              keyPem: readFileSync(config.dohKeyFile, 'utf8'),
                            }
                          : { caSecret },
                    },
                  }
                : {}),
            },
          }
        : {}),
      ...(blockPage
        ? { blockPage: { http: config.blockPageAddr, https: { ...config.blockPageHttpsAddr, caSecret } } }
        : {}),
    }),
  );
}

/**
 * The log streams of `config` with their secrets and CA added: the CA file's PEM for TLS syslog and
 * HTTPS, the `Authorization` value for NDJSON (docs/operations.md "Query-log streaming").
 */
function logStreamTargets(config: ServeConfig): StreamTarget[] {
  const ca = config.logStreamCaFile === undefined ? undefined : readFileSync(config.logStreamCaFile, 'utf8');
  const out: StreamTarget[] = [];
  if (config.dnstap !== null) out.push(config.dnstap);
  if (config.syslog?.kind === 'syslog') out.push({ ...config.syslog, ...(config.syslog.tls && ca ? { ca } : {}) });
  if (config.logStreamUrl?.kind === 'ndjson') {
    out.push({
      ...config.logStreamUrl,
      ...(config.logStreamUrl.url.startsWith('https:') && ca ? { ca } : {}),
      ...(config.logStreamAuthorization !== undefined ? { authorization: config.logStreamAuthorization } : {}),
    });
  }
  return out;
}
