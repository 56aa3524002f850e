import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { isIP } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import {
  parseDnstapTarget,
  parseNdjsonTarget,
  parseSyslogTarget,
  type StreamTarget,
  targetLabel,
} from '@cordon/resolver/streams';
import { formatCidr } from '@cordon/shared';
import { parseOutboundAllow } from '@cordon/shared/outbound';

/** A `host:port` listen or upstream address. */
export interface HostPort {
  host: string;
  port: number;
}

/** The roles one `cordon serve` process runs (docs/architecture.md scale-out). */
export const SERVE_ROLES = ['api', 'resolver', 'blockpage', 'worker'] as const;
export type ServeRole = (typeof SERVE_ROLES)[number];

/** The effective configuration of `cordon serve`. Every field is a flag and a `CORDON_*` variable. */
export interface ServeConfig {
  dataDir: string;
  databaseUrl: string | undefined;
  httpAddr: HostPort;
  dnsAddr: HostPort;
  blockPageAddr: HostPort;
  /** The HTTPS block page (leaf certificates minted per SNI host from the deployment's root CA). */
  blockPageHttpsAddr: HostPort;
  /** DNS over HTTPS (RFC 8484, `/dns-query/{key}`; docs/agent.md "DoH"); null: `off`. */
  dohAddr: HostPort | null;
  /** The DoH listener's certificate chain and key (PEM files); both unset: a leaf minted from the deployment root CA. */
  dohCertFile: string | undefined;
  dohKeyFile: string | undefined;
  /**
   * DNS over TLS (RFC 7858; docs/agent.md "DoT"); null: `off`. Same certificate choices as DoH
   * (`dohCertFile`/`dohKeyFile`, else leaves minted from the root CA).
   */
  dotAddr: HostPort | null;
  /**
   * Where `/metrics`, `/healthz` and `/readyz` are served for a process without the `api` role (which
   * serves them on `httpAddr`); null: not served (docs/operations.md "Monitoring").
   */
  metricsAddr: HostPort | null;
  /** API requests answered in this many ms or more are logged as slow, with their request id (docs/operations.md "Logs"). */
  slowRequestMs: number;
  /**
   * The DoT host-name suffix (lower case, no trailing dot), e.g. `dot.filter.example.net`: a phone
   * is given `<key label>.<suffix>` (docs/agent.md "DoT"); null: unset (the resolver tries the
   * leftmost label of any server name; the console shows no DoT host name).
   */
  dotHostname: string | null;
  /**
   * The public DoH base URL phones and agents use, e.g. `https://dns.filter.example.net` (no
   * trailing slash): the console's DoH URLs and the Apple profiles' `ServerURL`; null: unset.
   */
  dohPublicUrl: string | null;
  upstreams: HostPort[];
  blockIpv4: string;
  blockIpv6: string;
  /** CHAOS TXT `version.bind` / `version.server` text (docs/operations.md "CHAOS queries"); '' (default): REFUSED. */
  chaosVersion: string;
  /** CHAOS TXT `hostname.bind` / `id.server` text; '' (default): REFUSED. */
  chaosIdentity: string;
  /** UDP responses per second per client IPv4 /24 or IPv6 /56 (response-rate limiting); 0 turns it off. */
  rrlRate: number;
  /** Every `rrlSlip`-th rate-limited UDP query is answered TC=1, the others dropped; 0 drops them all. */
  rrlSlip: number;
  /** UDP queries per second per claimed location (docs/operations.md "Response-rate limiting"); 0 turns it off. */
  locationRateLimit: number;
  /** Open DNS-over-TCP connections in all (RFC 7766 §6.2.2). */
  tcpMaxConnections: number;
  /** Open DNS-over-TCP connections per IPv4 address / IPv6 /64. */
  tcpMaxPerSource: number;
  /** UDP receive buffer (SO_RCVBUF) the resolver asks for, bytes; capped by the kernel; 0 keeps the system default. */
  udpRecvBuffer: number;
  /**
   * Data-plane threads serving UDP on the one port with SO_REUSEPORT (docs/operations.md "Resolver
   * threads"); more than 1 needs the batched UDP addon (`@cordon/udp-batch`).
   */
  resolverThreads: number;
  /** UDP receive/send path: `auto` (batched when the addon is built), `batch` or `dgram`. */
  udpBackend: 'auto' | 'batch' | 'dgram';
  /**
   * When the query-log writer threads write (docs/operations.md "Threads"): `idle` starts each
   * transaction once a core was free (docs/decisions.md "Query-log writes wait for an idle core"),
   * `normal` at once, paced.
   */
  queryLogWriter: 'idle' | 'normal';
  /** The widest IPv4 prefix length MSP and customer admins may claim for a location (docs/security.md). */
  claimMaxPrefixV4: number;
  /** The widest IPv6 prefix length MSP and customer admins may claim. */
  claimMaxPrefixV6: number;
  /** MSP and customer admins may claim private ranges (RFC 1918, RFC 6598, RFC 4193). */
  claimAllowPrivate: boolean;
  /** MSP and customer admins may claim special-purpose ranges (loopback, link-local, …): development only. */
  claimAllowSpecial: boolean;
  /**
   * The most entries one domain list may hold (a policy's allow or block list, an MSP's or the
   * system's global list): the API refuses adds and imports beyond it (docs/operations.md "List sizes").
   */
  maxListEntries: number;
  /**
   * Heavy reads (the history search) running at once, off the API's loop: read threads on SQLite,
   * connections of the API's pool of 10 on PostgreSQL (docs/operations.md "Heavy reads").
   */
  readPool: number;
  /** The longest a heavy read may take, waiting included, seconds; past it the API answers 503 `ERR_QUERY_TIMEOUT`. */
  readTimeout: number;
  /** How often the worker role looks for due jobs, ms (docs/operations.md "Mail, invitations and 2FA": webhooks); default 15,000. */
  workerTickMs: number;
  /**
   * Ranges the outbound-request guard lets through although internal (docs/security.md "Outbound
   * requests"; canonical CIDR text); empty by default: no tenant's SMTP server or feed URL may be internal.
   */
  outboundAllow: string[];
  adminEmail: string | undefined;
  adminPassword: string | undefined;
  consoleDir: string;
  roles: ServeRole[];
  logLevel: string;
  /** Which proxies' `X-Forwarded-For` names the client (keys login throttling); false: none. */
  trustProxy: TrustProxySetting;
  /** The access-token key file (`<data-dir>/jwt.key` by default); unused when `jwtKey` is set. */
  jwtKeyFile: string;
  /** Access-token keys from `CORDON_JWT_KEY` (a variable only: a flag would show in `ps`); never printed. */
  jwtKey: string | undefined;
  /** The CA secret file (`<data-dir>/ca.key-secret` by default), sealing the root CA's key; unused when `caSecret` is set. */
  caSecretFile: string;
  /** The CA secret from `CORDON_CA_SECRET` (a variable only); never printed. */
  caSecret: string | undefined;
  /** Days raw query-log rows are kept (the worker's retention job; docs/architecture.md "Statistics"). */
  logRetentionDays: number;
  /** Months the hourly roll-ups are kept. */
  rollupRetentionMonths: number;
  /**
   * The resolver's last good snapshot on disk, served when it starts with the database unreachable
   * (docs/operations.md "Fleet"); default `<data-dir>/snapshot` with PostgreSQL, none (null) with
   * SQLite, whose database is a local file already.
   */
  snapshotDir: string | null;
  /** `--dnstap`: the query log streamed as dnstap (docs/operations.md "Query-log streaming"); null: off. */
  dnstap: StreamTarget | null;
  /** `--syslog`: the query log streamed as RFC 5424 over TCP or TLS; null: off. */
  syslog: StreamTarget | null;
  /** `--log-stream-url`: the query log POSTed as NDJSON batches; null: off. Holds no token. */
  logStreamUrl: StreamTarget | null;
  /** `--log-stream-ca`: PEM file of the CAs trusted by the syslog TLS and HTTPS streams instead of Node's. */
  logStreamCaFile: string | undefined;
  /** `CORDON_LOG_STREAM_AUTHORIZATION` (a variable only): the NDJSON POSTs' `Authorization` value; never printed. */
  logStreamAuthorization: string | undefined;
}

