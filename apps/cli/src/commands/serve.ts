import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { buildApp, ensureSystemAdmin, loadOrCreateJwtSecret } from '@cordon/api';
import { createChangeFeed, migrateToLatest } from '@cordon/db';
import { type SnapshotStore, startBlockPage, startResolver } from '@cordon/resolver';
import type { Logger } from 'pino';
import { describeConfig, type HostPort, type ServeConfig } from '../config.ts';
import { openConfiguredDatabase } from '../database.ts';

/** A running `cordon serve`: the bound addresses and how to stop it. */
export interface RunningCordon {
  http?: HostPort;
  dns?: HostPort;
  blockPage?: HostPort;
  /** Stops listeners, flushes the query log, closes the database. Safe to call twice. */
  close(): Promise<void>;
}

const bound = (a: AddressInfo | string | null | undefined, fallback: HostPort): HostPort =>
  a && typeof a === 'object' ? { host: a.address, port: a.port } : fallback;

/**
 * Starts Cordon (issue #2 deliverable 2): migrations, the first-run system admin, the console and
 * `/restapi`, the resolver on UDP+TCP and the block page, each as its role is enabled. Prints the
 * generated admin password once, then one boot line of the effective configuration.
 * @throws Error when the database cannot be opened or migrated or an address cannot be bound;
 *   anything already started is stopped again first
 */
export async function startCordon(
  config: ServeConfig,
  logger: Logger,
  print: (line: string) => void,
): Promise<RunningCordon> {
  const handle = openConfiguredDatabase(config);
  const closers: Array<() => Promise<void>> = [() => handle.close()];
  const running: RunningCordon = {
    close: async () => {
      while (closers.length > 0) {
        const close = closers.pop();
        try {
          await close?.();
        } catch (err) {
          logger.error({ err }, 'shutdown step failed');
        }
      }
    },
  };
  try {
    const applied = await migrateToLatest(handle);
    if (applied.length > 0) logger.info({ migrations: applied }, 'database migrated');
    const changes = createChangeFeed(handle);
    await changes.start();
    closers.push(() => changes.close());

    if (config.roles.includes('api')) {
      const admin = await ensureSystemAdmin(handle, { email: config.adminEmail, password: config.adminPassword });
      if (admin.generatedPassword) {
        print(
          `First run: system admin ${admin.email} created with password ${admin.generatedPassword} (shown once; change it after logging in)`,
        );
      } else if (admin.created) {
        print(`First run: system admin ${admin.email} created`);
      }
      const jwtSecret = await loadOrCreateJwtSecret(handle);
      const app = await buildApp({
        db: handle,
        changes,
        jwtSecret,
        logger: { level: config.logLevel === 'debug' ? 'info' : 'warn' },
        ...(existsSync(config.consoleDir) ? { consoleDir: config.consoleDir } : {}),
      });
      await app.listen({ host: config.httpAddr.host, port: config.httpAddr.port });
      closers.push(() => app.close());
      running.http = bound(app.server.address(), config.httpAddr);
    }
    let snapshot: SnapshotStore | undefined;
    if (config.roles.includes('resolver')) {
      const resolver = await startResolver({
        db: handle,
        changes,
        logger: logger.child({ role: 'resolver' }),
        dns: config.dnsAddr,
        upstreams: config.upstreams,
        blockAddresses: { ipv4: config.blockIpv4, ipv6: config.blockIpv6 },
        // The query-log writer thread opens its own connection; a SQLite file is derived from the
        // handle, PostgreSQL needs the URL (the handle keeps no password).
        ...(config.databaseUrl ? { queryLog: { connection: { url: config.databaseUrl } } } : {}),
      });
      closers.push(() => resolver.close());
      running.dns = bound(resolver.address.udp, config.dnsAddr);
      snapshot = resolver.snapshot;
    }
    if (config.roles.includes('blockpage')) {
      const blockPage = await startBlockPage({
        db: handle,
        changes,
        logger: logger.child({ role: 'blockpage' }),
        http: config.blockPageAddr,
        ...(snapshot ? { snapshot } : {}),
      });
      closers.push(() => blockPage.close());
      running.blockPage = bound(blockPage.address, config.blockPageAddr);
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
      },
      handle.location,
    )}`,
  );
  return running;
}
