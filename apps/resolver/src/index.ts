/**
 * @cordon/resolver — the filtering DNS resolver and the block-page server (docs/architecture.md
 * "Data plane"). The CLI's `resolver` and `blockpage` roles call {@link startResolver} and
 * {@link startBlockPage}. The policy engine it decides with is @cordon/policy, shared with the API's
 * test-categorisation tool.
 */
import { type AddressInfo, isIP } from 'node:net';
import type { ChangeFeed, DatabaseHandle } from '@cordon/db';
import type { Logger } from 'pino';
import { AnswerCache } from './cache/answer-cache.ts';
import { COUNTED_QTYPES, ResolverCounters, TRANSPORTS } from './metrics.ts';

/** RCODE names (RFC 1035 §4.1.1, RFC 2136 §2.2, RFC 6895 §2.3) of the 4-bit header field. */
const RCODE_NAMES = [
  'NOERROR',
  'FORMERR',
  'SERVFAIL',
  'NXDOMAIN',
  'NOTIMP',
  'REFUSED',
  'YXDOMAIN',
  'YXRRSET',
  'NXRRSET',
  'NOTAUTH',
  'NOTZONE',
  'DSOTYPENI',
];

import type { BlockAddresses } from './pipeline/answers.ts';
import type { ChaosIdentity } from './pipeline/chaos.ts';
import { composePipeline } from './pipeline/order.ts';
import { openQueryLog, QueryLogWorkerWriter } from './querylog/threaded.ts';
import type { QueryLogOptions, QueryLogStats } from './querylog/writer.ts';
import { type SnapshotStats, SnapshotStore } from './snapshot/store.ts';
import { type DohServer, type DohServerOptions, startDohServer } from './transport/doh.ts';
import { type DotServer, startDotServer } from './transport/dot.ts';
import { createExchange } from './transport/exchange.ts';
import { DEFAULT_LOCATION_RATE, DEFAULT_RRL_RATE, DEFAULT_RRL_SLIP, type RrlOptions } from './transport/rrl.ts';
import { startTcpServer, type TcpOptions, type TcpServer } from './transport/tcp.ts';
import { startUdpServer, type UdpBackend } from './transport/udp.ts';
import { UpstreamClient, type UpstreamHealth, type UpstreamServer, type UpstreamStats } from './upstream/client.ts';

export type { BlockPageOptions, RunningBlockPage } from './blockpage/http.ts';
export { startBlockPage } from './blockpage/http.ts';
export type { BlockAddresses } from './pipeline/answers.ts';
export { PIPELINE } from './pipeline/order.ts';
export type { StreamStats } from './querylog/streams/sinks.ts';
export {
  parseDnstapTarget,
  parseNdjsonTarget,
  parseSyslogTarget,
  type StreamTarget,
  targetLabel,
} from './querylog/streams/targets.ts';
export { QUERY_LOG_WORKER_BUNDLE_NAME } from './querylog/threaded.ts';
export { insertQueryLogRaw, type QueryLogOptions, type QueryLogRow } from './querylog/writer.ts';
export type { SnapshotStore } from './snapshot/store.ts';
export { DNS_MESSAGE } from './transport/doh.ts';
export type { DotServerOptions } from './transport/dot.ts';
export { DEFAULT_LOCATION_RATE, DEFAULT_RRL_RATE, DEFAULT_RRL_SLIP, type RrlOptions } from './transport/rrl.ts';
export { TCP_DEFAULTS, type TcpOptions } from './transport/tcp.ts';
export { DEFAULT_UDP_RECV_BUFFER, type UdpBackend } from './transport/udp.ts';
export type { UpstreamHealth, UpstreamServer } from './upstream/client.ts';