/** `--trust-proxy`: false, true, a hop count, or addresses/CIDRs (or `loopback`, `linklocal`, `uniquelocal`). */
export type TrustProxySetting = boolean | number | string[];

/** One setting: its flag, its environment variable and its default. */
export interface SettingSpec {
  key: keyof ServeConfig;
  flag: string;
  env: string;
  description: string;
  defaultValue?: string;
}

/** The built console: `dist/` of the console package, found through the package so it holds when bundled. */
const CONSOLE_DIST = join(dirname(createRequire(import.meta.url).resolve('@cordon/console/package.json')), 'dist');

/** All settings of `cordon serve`, in the order `--help` and the boot line show them. */
export const SERVE_SETTINGS: readonly SettingSpec[] = [
  {
    key: 'dataDir',
    flag: '--data-dir <dir>',
    env: 'CORDON_DATA_DIR',
    description: 'directory of the embedded SQLite database',
    defaultValue: './data',
  },
  {
    key: 'databaseUrl',
    flag: '--database-url <url>',
    env: 'DATABASE_URL',
    description: 'postgres:// URL; selects PostgreSQL instead of SQLite',
  },
  {
    key: 'httpAddr',
    flag: '--http-addr <host:port>',
    env: 'CORDON_HTTP_ADDR',
    description: 'console and /restapi listen address',
    defaultValue: '127.0.0.1:8080',
  },
  {
    key: 'dnsAddr',
    flag: '--dns-addr <host:port>',
    env: 'CORDON_DNS_ADDR',
    description: 'resolver listen address, UDP and TCP (53 in production)',
    defaultValue: '127.0.0.1:5353',
  },
  {
    key: 'blockPageAddr',
    flag: '--blockpage-addr <host:port>',
    env: 'CORDON_BLOCKPAGE_ADDR',
    description: 'block-page HTTP listen address',
    defaultValue: '127.0.0.1:8081',
  },
  {
    key: 'blockPageHttpsAddr',
    flag: '--blockpage-https-addr <host:port>',
    env: 'CORDON_BLOCKPAGE_HTTPS_ADDR',
    description: 'block-page HTTPS listen address (a certificate per blocked host from the deployment root CA)',
    defaultValue: '127.0.0.1:8443',
  },
  {
    key: 'dohAddr',
    flag: '--doh-addr <host:port|off>',
    env: 'CORDON_DOH_ADDR',
    description:
      'DNS-over-HTTPS listen address of the resolver (/dns-query/{key}, RFC 8484), e.g. 127.0.0.1:8053 (443 in production); off: none',
    defaultValue: 'off',
  },
  {
    key: 'dohCertFile',
    flag: '--doh-cert <file>',
    env: 'CORDON_DOH_CERT',
    description: 'DoH certificate chain (PEM); with --doh-key; unset: a leaf minted from the deployment root CA',
  },
  {
    key: 'dohKeyFile',
    flag: '--doh-key <file>',
    env: 'CORDON_DOH_KEY',
    description: 'DoH private key (PEM), with --doh-cert',
  },
  {
    key: 'dohPublicUrl',
    flag: '--doh-public-url <url>',
    env: 'CORDON_DOH_PUBLIC_URL',
    description:
      'public https:// base URL of the DoH listener, e.g. https://dns.filter.example.net (the console and Apple profiles add /dns-query/{key})',
  },
  {
    key: 'dotAddr',
    flag: '--dot-addr <host:port|off>',
    env: 'CORDON_DOT_ADDR',
    description:
      'DNS-over-TLS listen address of the resolver (RFC 7858; the key in the SNI host name), e.g. 127.0.0.1:8853 (853 in production); certificate as DoH; off: none',
    defaultValue: 'off',
  },
  {
    key: 'metricsAddr',
    flag: '--metrics-addr <host:port|off>',
    env: 'CORDON_METRICS_ADDR',
    description:
      'Prometheus /metrics, /healthz and /readyz of a process without the api role (which serves them on --http-addr), e.g. 127.0.0.1:9153; off: none',
    defaultValue: 'off',
  },
  {
    key: 'slowRequestMs',
    flag: '--slow-request-ms <ms>',
    env: 'CORDON_SLOW_REQUEST_MS',
    description: 'API requests taking this long or longer are logged (warn) with their request id, route and status',
    defaultValue: '1000',
  },
  {
    key: 'dotHostname',
    flag: '--dot-hostname <name>',
    env: 'CORDON_DOT_HOSTNAME',
    description:
      'DoT host-name suffix, e.g. dot.filter.example.net: phones use <key label>.<suffix> (needs a wildcard DNS record *.<suffix>)',
  },
  {
    key: 'upstreams',
    flag: '--upstream <host:port,...>',
    env: 'CORDON_UPSTREAM',
    description: 'upstream resolvers, comma-separated (default: the nameservers of /etc/resolv.conf)',
  },
  {
    key: 'blockIpv4',
    flag: '--block-ipv4 <addr>',
    env: 'CORDON_BLOCK_IPV4',
    description: 'answer of blocked A queries: the block page IPv4 address',
    defaultValue: '127.0.0.1',
  },
  {
    key: 'blockIpv6',
    flag: '--block-ipv6 <addr>',
    env: 'CORDON_BLOCK_IPV6',
    description: 'answer of blocked AAAA queries: the block page IPv6 address',
    defaultValue: '::1',
  },
  {
    key: 'chaosVersion',
    flag: '--chaos-version <text>',
    env: 'CORDON_CHAOS_VERSION',
    description: 'CHAOS TXT answer to version.bind / version.server; unset: REFUSED (never forwarded)',
  },
  {
    key: 'chaosIdentity',
    flag: '--chaos-identity <text>',
    env: 'CORDON_CHAOS_IDENTITY',
    description: 'CHAOS TXT answer to hostname.bind / id.server; unset: REFUSED (never forwarded)',
  },
  {
    key: 'rrlRate',
    flag: '--rrl-rate <n>',
    env: 'CORDON_RRL_RATE',
    description: 'UDP responses per second per client /24 (IPv6 /56), response-rate limiting; 0 turns it off',
    defaultValue: '200',
  },
  {
    key: 'rrlSlip',
    flag: '--rrl-slip <n>',
    env: 'CORDON_RRL_SLIP',
    description:
      'every n-th rate-limited UDP query gets an empty TC=1 answer (retry over TCP), the rest are dropped; 0 drops all',
    defaultValue: '2',
  },
  {
    key: 'locationRateLimit',
    flag: '--location-rate-limit <qps>',
    env: 'CORDON_LOCATION_RATE_LIMIT',
    description:
      'UDP queries per second per claimed location (per resolver thread; shown to admins); RRL then applies only to unclaimed sources and amplifying answers; 0 turns it off',
    defaultValue: '5000',
  },
  {
    key: 'tcpMaxConnections',
    flag: '--tcp-max-connections <n>',
    env: 'CORDON_TCP_MAX_CONNECTIONS',
    description: 'open DNS-over-TCP connections in all; more are closed at once',
    defaultValue: '1000',
  },
  {
    key: 'tcpMaxPerSource',
    flag: '--tcp-max-per-source <n>',
    env: 'CORDON_TCP_MAX_PER_SOURCE',
    description: 'open DNS-over-TCP connections per IPv4 address / IPv6 /64; more are closed at once',
    defaultValue: '20',
  },
  {
    key: 'udpRecvBuffer',
    flag: '--udp-recv-buffer <bytes>',
    env: 'CORDON_UDP_RECV_BUFFER',
    description: 'UDP receive buffer the resolver asks for (Linux caps it at net.core.rmem_max); 0 keeps the default',
    defaultValue: '8388608',
  },
  {
    key: 'resolverThreads',
    flag: '--resolver-threads <n>',
    env: 'CORDON_RESOLVER_THREADS',
    description: 'data-plane threads sharing the DNS port (SO_REUSEPORT); more than 1 needs the batched UDP addon',
    defaultValue: '1',
  },
  {
    key: 'udpBackend',
    flag: '--udp-backend <path>',
    env: 'CORDON_UDP_BACKEND',
    description: 'UDP path: auto (recvmmsg/sendmmsg when the addon is built), batch or dgram',
    defaultValue: 'auto',
  },
  {
    key: 'queryLogWriter',
    flag: '--query-log-writer <priority>',
    env: 'CORDON_QUERY_LOG_WRITER',
    description:
      'query-log writer threads: idle (each transaction waits for a free core) or normal (keeps up on a host whose cores other work keeps busy)',
    defaultValue: 'idle',
  },
  {
    key: 'claimMaxPrefixV4',
    flag: '--claim-max-prefix-v4 <len>',
    env: 'CORDON_CLAIM_MAX_PREFIX_V4',
    description: 'widest IPv4 prefix an MSP or customer admin may claim for a location (1-32)',
    defaultValue: '24',
  },
  {
    key: 'claimMaxPrefixV6',
    flag: '--claim-max-prefix-v6 <len>',
    env: 'CORDON_CLAIM_MAX_PREFIX_V6',
    description: 'widest IPv6 prefix an MSP or customer admin may claim for a location (1-128)',
    defaultValue: '48',
  },
  {
    key: 'claimAllowPrivate',
    flag: '--claim-allow-private <bool>',
    env: 'CORDON_CLAIM_ALLOW_PRIVATE',
    description: 'let MSP and customer admins claim private ranges (10/8, 172.16/12, 192.168/16, 100.64/10, fc00::/7)',
    defaultValue: 'false',
  },
  {
    key: 'claimAllowSpecial',
    flag: '--claim-allow-special <bool>',
    env: 'CORDON_CLAIM_ALLOW_SPECIAL',
    description:
      'let MSP and customer admins claim loopback, link-local, multicast and other special ranges (development on loopback)',
    defaultValue: 'false',
  },
  // The outbound-request guard's allowance (docs/security.md "Outbound requests").
  {
    key: 'outboundAllow',
    flag: '--outbound-allow <cidr,...>',
    env: 'CORDON_OUTBOUND_ALLOW',
    description:
      'internal ranges tenant SMTP servers and feed URLs may reach (loopback, private, link-local are refused otherwise)',
  },
  {
    key: 'maxListEntries',
    flag: '--max-list-entries <n>',
    env: 'CORDON_MAX_LIST_ENTRIES',
    description: "most entries one domain list may hold (a policy's allow or block list, a global list)",
    defaultValue: '100000',
  },
  // Heavy reads off the API's loop, within a time bound (docs/operations.md "Heavy reads").
  {
    key: 'readPool',
    flag: '--read-pool <n>',
    env: 'CORDON_READ_POOL',
    description:
      'heavy reads (the history search) running at once, off the API thread: read threads (SQLite) or database connections (PostgreSQL), 1-8',
    defaultValue: '2',
  },
  {
    key: 'readTimeout',
    flag: '--read-timeout <seconds>',
    env: 'CORDON_READ_TIMEOUT',
    description: 'longest a heavy read may take, waiting included; past it the API answers 503 ERR_QUERY_TIMEOUT',
    defaultValue: '10',
  },
  {
    key: 'workerTickMs',
    flag: '--worker-tick-ms <ms>',
    env: 'CORDON_WORKER_TICK_MS',
    description:
      'how often the worker role runs its due jobs (webhook deliveries wait at most this long), 100-600000 ms',
    defaultValue: '15000',
  },
  {
    key: 'adminEmail',
    flag: '--admin-email <email>',
    env: 'CORDON_ADMIN_EMAIL',
    description: 'first-run system admin e-mail (default admin@cordon.local)',
  },
  {
    key: 'adminPassword',
    flag: '--admin-password <password>',
    env: 'CORDON_ADMIN_PASSWORD',
    description: 'first-run system admin password (default: generated and printed once)',
  },
  {
    key: 'consoleDir',
    flag: '--console-dir <dir>',
    env: 'CORDON_CONSOLE_DIR',
    description: 'built console to serve',
    defaultValue: CONSOLE_DIST,
  },
  {
    key: 'roles',
    flag: '--roles <roles>',
    env: 'CORDON_ROLES',
    description: 'comma-separated: api,resolver,blockpage,worker',
    defaultValue: 'api,resolver,blockpage,worker',
  },
  {
    key: 'logRetentionDays',
    flag: '--log-retention-days <n>',
    env: 'CORDON_LOG_RETENTION_DAYS',
    description: 'days raw query-log rows are kept (worker role)',
    defaultValue: '30',
  },
  {
    key: 'rollupRetentionMonths',
    flag: '--rollup-retention-months <n>',
    env: 'CORDON_ROLLUP_RETENTION_MONTHS',
    description: 'months hourly traffic roll-ups are kept (worker role)',
    defaultValue: '13',
  },
  {
    key: 'snapshotDir',
    flag: '--snapshot-dir <dir>',
    env: 'CORDON_SNAPSHOT_DIR',
    description:
      "resolver's last good snapshot, served when it starts with the database down (default <data-dir>/snapshot with PostgreSQL, off with SQLite; off: none)",
  },
  {
    key: 'dnstap',
    flag: '--dnstap <unix:/path|tcp:host:port>',
    env: 'CORDON_DNSTAP',
    description:
      'stream every logged query as dnstap CLIENT_RESPONSE messages (Frame Streams) to this socket, e.g. unix:/run/cordon/dnstap.sock; the decision in the extra field',
  },
  {
    key: 'syslog',
    flag: '--syslog <tcp://host:port|tls://host:port>',
    env: 'CORDON_SYSLOG',
    description: 'stream every logged query as RFC 5424 syslog (octet-counted) to this collector',
  },
  {
    key: 'logStreamUrl',
    flag: '--log-stream-url <url>',
    env: 'CORDON_LOG_STREAM_URL',
    description:
      'POST every logged query as NDJSON batches to this https:// URL (SIEM: Splunk HEC raw, Elastic); header value in CORDON_LOG_STREAM_AUTHORIZATION',
  },
  {
    key: 'logStreamCaFile',
    flag: '--log-stream-ca <file>',
    env: 'CORDON_LOG_STREAM_CA',
    description: 'PEM CA certificates trusted by --syslog tls:// and --log-stream-url instead of the system bundle',
  },
  {
    key: 'trustProxy',
    flag: '--trust-proxy <value>',
    env: 'CORDON_TRUST_PROXY',
    description:
      'whose X-Forwarded-For names the client: false, true, a hop count, or proxy addresses/CIDRs, comma-separated',
    defaultValue: 'false',
  },
  {
    key: 'jwtKeyFile',
    flag: '--jwt-key-file <path>',
    env: 'CORDON_JWT_KEY_FILE',
    description:
      'access-token signing keys, one per line, the first signs (created on first start; default <data-dir>/jwt.key; CORDON_JWT_KEY wins)',
  },
  {
    key: 'caSecretFile',
    flag: '--ca-secret-file <path>',
    env: 'CORDON_CA_SECRET_FILE',
    description:
      'secret sealing the root CA key in the database (created 0600 on first start; default <data-dir>/ca.key-secret; CORDON_CA_SECRET wins)',
  },
  {
    key: 'logLevel',
    flag: '--log-level <level>',
    env: 'CORDON_LOG_LEVEL',
    description: 'pino log level',
    defaultValue: 'info',
  },
];

