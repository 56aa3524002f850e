import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { isIP } from 'node:net';
import { dirname, join, resolve } from 'node:path';

/** A `host:port` listen or upstream address. */
export interface HostPort {
  host: string;
  port: number;
}

/** The roles one `cordon serve` process runs (DESIGN.md §1 scale-out). */
export const SERVE_ROLES = ['api', 'resolver', 'blockpage'] as const;
export type ServeRole = (typeof SERVE_ROLES)[number];

/** The effective configuration of `cordon serve`. Every field is a flag and a `CORDON_*` variable. */
export interface ServeConfig {
  dataDir: string;
  databaseUrl: string | undefined;
  httpAddr: HostPort;
  dnsAddr: HostPort;
  blockPageAddr: HostPort;
  upstreams: HostPort[];
  blockIpv4: string;
  blockIpv6: string;
  adminEmail: string | undefined;
  adminPassword: string | undefined;
  consoleDir: string;
  roles: ServeRole[];
  logLevel: string;
}

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
    description: 'comma-separated: api,resolver,blockpage',
    defaultValue: 'api,resolver,blockpage',
  },
  {
    key: 'logLevel',
    flag: '--log-level <level>',
    env: 'CORDON_LOG_LEVEL',
    description: 'pino log level',
    defaultValue: 'info',
  },
];

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
    return (
      flags[flagAttribute(spec)] ?? (fromEnv !== undefined && fromEnv !== '' ? fromEnv : undefined) ?? spec.defaultValue
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
      throw new ConfigError(`${label('roles')}: unknown role "${r}" (api, resolver, blockpage)`);
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
  return {
    dataDir: resolve(raw('dataDir') ?? './data'),
    databaseUrl,
    httpAddr: parseHostPort(raw('httpAddr') ?? '', label('httpAddr')),
    dnsAddr: parseHostPort(raw('dnsAddr') ?? '', label('dnsAddr')),
    blockPageAddr: parseHostPort(raw('blockPageAddr') ?? '', label('blockPageAddr')),
    upstreams,
    blockIpv4,
    blockIpv6,
    adminEmail: raw('adminEmail'),
    adminPassword: raw('adminPassword'),
    consoleDir: resolve(raw('consoleDir') ?? ''),
    roles: roles as ServeRole[],
    logLevel: raw('logLevel') ?? 'info',
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
    `upstream=${c.upstreams.map(fmt).join(',')}`,
    `block_ipv4=${c.blockIpv4}`,
    `block_ipv6=${c.blockIpv6}`,
    `console=${existsSync(c.consoleDir) ? c.consoleDir : `${c.consoleDir} (missing: run npm run build:console)`}`,
    `log_level=${c.logLevel}`,
  ].join(' ');
}
