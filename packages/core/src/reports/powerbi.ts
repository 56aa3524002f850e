import { ApiError, type PowerBiConfig } from '@cordon/shared';
import type { Caller, CoreDeps } from '../context.ts';
import { customerInScope, scopeOf } from '../tenancy/index.ts';

/** The `settings` key holding the Power BI embed address (docs/api.md "Power BI"); absent: not configured. */
export const POWERBI_SETTING = 'powerbi.embed_url';

/**
 * Stores (or, with `null`, removes) the Power BI embed address the operator configures with
 * `cordon powerbi set|clear` (docs/operations.md "Power BI"). Only an absolute `https:` address is
 * accepted: the console opens it for admins, so a `javascript:` or plain-HTTP one is never stored.
 * @returns the stored address (normalised by the URL parser), or null when cleared
 * @throws ApiError ERR_VALIDATION (nothing written) for anything but an https URL
 */
export async function setPowerBiEmbedUrl(deps: CoreDeps, embedUrl: string | null): Promise<string | null> {
  if (embedUrl === null) {
    await deps.handle.db.deleteFrom('settings').where('key', '=', POWERBI_SETTING).execute();
    return null;
  }
  let url: URL;
  try {
    url = new URL(embedUrl.trim());
  } catch {
    throw new ApiError('ERR_VALIDATION', 'The Power BI embed address must be an https:// URL.');
  }
  if (url.protocol !== 'https:' || url.username !== '' || url.password !== '') {
    throw new ApiError('ERR_VALIDATION', 'The Power BI embed address must be an https:// URL.');
  }
  const value = url.toString();
  await deps.handle.db
    .insertInto('settings')
    .values({ key: POWERBI_SETTING, value })
    .onConflict((oc) => oc.column('key').doUpdateSet({ value }))
    .execute();
  return value;
}

/** `GET /powerbi/config`: `configured` when the operator stored an embed address (no fake embed otherwise). */
export async function powerBiConfig(deps: CoreDeps): Promise<PowerBiConfig> {
  const row = await deps.handle.db
    .selectFrom('settings')
    .select('value')
    .where('key', '=', POWERBI_SETTING)
    .executeTakeFirst();
  const url = row?.value.trim() ? row.value.trim() : null;
  return { configured: url !== null, embed_url: url };
}

/**
 * `POST /oauth/powerbi` (spec-notes §7: `rid`, `uuid`): the embed address of report `rid` for the customer
 * whose `uuid_str` is `uuid`, when the caller may see that customer.
 * @throws ApiError ERR_NOT_FOUND for a customer the caller cannot see (checked first); ERR_CONFLICT
 *   "Power BI is not configured." (409)
 */
export async function powerBiEmbed(
  deps: CoreDeps,
  caller: Caller,
  body: { rid: string; uuid: string },
): Promise<{ embed_url: string; rid: string; customer_id: number }> {
  const customer = await deps.handle.db
    .selectFrom('customers')
    .select('customers.id')
    .where(customerInScope(scopeOf(caller)))
    .where('customers.uuid_str', '=', body.uuid)
    .executeTakeFirst();
  if (!customer) throw new ApiError('ERR_NOT_FOUND');
  const config = await powerBiConfig(deps);
  if (!config.configured || config.embed_url === null)
    throw new ApiError('ERR_CONFLICT', 'Power BI is not configured.');
  const url = new URL(config.embed_url);
  url.searchParams.set('reportId', body.rid);
  return { embed_url: url.toString(), rid: body.rid, customer_id: customer.id };
}
