import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect-kind.ts';

/**
 * Every location type (spec-notes §3 "Location": staticip, dynamicip, dynamicdns, roaming, virtual;
 * docs/decisions.md "Environment").
 *
 * - `locations.key` (since 0001) is the location's secret key: for `dynamicip` the key of its
 *   DynDNS-compatible update URL, for `roaming` and `virtual` the key of `/dns-query/{key}`.
 * - `hostname`: the name a `dynamicdns` location follows; its last resolved addresses are its rows
 *   of `location_addresses`, so the resolver matches them like static ones.
 * - `addresses_updated_at`: when the address set of a `dynamicip` or `dynamicdns` location last
 *   changed by an update or a re-resolution (ISO-8601 UTC); `resolve_error`: the last
 *   re-resolution's failure, empty when it succeeded.
 */
export async function up(db: Kysely<unknown>, _dialect: Dialect): Promise<void> {
  await db.schema.alterTable('locations').addColumn('hostname', 'text').execute();
  await db.schema.alterTable('locations').addColumn('addresses_updated_at', 'text').execute();
  await db.schema
    .alterTable('locations')
    .addColumn('resolve_error', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  await db.schema.createIndex('locations_type').on('locations').columns(['type', 'customer_id']).execute();
}
