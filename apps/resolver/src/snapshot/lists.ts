import type { DatabaseHandle } from '@cordon/db';
import { normalizeDomain } from '@cordon/shared';
import { type CompiledPolicy, withLists } from '../policy/compiled-policy.ts';
import { DomainIndex, type DomainLists, NO_LISTS } from '../policy/domain-index.ts';
import type { SnapshotPart } from './part.ts';

/**
 * The lists part (decision order steps 3–4, docs/architecture.md): every policy's allow and block
 * lists, each MSP's global lists and the system's, compiled into {@link DomainIndex}es. Owners
 * without entries are absent, so the list rules pass at once.
 */
export interface ListsSnapshot {
  /** Policy id → its allow and block lists (step 3); the store links them into the compiled policies. */
  readonly policy: ReadonlyMap<number, DomainLists>;
  /** MSP id → its global allow and block lists (step 4). */
  readonly msp: ReadonlyMap<number, DomainLists>;
  /** The system's global lists (step 4, after the MSP's). */
  readonly system: DomainLists;
}

/** Entries per page when reading the lists (bench/README.md "Resolver memory"). */
const LIST_PAGE = 10_000;

type MutableLists = { allow: DomainIndex<true>; block: DomainIndex<true> };

function add(into: Map<number, MutableLists>, key: number, row: EntryRow): void {
  let lists = into.get(key);
  if (!lists) {
    lists = { allow: new DomainIndex<true>(), block: new DomainIndex<true>() };
    into.set(key, lists);
  }
  addRow(lists, row);
}

interface EntryRow {
  domain: string;
  action: string;
  include_subdomains: number;
}

function addRow(lists: MutableLists, row: EntryRow): void {
  const index = row.action === 'allow' ? lists.allow : row.action === 'block' ? lists.block : null;
  index?.add(normalizeDomain(row.domain), true, Number(row.include_subdomains) === 1);
}

/**
 * The lists part: reads `policy_domains` and `global_domains` in one transaction (a consistent view),
 * rows in id order (the oldest of two equal entries wins). Follows the `lists` topic; a deleted
 * policy or MSP leaves an unreferenced entry until the next reload or the periodic resync.
 */
export const listsPart: SnapshotPart<ListsSnapshot> = {
  name: 'lists',
  topics: ['lists'],
  empty: () => ({ policy: new Map(), msp: new Map(), system: NO_LISTS }),
  load: (handle: DatabaseHandle) =>
    handle.db.transaction().execute(async (trx) => {
      const policy = new Map<number, MutableLists>();
      const msp = new Map<number, MutableLists>();
      const system: MutableLists = { allow: new DomainIndex<true>(), block: new DomainIndex<true>() };
      // Keyset pages in id order, so 100,000 entries never sit in memory as row objects at once.
      for (let after = 0; ; ) {
        const rows = await trx
          .selectFrom('policy_domains')
          .select(['id', 'policy_id', 'domain', 'action', 'include_subdomains'])
          .where('id', '>', after)
          .orderBy('id')
          .limit(LIST_PAGE)
          .execute();
        for (const r of rows) add(policy, r.policy_id, r);
        if (rows.length < LIST_PAGE) break;
        after = rows[rows.length - 1]!.id;
      }
      for (let after = 0; ; ) {
        const rows = await trx
          .selectFrom('global_domains')
          .select(['id', 'msp_id', 'domain', 'action', 'include_subdomains'])
          .where('id', '>', after)
          .orderBy('id')
          .limit(LIST_PAGE)
          .execute();
        for (const r of rows) {
          if (r.msp_id === null) addRow(system, r);
          else add(msp, r.msp_id, r);
        }
        if (rows.length < LIST_PAGE) break;
        after = rows[rows.length - 1]!.id;
      }
      // Pack every index now: the pending name strings go with the load, not with each list's first query.
      for (const lists of [...policy.values(), ...msp.values(), system]) {
        lists.allow.seal();
        lists.block.seal();
      }
      return { policy, msp, system: system.allow.size + system.block.size === 0 ? NO_LISTS : system };
    }),
};

/**
 * A policy with its lists linked in (step 3), or the policy itself when it has none; `cache` keeps
 * one linked object per policy for one relink.
 */
export function linkLists(
  policy: CompiledPolicy,
  lists: ListsSnapshot,
  cache: Map<number, CompiledPolicy>,
): CompiledPolicy {
  const own = lists.policy.get(policy.id);
  if (!own) return policy;
  let linked = cache.get(policy.id);
  if (!linked) {
    linked = withLists(policy, own);
    cache.set(policy.id, linked);
  }
  return linked;
}