/** Settings of {@link startResolver}. */
export interface ResolverOptions {
  db: DatabaseHandle;
  changes: ChangeFeed;
  logger: Logger;
  /** Listen address for both UDP and TCP (default in the CLI 127.0.0.1:5353); port 0 picks a free port (same for both). */
  dns: { host: string; port: number };
  /** Upstream resolvers, asked round-robin among the healthy ones (at least one; see {@link UpstreamClient}). */
  upstreams: UpstreamServer[];
  /** Answers for blocked A / AAAA questions (the block page's addresses), e.g. 127.0.0.1 / ::1. */
  blockAddresses: BlockAddresses;
  /**
   * Query-log batching; defaults: batchSize 1000 rows, flushMs 500, maxBuffer 50,000 rows, written
   * on a writer thread with its own connection (derived for a SQLite file; PostgreSQL needs
   * `queryLog.connection`, e.g. `{ url }`), else on the resolving thread.
   */
  queryLog?: QueryLogOptions;
  /** Answer cache size, entries (default 100,000). */
  cacheEntries?: number;
  /** Budget of one upstream query across its retransmissions, ms (default 3000; docs/operations.md "Upstreams"). */
  upstreamTimeoutMs?: number;
  /** How often a down upstream is probed, ms (default 5000). */
  upstreamProbeIntervalMs?: number;
  /**
   * Response-rate limiting of UDP answers per client prefix (IPv4 /24, IPv6 /56): default 200
   * responses/s and slip 2; `ratePerSecond: 0` turns it off (see {@link RrlOptions}).
   */
  rrl?: RrlOptions;
  /**
   * Queries per second per claimed location over UDP (`--location-rate-limit`; docs/operations.md
   * "Response-rate limiting"): default {@link DEFAULT_LOCATION_RATE}; 0 turns it off.
   */
  locationRate?: number;
  /** TCP limits (RFC 7766 §6.2): timeouts, pipelining, connection caps, for DoT's connections too (counted apart); defaults in {@link TCP_DEFAULTS}. */
  tcp?: TcpOptions;
  /** UDP receive buffer to ask for, bytes (default 8 MiB; capped by the kernel, effective size logged; 0: system default). */
  udpRecvBufferBytes?: number;
  /** UDP receive/send path (transport/udp.ts): `auto` (default: batched when `@cordon/udp-batch` is built), `batch`, `dgram`. */
  udpBackend?: UdpBackend;
  /**
   * Bind UDP with SO_REUSEPORT so several data-plane threads share the port (`--resolver-threads`,
   * dataplane/host.ts); needs the batched backend.
   */
  udpReusePort?: boolean;
  /**
   * Serve UDP only: no TCP, no DoH (the extra data-plane threads of `--resolver-threads`; the first
   * thread serves TCP and DoH). `address.tcp` then repeats the UDP address.
   */
  udpOnly?: boolean;
  /** DNS over HTTPS (RFC 8484) at `/dns-query/{key}` on its own listener (transport/doh.ts); off when absent. */
  doh?: DohOptions;
  /** DNS over TLS (RFC 7858) on its own listener (transport/dot.ts), with the TCP limits; off when absent. */
  dot?: DotOptions;
  /** CHAOS TXT answers for `version.bind` and `id.server` (pipeline/chaos.ts); absent or empty texts: REFUSED. */
  chaos?: ChaosIdentity;
  /**
   * Directory of the last good snapshot on disk (docs/operations.md "Fleet"): written after each
   * full load, served at start when the database is unreachable; unset or null: none.
   */
  snapshotDir?: string | null;
}

/**
 * The DoH listener (docs/agent.md "DoH"): its address and TLS credentials — a configured
 * certificate chain and key (PEM text), or the CA secret's text, with which a leaf per SNI host is
 * minted from the deployment's root CA like the HTTPS block page does. Plain data (crosses to the
 * data-plane thread).
 */
export interface DohOptions {
  host: string;
  port: number;
  tls: { certPem: string; keyPem: string } | { caSecret: string };
}

/**
 * The DoT listener (docs/agent.md "DoT"): its address, the same TLS choices as {@link DohOptions}
 * (a configured chain, else a leaf per SNI host minted from the root CA), and the host-name suffix
 * whose leftmost label carries a key (`--dot-hostname`; null: any server name's leftmost label).
 * Plain data (crosses to the data-plane thread).
 */
