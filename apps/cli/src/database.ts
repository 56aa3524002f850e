import { join } from 'node:path';
import { type DatabaseHandle, openDatabase } from '@cordon/db';
import type { ServeConfig } from './config.ts';

/** Opens the database a config names: PostgreSQL when `databaseUrl` is set, else `cordon.sqlite` in the data dir. */
export function openConfiguredDatabase(config: Pick<ServeConfig, 'databaseUrl' | 'dataDir'>): DatabaseHandle {
  return openDatabase(
    config.databaseUrl ? { url: config.databaseUrl } : { sqlitePath: join(config.dataDir, 'cordon.sqlite') },
  );
}
