import { join } from 'node:path';
import { type DatabaseHandle, openDatabase } from '@cordon/db';
import type { ServeConfig } from './config.ts';

/**
 * Opens the database a config names: PostgreSQL when `databaseUrl` is set, else `cordon.sqlite` in the data dir.
 * @param onPoolError PostgreSQL: told when the server or the network ended an idle pooled connection
 *   (see `OpenDatabaseOptions.onPoolError`; docs/operations.md "When the database goes away")
 */
export function openConfiguredDatabase(
  config: Pick<ServeConfig, 'databaseUrl' | 'dataDir'>,
  onPoolError?: (err: Error) => void,
): DatabaseHandle {
  return openDatabase(
    config.databaseUrl
      ? { url: config.databaseUrl, ...(onPoolError ? { onPoolError } : {}) }
      : { sqlitePath: join(config.dataDir, 'cordon.sqlite') },
  );
}