export interface DotOptions {
  host: string;
  port: number;
  tls: { certPem: string; keyPem: string } | { caSecret: string };
  hostname: string | null;
}

/** TCP transport counters (RFC 7766 §6.2 limits), see {@link TcpOptions}. */
export interface TcpMetrics {
  /** Connections open now. */
  connections: number;
  /** Destroyed at accept: over the global or per-source cap. */
  refused: number;
  idleClosed: number;
  /** Closed because a started message missed its deadline (slow drip). */
  deadlineClosed: number;
  /** Closed because their answers stayed unread past the write timeout. */
  stalledClosed: number;
  /** Closed for a frame shorter than a DNS header. */
  malformedClosed: number;
  /** Times reading was paused because a connection's output was unread. */
  backpressurePauses: number;
  /** Largest output buffered for one connection after a write, bytes. */
  peakWriteBuffer: number;
}

/** A copy of the resolver's counters (monotonic since start). */
export interface ResolverMetrics {
  queries: number;
  malformed: number;
  unknownClients: number;
  allowed: number;
  blocked: number;
  /** Of `blocked`: allowed qnames whose upstream answer named a blocked alias (pipeline/answer-check.ts). */
  blockedByAlias: number;
  /** Questions of a class other than IN: answered locally (CHAOS identity) or REFUSED, never forwarded. */
  nonInternetClass: number;
  cacheHits: number;
  cacheMisses: number;
  /** Misses answered by an identical upstream query already in flight. */
  coalesced: number;
  staleAnswers: number;
  servfail: number;
  truncated: number;
  /** qtype ANY answered with the synthesized HINFO (RFC 8482). */
  minimalAny: number;
  /** UDP queries over their prefix's response rate: dropped or slipped. */
  rateLimited: number;
  /** Of `rateLimited` and `locationLimited`, those answered with an empty TC=1 answer. */
  slipped: number;
  /** UDP queries over their claimed location's limit (`--location-rate-limit`): dropped or slipped. */
  locationLimited: number;
  tcp: TcpMetrics;
  /** The UDP socket's receive buffer as the kernel reports it, bytes. */
  udpRecvBufferBytes: number;
  /** The UDP path in use: `batch` (recvmmsg / sendmmsg) or `dgram`. */
  udpBackend: 'batch' | 'dgram';
  /** `recvmmsg` calls that returned datagrams (0 on dgram): queries ÷ this is the mean batch size. */
  udpBatches: number;
  /** UDP answers the kernel refused to send (send buffer full, unreachable): dropped. */
  udpSendErrors: number;
  cacheEntries: number;
  queryLog: QueryLogStats;
  /** Where query-log INSERTs run: `worker` (a writer thread with its own connection) or `inline` (this thread). */
  queryLogWriter: 'worker' | 'inline';
  upstream: UpstreamStats;
  /** Per upstream, in configured order. */
  upstreamHealth: UpstreamHealth[];
  /** DoH requests answered with a DNS message, and refused with an HTTP error (404 unknown key…). */
  doh: { queries: number; rejected: number };
  /**
   * DoT (its connections' timeouts and closes count in `tcp`): queries, connections refused at
   * accept over the caps, failed TLS handshakes, connections open now (past the handshake).
   */
  dot: { queries: number; rejected: number; handshakeFailed: number; connections: number };
  /** Queries identified by a device key (DoH path, DoT server name or EDNS option 65073) and by a roaming/virtual location's key (DoH path or DoT server name). */
  identifiedBy: { deviceKey: number; locationKey: number };
  /** Queries decoded, by transport: `udp`, `tcp`, `doh`, `dot`. */
  byTransport: Record<string, number>;
  /** Queries decoded, by qtype: the common ones by name, every other under `other` (metrics.ts COUNTED_QTYPES). */
  byQtype: Record<string, number>;
  /** Answers to decoded queries by RCODE name (`NOERROR`, `NXDOMAIN`…; `RCODE<n>` for the unnamed ones), non-zero ones only. */
  byRcode: Record<string, number>;
  snapshot: SnapshotStats;
}

