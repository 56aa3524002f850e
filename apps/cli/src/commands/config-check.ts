/**
 * `cordon config check` (docs/operations.md "Configuration check and reload"): validates the
 * settings `cordon serve` would run with, and the files they name, without starting anything,
 * opening the database or creating a file.
 */
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { accessSync, constants, existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ConfigError, resolveServeConfig, type ServeConfig } from '../config.ts';

/** One finding: `error` stops `cordon serve` or breaks a role, `warn` deserves a look, `ok` passed. */
export interface ConfigFinding {
  level: 'ok' | 'warn' | 'error';
  check: string;
  detail: string;
}

/** Certificates expiring within this many days are warned about. */
export const CERT_WARN_DAYS = 30;

/**
 * Checks the configuration `flags` and `env` give (as `cordon serve` resolves them) and its files:
 * the values themselves; the data directory writable (or creatable); the access-token key file and
 * the CA secret file readable, well-formed and private (mode 0600) when they exist (else created at
 * the first start); the DoH/DoT certificate and key readable, matching, and valid for more than
 * {@link CERT_WARN_DAYS} days; the console build present for the `api` role.
 * @param now the clock, ms since the epoch (certificate validity)
 * @returns the findings, in order; the resolved configuration when the values parse
 */
export async function checkConfig(
  flags: Record<string, string | undefined>,
  env: NodeJS.ProcessEnv,
  now: number = Date.now(),
): Promise<{ findings: ConfigFinding[]; config: ServeConfig | null }> {
  const findings: ConfigFinding[] = [];
  const add = (level: ConfigFinding['level'], check: string, detail: string) => findings.push({ level, check, detail });
  let config: ServeConfig;
  try {
    config = resolveServeConfig(flags, env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    add('error', 'settings', err.message);
    return { findings, config: null };
  }
  add('ok', 'settings', `roles ${config.roles.join(',')}; ${config.databaseUrl ? 'PostgreSQL' : 'SQLite'} database`);

  // The data directory: it exists and is writable, or its nearest existing parent is.
  let dir = config.dataDir;
  while (!existsSync(dir) && dirname(dir) !== dir) dir = dirname(dir);
  try {
    accessSync(dir, constants.W_OK);
    add(
      'ok',
      'data directory',
      existsSync(config.dataDir) ? config.dataDir : `${config.dataDir} (created at first start)`,
    );
  } catch {
    add('error', 'data directory', `${dir} is not writable by this user: ${config.dataDir} cannot be used`);
  }
  if (!config.databaseUrl && existsSync(join(config.dataDir, 'cordon.sqlite'))) {
    add('ok', 'database', join(config.dataDir, 'cordon.sqlite'));
  }

  const privateFile = (check: string, path: string) => {
    const mode = statSync(path).mode & 0o777;
    if ((mode & 0o077) !== 0) {
      add('error', check, `${path} is readable by others (mode ${mode.toString(8)}): chmod 600 ${path}`);
      return false;
    }
    return true;
  };

  // Access-token keys: the variable wins over the file.
  if (config.jwtKey !== undefined) {
    add('ok', 'access-token keys', 'from CORDON_JWT_KEY');
  } else if (!existsSync(config.jwtKeyFile)) {
    add('ok', 'access-token keys', `${config.jwtKeyFile} (created at first start)`);
  } else if (privateFile('access-token keys', config.jwtKeyFile)) {
    try {
      const { parseJwtKeys } = await import('@cordon/pki/secrets');
      const keys = parseJwtKeys(readFileSync(config.jwtKeyFile, 'utf8'), config.jwtKeyFile);
      add('ok', 'access-token keys', `${config.jwtKeyFile}: ${keys.length} key(s)`);
    } catch (err) {
      add('error', 'access-token keys', (err as Error).message);
    }
  }

  // The CA secret: the variable wins over the file; 32 characters at least (docs/decisions.md "Root CA").
  if (config.caSecret !== undefined) {
    add(config.caSecret.trim().length >= 32 ? 'ok' : 'error', 'CA secret', 'from CORDON_CA_SECRET');
  } else if (!existsSync(config.caSecretFile)) {
    add('ok', 'CA secret', `${config.caSecretFile} (created at first start)`);
  } else if (privateFile('CA secret', config.caSecretFile)) {
    const length = readFileSync(config.caSecretFile, 'utf8').trim().length;
    if (length >= 32) add('ok', 'CA secret', config.caSecretFile);
    else add('error', 'CA secret', `${config.caSecretFile}: shorter than 32 characters`);
  }

  // DoH and DoT certificate: the given pair, else leaves minted from the root CA.
  const encrypted = [config.dohAddr && 'DoH', config.dotAddr && 'DoT'].filter(Boolean).join(' and ');
  if (config.dohCertFile || config.dohKeyFile) {
    checkCertificatePair(config, now, add);
  } else if (encrypted) {
    add('ok', 'DoH/DoT certificate', `${encrypted}: leaves minted from the deployment root CA (clients must trust it)`);
  }

  if (config.roles.includes('api')) {
    if (existsSync(join(config.consoleDir, 'index.html'))) add('ok', 'console', config.consoleDir);
    else
      add(
        'warn',
        'console',
        `${config.consoleDir} has no index.html: /restapi works, the console is not served (npm run build)`,
      );
  }
  add('ok', 'upstreams', config.upstreams.map((u) => `${u.host}:${u.port}`).join(', '));
  return { findings, config };
}

function checkCertificatePair(
  config: ServeConfig,
  now: number,
  add: (level: ConfigFinding['level'], check: string, detail: string) => void,
): void {
  const check = 'DoH/DoT certificate';
  if (!config.dohCertFile || !config.dohKeyFile) {
    add('error', check, 'give both --doh-cert and --doh-key, or neither');
    return;
  }
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(readFileSync(config.dohCertFile));
  } catch (err) {
    add('error', check, `${config.dohCertFile}: not a PEM certificate (${(err as Error).message})`);
    return;
  }
  let key: ReturnType<typeof createPrivateKey>;
  try {
    key = createPrivateKey(readFileSync(config.dohKeyFile));
  } catch (err) {
    add('error', check, `${config.dohKeyFile}: not a PEM private key (${(err as Error).message})`);
    return;
  }
  if (!cert.checkPrivateKey(key)) {
    add('error', check, `${config.dohKeyFile} is not the key of ${config.dohCertFile}`);
    return;
  }
  const notAfter = Date.parse(cert.validTo);
  const days = Math.floor((notAfter - now) / 86_400_000);
  if (Date.parse(cert.validFrom) > now || notAfter <= now) {
    add('error', check, `${config.dohCertFile} is not valid now (valid ${cert.validFrom} to ${cert.validTo})`);
  } else if (days < CERT_WARN_DAYS) {
    add('warn', check, `${config.dohCertFile} expires in ${days} days (${cert.validTo})`);
  } else {
    add('ok', check, `${cert.subject.replace(/\n/g, ', ')}, valid ${days} more days`);
  }
}