/** Variables a settings file may hold besides those of {@link SERVE_SETTINGS}: the secrets and the first admin. */
const FILE_ONLY_VARIABLES = new Set([
  'CORDON_JWT_KEY',
  'CORDON_CA_SECRET',
  'CORDON_ADMIN_EMAIL',
  'CORDON_ADMIN_PASSWORD',
  'CORDON_LOG_STREAM_AUTHORIZATION',
]);

/**
 * The settings `cordon serve` applies on SIGHUP without a restart (docs/operations.md "Configuration
 * check and reload"); a change of any other setting is reported as needing one.
 */
export const RELOADABLE_SETTINGS: ReadonlyArray<keyof ServeConfig> = [
  'upstreams',
  'logLevel',
  'dohCertFile',
  'dohKeyFile',
];

/**
 * Reads a settings file (`--config-file` / `CORDON_CONFIG_FILE`; docs/operations.md "Configuration
 * check and reload"): `NAME=value` lines naming the `CORDON_*` variables of the settings (and
 * `DATABASE_URL`, the secrets, the first admin), the format of systemd's `EnvironmentFile`. Blank
 * lines and `#` comments are skipped; one pair of surrounding quotes is removed.
 * @returns the variables, by name
 * @throws ConfigError for an unreadable file, a line that is not `NAME=value`, or a name Cordon does not read
 */