/** What {@link RunningResolver.reconfigure} changes; an absent field is left as it is. */
export interface ResolverReconfigure {
  upstreams?: readonly UpstreamServer[];
  /** The DoH and DoT listeners' certificate chain and key (PEM); ignored by listeners minting from the root CA. */
  tls?: { certPem: string; keyPem: string };
}

/** A running resolver. */
export interface RunningResolver {
  /** The bound UDP and TCP addresses (same host and port), and the DoH and DoT listeners' when they run. */
  readonly address: { udp: AddressInfo; tcp: AddressInfo; doh?: AddressInfo; dot?: AddressInfo };
  /** Current counters (a fresh copy on each read). */
  readonly metrics: ResolverMetrics;
  /** Reloads every part of the snapshot in full now. Rejects when the database cannot be read; the old snapshot stays. */
  reload(): Promise<void>;
  /**
   * Applies settings that need no restart (SIGHUP; docs/operations.md "Configuration check and
   * reload"): new upstreams (one kept keeps its health), and a new DoH/DoT certificate chain and key
   * for new connections. Nothing is dropped: queries in flight finish as they started.
   * @throws Error for an empty upstream list or a certificate pair TLS refuses; what was applied before the error stays
   */
  reconfigure(change: ResolverReconfigure): void;
  /** The live snapshot, to share with a block page in the same process ({@link BlockPageOptions.snapshot}). */
  readonly snapshot: SnapshotStore;
  /** Stops listening, stops following changes, flushes the query log. */
  close(): Promise<void>;
}

/**
 * Starts the filtering resolver (docs/architecture.md "Data plane"): loads the snapshot parts,
 * follows `changes`, and serves UDP and TCP on `dns.host:dns.port`, and DoH and DoT on their own
 * listeners when configured. With port 0 the UDP port is chosen first and TCP binds the same number.
 * @throws when the first snapshot load fails (and no snapshot on disk can stand in) or an address cannot be bound
 */
