import { type Decision, type DomainIndex, staticRouteIndexes } from '@cordon/policy';
import { sql } from 'kysely';
import { big, type SnapshotPart, tableDigest } from './part.ts';

/** Customer id → its static routes (domain suffix → a `static_route` decision), decision order step 2. */
export type StaticRoutesSnapshot = ReadonlyMap<number, DomainIndex<Decision>>;

/**
 * Static routes (docs/architecture.md "Decision order" step 2): every row of `static_routes`, one
 * {@link DomainIndex} per customer whose entries match the suffix and every name below it, each
 * holding a frozen `static_route` decision forwarding to the route's resolver (`ip:port`,
 * `[ipv6]:port`). The table is small (a few routes per customer), so a change re-reads it whole.
 * Follows the `staticroutes` topic.
 */
export const staticRoutesPart: SnapshotPart<StaticRoutesSnapshot> = {
  name: 'static-routes',
  topics: ['staticroutes'],
  empty: () => new Map<never, never>(),
  load: async (handle) => {
    const rows = await handle.db
      .selectFrom('static_routes')
      .select(['customer_id', 'domain', 'resolver_ip', 'resolver_port'])
      .orderBy('id')
      .execute();
    return staticRouteIndexes(rows);
  },
  digest: (handle) =>
    tableDigest(handle, [
      {
        table: 'static_routes',
        rows: [sql`(${big(sql.ref('id'))} * 65536 + resolver_port) * 256 + length(domain) + length(resolver_ip)`],
        stamps: ['updated_at'],
      },
    ]),
};