export function readSettingsFile(path: string): Record<string, string> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ConfigError(`settings file ${path}: ${(err as Error).message}`);
  }
  const known = new Set([...SERVE_SETTINGS.map((s) => s.env), ...FILE_ONLY_VARIABLES]);
  const out: Record<string, string> = {};
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const m = /^([A-Z_][A-Z0-9_]*)=(.*)$/.exec(line);
    if (!m) throw new ConfigError(`settings file ${path}, line ${i + 1}: expected NAME=value`);
    const [, name = '', value = ''] = m;
    if (!known.has(name))
      throw new ConfigError(`settings file ${path}, line ${i + 1}: ${name} is not a Cordon setting`);
    out[name] = /^(["']).*\1$/.test(value) ? value.slice(1, -1) : value;
  });
  return out;
}

/**
 * The variables settings are resolved from: the settings file's (`file`, when given) under the
 * process's own environment, which wins (as a flag wins over both).
 * @throws ConfigError as {@link readSettingsFile}
 */
export function settingsEnvironment(file: string | undefined, env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return file ? { ...readSettingsFile(file), ...env } : env;
}

/** The option's attribute name as commander derives it from the long flag: `--data-dir` → `dataDir`. */
export function flagAttribute(spec: Pick<SettingSpec, 'flag'>): string {
  const name = spec.flag.split(' ')[0]?.replace(/^--/, '') ?? '';
  return name.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** A configuration error: the message names the flag/variable and the bad value. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/**
 * Parses `host:port` (`[v6]:port` for IPv6).
 * @throws ConfigError naming `what` for anything else
 */
export function parseHostPort(text: string, what: string): HostPort {
  const m = /^\[([^\]]+)\]:(\d+)$/.exec(text.trim()) ?? /^([^:]+):(\d+)$/.exec(text.trim());
  const port = Number(m?.[2]);
  if (!m?.[1] || !Number.isInteger(port) || port < 0 || port > 65535) {
    throw new ConfigError(`${what}: expected host:port (or [ipv6]:port), got "${text}"`);
  }
  return { host: m[1], port };
}