export async function startResolver(opts: ResolverOptions): Promise<RunningResolver> {
  const logger = opts.logger;
  const counters = new ResolverCounters();
  const store = new SnapshotStore(opts.db, logger, { snapshotDir: opts.snapshotDir ?? null });
  await store.start();
  store.follow(opts.changes);
  const cache = new AnswerCache({ maxEntries: opts.cacheEntries ?? 100_000 });
  const upstream = new UpstreamClient(opts.upstreams, {
    timeoutMs: opts.upstreamTimeoutMs ?? 3000,
    probeIntervalMs: opts.upstreamProbeIntervalMs ?? 5000,
  });
  const queryLog = openQueryLog(opts.db, logger, opts.queryLog);
  const handler = composePipeline({
    store,
    cache,
    upstream,
    queryLog,
    counters,
    blockAddresses: opts.blockAddresses,
    ...(opts.chaos ? { chaos: opts.chaos } : {}),
  });
  const exchange = createExchange(handler, counters, logger);

  const udpOptions = {
    ...(opts.rrl ? { rrl: opts.rrl } : {}),
    ...(opts.locationRate !== undefined ? { locationRate: opts.locationRate } : {}),
    claimedLocation: (ip: string) => store.claimedLocation(ip),
    ...(opts.udpRecvBufferBytes !== undefined ? { recvBufferBytes: opts.udpRecvBufferBytes } : {}),
    ...(opts.udpBackend !== undefined ? { backend: opts.udpBackend } : {}),
    ...(opts.udpReusePort ? { reusePort: true } : {}),
  };
  let udp: Awaited<ReturnType<typeof startUdpServer>>;
  let tcp: Awaited<ReturnType<typeof startTcpServer>>;
  for (let attempt = 1; ; attempt++) {
    udp = await startUdpServer(opts.dns.host, opts.dns.port, exchange, logger, udpOptions, counters);
    if (opts.udpOnly) {
      tcp = udpOnlyTcp(udp.address);
      break;
    }
    try {
      tcp = await startTcpServer(opts.dns.host, udp.address.port, exchange, logger, opts.tcp, counters);
      break;
    } catch (err) {
      await udp.close();
      // With port 0 the free UDP port may be some TCP client's ephemeral port: pick another.
      const taken = (err as NodeJS.ErrnoException).code === 'EADDRINUSE';
      if (!(taken && opts.dns.port === 0 && attempt < 5)) throw err;
    }
  }
  let doh: DohServer | null = null;
  let dot: DotServer | null = null;
  const knowsKey = (key: string) => store.knowsKey(key);
  try {
    if (opts.doh && !opts.udpOnly) {
      const tls = await dohTls(opts.doh, opts.db, logger);
      doh = await startDohServer(opts.doh.host, opts.doh.port, exchange, logger, { tls, knowsKey }, counters);
    }
    if (opts.dot && !opts.udpOnly) {
      const tls = await dohTls(opts.dot, opts.db, logger);
      dot = await startDotServer(
        opts.dot.host,
        opts.dot.port,
        exchange,
        logger,
        { tls, hostname: opts.dot.hostname, knowsKey, ...(opts.tcp ? { limits: opts.tcp } : {}) },
        counters,
      );
    }
  } catch (err) {
    await Promise.all([udp.close(), tcp.close(), doh?.close()]);
    store.close();
    throw err;
  }
  logger.info(
    {
      udp: `${udp.address.address}:${udp.address.port}`,
      ...(doh ? { doh: `${doh.address.address}:${doh.address.port}` } : {}),
      ...(dot ? { dot: `${dot.address.address}:${dot.address.port}` } : {}),
      ...(opts.udpOnly ? { udpOnly: true } : { tcp: `${tcp.address.address}:${tcp.address.port}` }),
      upstreams: opts.upstreams.map((u) => `${u.host}:${u.port}`),
      categoryDomains: store.stats.categoryDomains,
      rrl:
        opts.rrl?.ratePerSecond === 0
          ? 'off'
          : `${opts.rrl?.ratePerSecond ?? DEFAULT_RRL_RATE}/s slip ${opts.rrl?.slip ?? DEFAULT_RRL_SLIP}`,
      locationRate: opts.locationRate === 0 ? 'off' : `${opts.locationRate ?? DEFAULT_LOCATION_RATE}/s`,
      udpRecvBufferBytes: udp.recvBufferBytes,
      udpBackend: udp.backend,
    },
    'resolver listening',
  );

  let closed = false;
  return {
    address: {
      udp: udp.address,
      tcp: tcp.address,
      ...(doh ? { doh: doh.address } : {}),
      ...(dot ? { dot: dot.address } : {}),
    },
    get metrics(): ResolverMetrics {
      return {
        queries: counters.queries,
        malformed: counters.malformed,
        unknownClients: counters.unknownClients,
        allowed: counters.allowed,
        blocked: counters.blocked,
        blockedByAlias: counters.blockedByAlias,
        nonInternetClass: counters.nonInternetClass,
        cacheHits: counters.cacheHits,
        cacheMisses: counters.cacheMisses,
        coalesced: counters.coalesced,
        staleAnswers: counters.staleAnswers,
        servfail: counters.servfail,
        truncated: counters.truncated,
        minimalAny: counters.minimalAny,
        rateLimited: counters.rateLimited,
        slipped: counters.slipped,
        locationLimited: counters.locationLimited,
        tcp: {
          connections: tcp.connections,
          refused: counters.tcpRefused,
          idleClosed: counters.tcpIdleClosed,
          deadlineClosed: counters.tcpDeadlineClosed,
          stalledClosed: counters.tcpStalledClosed,
          malformedClosed: counters.tcpMalformedClosed,
          backpressurePauses: counters.tcpBackpressurePauses,
          peakWriteBuffer: counters.tcpPeakWriteBuffer,
        },
        udpRecvBufferBytes: udp.recvBufferBytes,
        udpBackend: udp.backend,
        udpBatches: udp.stats().batches,
        udpSendErrors: udp.stats().sendErrors,
        cacheEntries: cache.size,
        queryLog: { ...queryLog.stats },
        queryLogWriter: queryLog instanceof QueryLogWorkerWriter ? 'worker' : 'inline',
        upstream: { ...upstream.stats },
        upstreamHealth: upstream.health(),
        doh: { queries: counters.dohQueries, rejected: counters.dohRejected },
        dot: {
          queries: counters.dotQueries,
          rejected: counters.dotRejected,
          handshakeFailed: counters.dotHandshakeFailed,
          connections: dot?.connections ?? 0,
        },
        identifiedBy: { deviceKey: counters.byDeviceKey, locationKey: counters.byLocationKey },
        byTransport: Object.fromEntries(TRANSPORTS.map((t, i) => [t, counters.byTransport[i] ?? 0])),
        byQtype: Object.fromEntries([
          ...COUNTED_QTYPES.map(([name], i) => [name, counters.byQtype[i] ?? 0]),
          ['other', counters.byQtype[COUNTED_QTYPES.length] ?? 0],
        ]),
        byRcode: Object.fromEntries(
          [...counters.byRcode].flatMap((n, rcode) => (n > 0 ? [[RCODE_NAMES[rcode] ?? `RCODE${rcode}`, n]] : [])),
        ),
        snapshot: { ...store.stats },
      };
    },
    reload: () => store.load(),
    reconfigure(change) {
      if (change.upstreams) upstream.setServers(change.upstreams);
      if (change.tls) {
        const pem = { cert: change.tls.certPem, key: change.tls.keyPem };
        if (opts.doh && 'certPem' in opts.doh.tls) doh?.setCredentials(pem);
        if (opts.dot && 'certPem' in opts.dot.tls) dot?.setCredentials(pem);
      }
      logger.info(
        { upstreams: change.upstreams?.map((u) => `${u.host}:${u.port}`), tls: change.tls !== undefined },
        'resolver reconfigured',
      );
    },
    snapshot: store,
    close: async () => {
      if (closed) return;
      closed = true;
      // Parts changed since their file was written are written now, so a restart during an outage
      // serves them; bounded, as the database may be the reason for the stop.
      await Promise.race([store.flushed(), new Promise((r) => setTimeout(r, 5000).unref())]);
      store.close();
      await Promise.all([udp.close(), tcp.close(), doh?.close(), dot?.close()]);
      upstream.close();
      await queryLog.close();
    },
  };
}

