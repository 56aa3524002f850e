import { admins, reports } from '@cordon/core';
import { migrateToLatest } from '@cordon/db';
import type { ServeConfig } from '../config.ts';
import { openConfiguredDatabase } from '../database.ts';

/**
 * `cordon powerbi set <url>` / `cordon powerbi clear` (docs/operations.md "Power BI"): stores or removes
 * the deployment's Power BI embed address, after bringing the schema up to date. `GET /powerbi/config`
 * (spec-notes §7) reports it from the next request on.
 * @param embedUrl the https:// address, or null to clear
 * @throws ApiError (nothing written) for anything but an https:// URL
 */
export async function runPowerBi(
  config: Pick<ServeConfig, 'databaseUrl' | 'dataDir'>,
  embedUrl: string | null,
  print: (line: string) => void,
): Promise<void> {
  const handle = openConfiguredDatabase(config);
  try {
    await migrateToLatest(handle);
    const stored = await reports.setPowerBiEmbedUrl(admins.operatorDeps(handle), embedUrl);
    print(stored === null ? 'Power BI embed removed' : `Power BI embed set: ${stored}`);
  } finally {
    await handle.close();
  }
}