/** The nameservers of a resolv.conf file as `host:53`, skipping none; [] when unreadable. */
export function resolvConfNameservers(path = '/etc/resolv.conf'): HostPort[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .map((l) => /^\s*nameserver\s+(\S+)/.exec(l)?.[1])
    .filter((h): h is string => h !== undefined && isIP(h.split('%')[0] ?? '') !== 0)
    .map((host) => ({ host, port: 53 }));
}

/**
 * Parses a whole number setting in `[min, max]`.
 * @param what the flag and variable, for the error message
 * @throws ConfigError for anything else
 */
export function parseWholeNumber(text: string, what: string, min: number, max: number): number {
  const value = Number(text.trim());
  if (!/^\d+$/.test(text.trim()) || value < min || value > max) {
    throw new ConfigError(`${what}: expected a whole number from ${min} to ${max}, got "${text}"`);
  }
  return value;
}

/** Names proxy-addr (Fastify's `trustProxy`) accepts for address ranges. */
const PROXY_RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/**
 * Parses `--trust-proxy`: `false`/`true`, a hop count (0 = false), or a comma-separated list of IP
 * addresses, CIDRs and proxy-addr range names.
 * @param what the flag and variable, for the error message
 * @throws ConfigError for anything else
 */
export function parseTrustProxy(text: string, what: string): TrustProxySetting {
  const value = text.trim().toLowerCase();
  if (value === 'false' || value === '') return false;
  if (value === 'true') return true;
  if (/^\d+$/.test(value)) return Number(value) === 0 ? false : Number(value);
  const items = value
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);
  for (const item of items) {
    const [address = '', prefix, extra] = item.split('/');
    const family = isIP(address);
    const max = family === 4 ? 32 : 128;
    const prefixOk = prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= max);
    if (!PROXY_RANGE_NAMES.has(item) && (family === 0 || !prefixOk || extra !== undefined)) {
      throw new ConfigError(
        `${what}: "${item}" is not false, true, a hop count, an IP address, a CIDR or loopback/linklocal/uniquelocal`,
      );
    }
  }
  return items;
}

/**
 * Parses an on/off setting: `true`/`1`/`yes`/`on` or `false`/`0`/`no`/`off` (any case).
 * @param what the flag and variable, for the error message
 * @throws ConfigError for anything else
 */
export function parseSwitch(text: string, what: string): boolean {
  const value = text.trim().toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(value)) return true;
  if (['false', '0', 'no', 'off'].includes(value)) return false;
  throw new ConfigError(`${what}: expected true or false (1/0, yes/no, on/off), got "${text}"`);
}

