import type { ActiveBypass } from '@cordon/policy';
import { sql } from 'kysely';
import { big, type SnapshotPart, tableDigest } from './part.ts';

/** Client address (canonical) → its active cloud-key bypass (decision order step 1). */
export type BypassesSnapshot = ReadonlyMap<string, ActiveBypass>;

/**
 * The bypass part (docs/architecture.md "Block page"): the `bypasses` rows not yet expired, one entry per client address
 * (of several, the latest end wins). Reloaded on the `bypasses` topic, which the block page publishes
 * when a key starts one and the API when a key changes; an entry past its end stops applying by the
 * rule's `now` check, before any reload.
 */
export const bypassesPart: SnapshotPart<BypassesSnapshot> = {
  name: 'bypasses',
  topics: ['bypasses'],
  empty: () => new Map<string, ActiveBypass>(),
  load: async (handle) => {
    const rows = await handle.db
      .selectFrom('bypasses')
      .select(['customer_id', 'client_ip', 'expires_at'])
      .where('expires_at', '>', Date.now())
      .orderBy('expires_at')
      .orderBy('id')
      .execute();
    const out = new Map<string, ActiveBypass>();
    for (const r of rows) {
      out.set(r.client_ip, Object.freeze({ customerId: r.customer_id, expiresAt: Number(r.expires_at) }));
    }
    return out;
  },
  // Every row, expired ones too (one dropping out needs no reload: the rule checks its end).
  digest: (handle) =>
    tableDigest(handle, [
      {
        table: 'bypasses',
        rows: [sql`${big(sql.ref('id'))} * 1024 + length(client_ip)`, big(sql.ref('expires_at'))],
      },
    ]),
};