/**
 * The DoH or DoT listener's TLS credentials: the configured PEM pair, or a leaf per SNI host minted
 * from the deployment's root CA (created on first use), with a fallback leaf for `localhost`, the
 * loopback addresses and the listen address for clients that send no SNI (docs/agent.md "DoH", "DoT").
 */
async function dohTls(
  doh: Pick<DohOptions, 'host' | 'tls'>,
  db: DatabaseHandle,
  logger: Logger,
): Promise<DohServerOptions['tls']> {
  if ('certPem' in doh.tls) return { cert: doh.tls.certPem, key: doh.tls.keyPem };
  // Loaded here: the X.509 code is evaluated only by a process that signs leaves.
  const { ensureRootCa, LeafMinter } = await import('@cordon/pki/signing');
  const ca = await ensureRootCa(db, Buffer.from(doh.tls.caSecret, 'utf8'));
  const ips = ['127.0.0.1', '::1', ...(isIP(doh.host) !== 0 ? [doh.host] : [])];
  const minter = new LeafMinter(ca, { fallback: { dnsNames: ['localhost'], ipAddresses: [...new Set(ips)] } });
  const fallback = await minter.fallbackCredentials();
  return {
    ...fallback,
    SNICallback: (servername, done) => {
      const context = minter.contextFor(servername);
      if (context === null) return done(null, undefined);
      context.then(
        (ctx) => done(null, ctx),
        (err: unknown) => {
          logger.error({ err, servername }, 'doh/dot: minting a certificate failed');
          done(err as Error, undefined);
        },
      );
    },
  };
}

/** The TCP side of a UDP-only resolver ({@link ResolverOptions.udpOnly}): nothing listens, nothing to close. */
function udpOnlyTcp(address: AddressInfo): TcpServer {
  return { address, connections: 0, close: async () => undefined };
}