/**
 * The effective configuration: a flag wins over its environment variable, which wins over the
 * default.
 * @param flags commander's parsed options, keyed by attribute name (see {@link flagAttribute}), raw strings
 * @param env the environment (process.env)
 * @throws ConfigError for a malformed address, an unknown role, a bad block address, or no upstream
 */
export function resolveServeConfig(flags: Record<string, string | undefined>, env: NodeJS.ProcessEnv): ServeConfig {
  const raw = (key: keyof ServeConfig): string | undefined => {
    const spec = SERVE_SETTINGS.find((s) => s.key === key);
    if (!spec) throw new Error(`unknown setting ${key}`);
    const fromEnv = env[spec.env];
    // commander hands an empty variable over as the flag's value: empty means unset either way
    // (an empty --snapshot-dir would otherwise resolve to the working directory).
    const fromFlag = flags[flagAttribute(spec)];
    return (
      (fromFlag !== undefined && fromFlag !== '' ? fromFlag : undefined) ??
      (fromEnv !== undefined && fromEnv !== '' ? fromEnv : undefined) ??
      spec.defaultValue
    );
  };
  const label = (key: keyof ServeConfig) => {
    const spec = SERVE_SETTINGS.find((s) => s.key === key);
    return `${spec?.flag.split(' ')[0]} / ${spec?.env}`;
  };
  const upstreamText = raw('upstreams');
  const upstreams = upstreamText
    ? upstreamText.split(',').map((u) => parseHostPort(u, label('upstreams')))
    : resolvConfNameservers();
  if (upstreams.length === 0)
    throw new ConfigError(`${label('upstreams')}: no upstream resolver configured and none in /etc/resolv.conf`);
  const roles = (raw('roles') ?? '')
    .split(',')
    .map((r) => r.trim())
    .filter(Boolean);
  for (const r of roles) {
    if (!(SERVE_ROLES as readonly string[]).includes(r))
      throw new ConfigError(`${label('roles')}: unknown role "${r}" (api, resolver, blockpage, worker)`);
  }
  if (roles.length === 0) throw new ConfigError(`${label('roles')}: at least one role is needed`);
  const blockIpv4 = raw('blockIpv4') ?? '';
  const blockIpv6 = raw('blockIpv6') ?? '';
  if (isIP(blockIpv4) !== 4) throw new ConfigError(`${label('blockIpv4')}: "${blockIpv4}" is not an IPv4 address`);
  if (isIP(blockIpv6) !== 6) throw new ConfigError(`${label('blockIpv6')}: "${blockIpv6}" is not an IPv6 address`);
  const databaseUrl = raw('databaseUrl');
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError(`${label('databaseUrl')}: expected a postgres:// URL`);
  }
  const dataDir = resolve(raw('dataDir') ?? './data');
  const jwtKey = env.CORDON_JWT_KEY !== undefined && env.CORDON_JWT_KEY.trim() !== '' ? env.CORDON_JWT_KEY : undefined;
  const caSecret =
    env.CORDON_CA_SECRET !== undefined && env.CORDON_CA_SECRET.trim() !== '' ? env.CORDON_CA_SECRET : undefined;
  return {
    dataDir,
    databaseUrl,
    httpAddr: parseHostPort(raw('httpAddr') ?? '', label('httpAddr')),
    dnsAddr: parseHostPort(raw('dnsAddr') ?? '', label('dnsAddr')),
    blockPageAddr: parseHostPort(raw('blockPageAddr') ?? '', label('blockPageAddr')),
    blockPageHttpsAddr: parseHostPort(raw('blockPageHttpsAddr') ?? '', label('blockPageHttpsAddr')),
    dohAddr: raw('dohAddr') === 'off' ? null : parseHostPort(raw('dohAddr') ?? '', label('dohAddr')),
    ...dohCredentials(raw('dohCertFile'), raw('dohKeyFile'), `${label('dohCertFile')}, ${label('dohKeyFile')}`),
    dotAddr: raw('dotAddr') === 'off' ? null : parseHostPort(raw('dotAddr') ?? '', label('dotAddr')),
    metricsAddr: raw('metricsAddr') === 'off' ? null : parseHostPort(raw('metricsAddr') ?? '', label('metricsAddr')),
    slowRequestMs: parseWholeNumber(raw('slowRequestMs') ?? '', label('slowRequestMs'), 0, 3_600_000),
    dotHostname: parseDotHostname(raw('dotHostname'), label('dotHostname')),
    dohPublicUrl: parsePublicUrl(raw('dohPublicUrl'), label('dohPublicUrl')),
    upstreams,
    blockIpv4,
    blockIpv6,
    chaosVersion: chaosText(raw('chaosVersion') ?? '', label('chaosVersion')),
    chaosIdentity: chaosText(raw('chaosIdentity') ?? '', label('chaosIdentity')),
    rrlRate: parseWholeNumber(raw('rrlRate') ?? '', label('rrlRate'), 0, 1_000_000),
    rrlSlip: parseWholeNumber(raw('rrlSlip') ?? '', label('rrlSlip'), 0, 100),
    locationRateLimit: parseWholeNumber(raw('locationRateLimit') ?? '', label('locationRateLimit'), 0, 10_000_000),
    tcpMaxConnections: parseWholeNumber(raw('tcpMaxConnections') ?? '', label('tcpMaxConnections'), 1, 1_000_000),
    tcpMaxPerSource: parseWholeNumber(raw('tcpMaxPerSource') ?? '', label('tcpMaxPerSource'), 1, 1_000_000),
    logRetentionDays: parseWholeNumber(raw('logRetentionDays') ?? '', label('logRetentionDays'), 1, 3650),
    rollupRetentionMonths: parseWholeNumber(raw('rollupRetentionMonths') ?? '', label('rollupRetentionMonths'), 1, 120),
    snapshotDir: snapshotDirectory(raw('snapshotDir'), databaseUrl, dataDir),
    udpRecvBuffer: parseWholeNumber(raw('udpRecvBuffer') ?? '', label('udpRecvBuffer'), 0, 1 << 30),
    resolverThreads: parseWholeNumber(raw('resolverThreads') ?? '', label('resolverThreads'), 1, 64),
    udpBackend: parseUdpBackend(raw('udpBackend') ?? 'auto', label('udpBackend')),
    queryLogWriter: parseWriterPriority(raw('queryLogWriter') ?? 'idle', label('queryLogWriter')),
    claimMaxPrefixV4: parseWholeNumber(raw('claimMaxPrefixV4') ?? '', label('claimMaxPrefixV4'), 1, 32),
    claimMaxPrefixV6: parseWholeNumber(raw('claimMaxPrefixV6') ?? '', label('claimMaxPrefixV6'), 1, 128),
    claimAllowPrivate: parseSwitch(raw('claimAllowPrivate') ?? '', label('claimAllowPrivate')),
    claimAllowSpecial: parseSwitch(raw('claimAllowSpecial') ?? '', label('claimAllowSpecial')),
    maxListEntries: parseWholeNumber(raw('maxListEntries') ?? '', label('maxListEntries'), 1, 10_000_000),
    // At most 8 of the PostgreSQL pool's 10 connections: the other requests keep theirs.
    readPool: parseWholeNumber(raw('readPool') ?? '', label('readPool'), 1, 8),
    readTimeout: parseWholeNumber(raw('readTimeout') ?? '', label('readTimeout'), 1, 3600),
    workerTickMs: parseWholeNumber(raw('workerTickMs') ?? '', label('workerTickMs'), 100, 600_000),
    outboundAllow: outboundAllowance(raw('outboundAllow') ?? '', label('outboundAllow')),
    adminEmail: raw('adminEmail'),
    adminPassword: raw('adminPassword'),
    consoleDir: resolve(raw('consoleDir') ?? ''),
    roles: roles as ServeRole[],
    logLevel: raw('logLevel') ?? 'info',
    trustProxy: parseTrustProxy(raw('trustProxy') ?? 'false', label('trustProxy')),
    jwtKeyFile: resolve(raw('jwtKeyFile') ?? join(dataDir, 'jwt.key')),
    jwtKey,
    caSecretFile: resolve(raw('caSecretFile') ?? join(dataDir, 'ca.key-secret')),
    caSecret,
    ...logStreams(raw, label, env),
  };
}

/**
 * The log-stream settings (docs/operations.md "Query-log streaming"): each target parsed by the
 * resolver's parser, the CA file checked readable.
 * @throws ConfigError naming the setting for a malformed target, an unreadable CA file, or a token without a URL
 */
function logStreams(
  raw: (key: keyof ServeConfig) => string | undefined,
  label: (key: keyof ServeConfig) => string,
  env: NodeJS.ProcessEnv,
): Pick<ServeConfig, 'dnstap' | 'syslog' | 'logStreamUrl' | 'logStreamCaFile' | 'logStreamAuthorization'> {
  const parse = <T>(key: keyof ServeConfig, f: (text: string) => T): T | null => {
    const text = raw(key);
    if (text === undefined || text.trim().toLowerCase() === 'off') return null;
    try {
      return f(text);
    } catch (err) {
      throw new ConfigError(`${label(key)}: ${(err as Error).message}`);
    }
  };
  const caText = raw('logStreamCaFile');
  const logStreamCaFile = caText === undefined ? undefined : resolve(caText);
  if (logStreamCaFile !== undefined) {
    try {
      if (!readFileSync(logStreamCaFile, 'utf8').includes('-----BEGIN CERTIFICATE-----')) {
        throw new Error('no PEM certificate in it');
      }
    } catch (err) {
      throw new ConfigError(`${label('logStreamCaFile')}: ${logStreamCaFile}: ${(err as Error).message}`);
    }
  }
  const token = env.CORDON_LOG_STREAM_AUTHORIZATION;
  const logStreamAuthorization = token !== undefined && token.trim() !== '' ? token.trim() : undefined;
  const logStreamUrl = parse('logStreamUrl', (t) => parseNdjsonTarget(t, logStreamAuthorization));
  if (logStreamAuthorization !== undefined && logStreamUrl === null) {
    throw new ConfigError(`CORDON_LOG_STREAM_AUTHORIZATION is set without ${label('logStreamUrl')}`);
  }
  // The token is kept apart from the target (the boot line and the reload diff print targets).
  const { authorization: _token, ...urlTarget } = (logStreamUrl ?? {}) as { authorization?: string };
  return {
    dnstap: parse('dnstap', parseDnstapTarget),
    syslog: parse('syslog', (t) => parseSyslogTarget(t)),
    logStreamUrl: logStreamUrl === null ? null : (urlTarget as StreamTarget),
    logStreamCaFile,
    logStreamAuthorization,
  };
}

/** `--outbound-allow`: comma-separated addresses or CIDR ranges, canonicalised. */
function outboundAllowance(text: string, what: string): string[] {
  try {
    return parseOutboundAllow(text).map(formatCidr);
  } catch (e) {
    throw new ConfigError(`${what}: ${(e as Error).message}`);
  }
}

/** `--udp-backend`: `auto`, `batch` or `dgram`. */
function parseUdpBackend(text: string, what: string): 'auto' | 'batch' | 'dgram' {
  const v = text.trim().toLowerCase();
  if (v === 'auto' || v === 'batch' || v === 'dgram') return v;
  throw new ConfigError(`${what}: "${text}" is not one of auto, batch, dgram`);
}

/** `--query-log-writer`: `idle` or `normal`, any case. @throws ConfigError for anything else */
function parseWriterPriority(text: string, what: string): 'idle' | 'normal' {
  const v = text.trim().toLowerCase();
  if (v === 'idle' || v === 'normal') return v;
  throw new ConfigError(`${what}: "${text}" is not one of idle, normal`);
}

/** `--snapshot-dir`: `off` → null; unset → `<data-dir>/snapshot` with PostgreSQL, null with SQLite. */
function snapshotDirectory(text: string | undefined, databaseUrl: string | undefined, dataDir: string): string | null {
  if (text === undefined) return databaseUrl ? join(dataDir, 'snapshot') : null;
  return text.trim().toLowerCase() === 'off' ? null : resolve(text);
}

/**
 * `--dot-hostname`: a DNS name of two labels or more, letters, digits and `-` (RFC 1123 §2.1),
 * lower-cased, trailing dot dropped; leaves room for a 52-character key label (253 in all, RFC 1035 §2.3.4).
 * @throws ConfigError for anything else
 */
export function parseDotHostname(text: string | undefined, what: string): string | null {
  if (text === undefined) return null;
  const name = text.trim().toLowerCase().replace(/\.$/, '');
  const label = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
  const labels = name.split('.');
  if (labels.length < 2 || !labels.every((l) => label.test(l)) || name.length > 253 - 53) {
    throw new ConfigError(`${what}: "${text}" is not a host name such as dot.filter.example.net`);
  }
  return name;
}

/**
 * `--doh-public-url`: an absolute `https:` URL without query or fragment; the trailing slash dropped.
 * @throws ConfigError for anything else
 */
export function parsePublicUrl(text: string | undefined, what: string): string | null {
  if (text === undefined) return null;
  let url: URL | null = null;
  try {
    url = new URL(text.trim());
  } catch {
    url = null;
  }
  if (url === null || url.protocol !== 'https:' || url.hostname === '' || url.search !== '' || url.hash !== '') {
    throw new ConfigError(`${what}: "${text}" is not an https:// URL such as https://dns.filter.example.net`);
  }
  return url.href.replace(/\/+$/, '');
}

/**
 * The DoH certificate and key files: both or neither (neither: minted from the root CA), resolved.
 * @throws ConfigError when only one is given
 */
function dohCredentials(
  cert: string | undefined,
  key: string | undefined,
  what: string,
): { dohCertFile: string | undefined; dohKeyFile: string | undefined } {
  if ((cert === undefined) !== (key === undefined)) throw new ConfigError(`${what}: give both or neither`);
  return {
    dohCertFile: cert === undefined ? undefined : resolve(cert),
    dohKeyFile: key === undefined ? undefined : resolve(key),
  };
}

const fmt = (a: HostPort) => (a.host.includes(':') ? `[${a.host}]:${a.port}` : `${a.host}:${a.port}`);

/** The one boot line of the effective configuration; secrets are never printed. */
export function describeConfig(c: ServeConfig, database: string): string {
  return [
    `roles=${c.roles.join(',')}`,
    `database=${database}`,
    `http=${fmt(c.httpAddr)}`,
    `dns=${fmt(c.dnsAddr)}`,
    `blockpage=${fmt(c.blockPageAddr)}`,
    `blockpage_https=${fmt(c.blockPageHttpsAddr)}`,
    `doh=${c.dohAddr === null ? 'off' : `${fmt(c.dohAddr)}${c.dohCertFile === undefined ? ' (root CA)' : ''}`}`,
    `dot=${c.dotAddr === null ? 'off' : `${fmt(c.dotAddr)}${c.dohCertFile === undefined ? ' (root CA)' : ''}`}`,
    `dot_hostname=${c.dotHostname ?? 'unset'}`,
    `doh_public_url=${c.dohPublicUrl ?? 'unset'}`,
    `metrics=${c.roles.includes('api') ? fmt(c.httpAddr) : c.metricsAddr === null ? 'off' : fmt(c.metricsAddr)}`,
    `upstream=${c.upstreams.map(fmt).join(',')}`,
    `block_ipv4=${c.blockIpv4}`,
    `block_ipv6=${c.blockIpv6}`,
    `rrl=${c.rrlRate === 0 ? 'off' : `${c.rrlRate}/s,slip=${c.rrlSlip}`}`,
    `location_rate_limit=${c.locationRateLimit === 0 ? 'off' : `${c.locationRateLimit}/s`}`,
    `tcp_max=${c.tcpMaxConnections},per_source=${c.tcpMaxPerSource}`,
    `udp_recv_buffer=${c.udpRecvBuffer}`,
    `resolver_threads=${c.resolverThreads}`,
    `udp_backend=${c.udpBackend}`,
    `query_log_writer=${c.queryLogWriter}`,
    `claims=v4/${c.claimMaxPrefixV4},v6/${c.claimMaxPrefixV6},private=${c.claimAllowPrivate},special=${c.claimAllowSpecial}`,
    `max_list_entries=${c.maxListEntries}`,
    `read_pool=${c.readPool},timeout=${c.readTimeout}s`,
    `outbound_allow=${c.outboundAllow.join(',') || 'none'}`,
    `console=${existsSync(c.consoleDir) ? c.consoleDir : `${c.consoleDir} (missing: run npm run build:console)`}`,
    `log_level=${c.logLevel}`,
    `snapshot=${c.snapshotDir ?? 'off'}`,
    `log_streams=${[c.dnstap, c.syslog, c.logStreamUrl].flatMap((t) => (t === null ? [] : [targetLabel(t)])).join(',') || 'none'}`,
    `trust_proxy=${Array.isArray(c.trustProxy) ? c.trustProxy.join(',') : c.trustProxy}`,
    `jwt_key=${c.jwtKey === undefined ? c.jwtKeyFile : 'CORDON_JWT_KEY'}`,
    `ca_secret=${c.caSecret === undefined ? c.caSecretFile : 'CORDON_CA_SECRET'}`,
  ].join(' ');
}

/**
 * A CHAOS TXT text (pipeline/chaos.ts of the resolver): printable, at most 255 bytes of UTF-8 so it
 * fits one character-string (RFC 1035 §3.3).
 * @throws ConfigError for a longer text or one with control characters
 */
function chaosText(value: string, name: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (/[\u0000-\u001f\u007f]/.test(value)) throw new ConfigError(`${name}: control characters are not allowed`);
  if (Buffer.byteLength(value, 'utf8') > 255) throw new ConfigError(`${name}: at most 255 bytes`);
  return value;
}
