import type { Database, DatabaseHandle } from '@cordon/db';
import {
  addListEntry,
  type CompiledPolicy,
  type DomainLists,
  emptyLists,
  type ListEntryRow,
  type MutableLists,
  NO_LISTS,
  withLists,
} from '@cordon/policy';
import { type Kysely, sql } from 'kysely';
import { changedKeys, chunks, INCREMENTAL_LIMIT, type SnapshotPart, tableDigest } from './part.ts';

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
  /** What finds the owners whose entries changed on the next load ({@link ListDigests}). */
  readonly digests: ListDigests;
  /** Owners (policies, MSPs, the system) whose rows the load that built this value read: every one on a full load. */
  readonly reloadedOwners: number;
}

/**
 * The per-owner digests of the lists part (docs/architecture.md "Data plane"):
 * - `stamps`: the owners' change stamps, `settings` key → value ({@link LIST_STAMP_PREFIX}), which
 *   core rewrites in the transaction of every list change: read on every load (one row per owner
 *   ever changed), they name the owners to read again;
 * - `policy` / `global`: per policy, and per MSP (0: the system), the count, sum and sum of squares
 *   of its rows' encoding ({@link ROW}), read from the unique indexes at most every
 *   `rowDigestEveryMs`: they find what a writer other than core changed (rows added or removed by
 *   hand, a domain edited in place), whatever published `lists`;
 * - `at`: when the row digests were last read (the part's clock, epoch ms).
 * Bookkeeping only: a load that finds nothing changed updates `at` in place and keeps the value.
 */
export interface ListDigests {
  stamps: ReadonlyMap<string, string>;
  policy: Map<number, string>;
  global: Map<number, string>;
  at: number;
}

/**
 * Entries per page when reading the lists, in full or for some owners: never 100,000 row objects
 * in memory at once (bench/README.md "Resolver memory"), and each page one short synchronous
 * better-sqlite3 call on the data-plane thread, which answers DNS between pages (docs/architecture.md
 * "Data plane": the lists part never holds the answering thread long, the 5-minute resync included).
 */
const SLICE_ROWS = 2_000;

/**
 * The key prefix of the owners' change stamps in `settings`: `lists:policy:<policy id>`,
 * `lists:msp:<MSP id>`, `lists:system`. Core writes the owner's stamp (any fresh text) in the
 * transaction of each change of its entries (docs/architecture.md "Data plane").
 */
export const LIST_STAMP_PREFIX = 'lists:';

/** Lets the event loop run (answer queries, take relayed changes) between two slices of a load. */
const breathe = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function add(into: Map<number, MutableLists>, key: number, row: ListEntryRow): void {
  let lists = into.get(key);
  if (!lists) {
    lists = emptyLists();
    into.set(key, lists);
  }
  addListEntry(lists, row);
}

/** Packs every index now (the pending name strings go with the load), one owner per turn of the event loop. */
async function sealAll(lists: Iterable<MutableLists>): Promise<void> {
  for (const l of lists) {
    l.allow.seal();
    l.block.seal();
    await breathe();
  }
}

/**
 * The row encoding the digests sum: id, action and the domain's length, all in the owner's unique
 * index (SQLite's indexes carry the rowid), so the digest is read from the index alone.
 */
const ROW = sql`(cast(id as bigint) * 2 + (case when action = 'block' then 1 else 0 end)) * 1024 + length(domain)`;
/** The prime the digest sums are taken modulo (as `digestColumns` of part.ts). */
const P = 1_000_000_007;
const N = sql<number | string>`count(*)`;
const S = sql<number | string | null>`sum((${ROW}) % ${sql.lit(P)})`;
const Q = sql<number | string | null>`sum(((${ROW}) % ${sql.lit(P)}) * ((${ROW}) % ${sql.lit(P)}) % ${sql.lit(P)})`;

/** Partial digest sums of one owner, added up across slices. */
type Sums = { n: number; s: number; q: number };

/** Adds digest rows (`key`, n, s, q) into `into`, summing an owner's rows across slices (modulo {@link P}). */
function addSums(
  into: Map<number, Sums>,
  rows: readonly { key: number; n: number | string; s: number | string | null; q: number | string | null }[],
): void {
  for (const r of rows) {
    const at = into.get(Number(r.key)) ?? { n: 0, s: 0, q: 0 };
    at.n += Number(r.n);
    at.s = (at.s + (Number(r.s ?? 0) % P)) % P;
    at.q = (at.q + (Number(r.q ?? 0) % P)) % P;
    into.set(Number(r.key), at);
  }
}

/** The digest texts of summed owners. */
function texts(sums: Map<number, Sums>): Map<number, string> {
  return new Map([...sums].map(([k, v]) => [k, `${v.n}/${v.s}/${v.q}`]));
}

/** Index entries per slice of SQLite's digest pass: one slice is one synchronous call of a few ms. */
const DIGEST_SLICE = 5_000;

/**
 * Row digests ({@link ListDigests}) of the owners `policies` and `globals` name (null: every owner):
 * per owner the count, and the sums modulo {@link P} of {@link ROW} and of its square. On SQLite the
 * pass over every policy's rows walks the unique index {@link DIGEST_SLICE} entries at a time (an
 * owner's rows may span slices: their sums add up), the event loop let run between slices, so one
 * owner's 100,000 entries never hold the answering thread; PostgreSQL answers over the network, so
 * one query leaves the thread free meanwhile.
 */
async function rowDigests(
  db: Kysely<Database>,
  dialect: DatabaseHandle['dialect'],
  policies: number[] | null,
  globals: number[] | null,
): Promise<{ policy: Map<number, string>; global: Map<number, string> }> {
  const policy = new Map<number, Sums>();
  const global = new Map<number, Sums>();
  const policyDigest = () =>
    db.selectFrom('policy_domains').select([sql<number>`policy_id`.as('key'), N.as('n'), S.as('s'), Q.as('q')]);
  if (policies !== null) {
    for (const ids of chunks(policies)) {
      addSums(policy, await policyDigest().where('policy_id', 'in', ids).groupBy('policy_id').execute());
    }
  } else if (dialect === 'sqlite') {
    // Keyset slices along policy_domains_owner_unique (policy_id, action, domain); `last` is the
    // slice's last entry: action and domain joined by NUL keep their order ('allow' < 'block').
    let after: { policy: number; action: string; domain: string } | null = null;
    for (;;) {
      const from: { policy: number; action: string; domain: string } | null = after;
      const slice = db
        .selectFrom('policy_domains')
        .select(['policy_id', 'id', 'action', 'domain'])
        .$if(from !== null, (q) =>
          q.where(sql<boolean>`(policy_id, action, domain) > (${from?.policy}, ${from?.action}, ${from?.domain})`),
        )
        .orderBy('policy_id')
        .orderBy('action')
        .orderBy('domain')
        .limit(DIGEST_SLICE)
        .as('slice');
      const rows: {
        key: number;
        n: number | string;
        s: number | string | null;
        q: number | string | null;
        last: string;
      }[] = await db
        .selectFrom(slice)
        .select([
          sql<number>`policy_id`.as('key'),
          N.as('n'),
          S.as('s'),
          Q.as('q'),
          sql<string>`max(action || char(0) || domain)`.as('last'),
        ])
        .groupBy('policy_id')
        .orderBy('policy_id')
        .execute();
      addSums(policy, rows);
      const read = rows.reduce((n, r) => n + Number(r.n), 0);
      const end = rows[rows.length - 1];
      if (read < DIGEST_SLICE || !end) break;
      const nul = end.last.indexOf('\0');
      after = { policy: Number(end.key), action: end.last.slice(0, nul), domain: end.last.slice(nul + 1) };
      await breathe();
    }
  } else {
    addSums(policy, await policyDigest().groupBy('policy_id').execute());
  }
  const owner = sql<number>`coalesce(msp_id, 0)`;
  for (const ids of globals === null ? [null] : chunks(globals)) {
    addSums(
      global,
      await db
        .selectFrom('global_domains')
        .select([owner.as('key'), N.as('n'), S.as('s'), Q.as('q')])
        .$if(ids !== null, (q) => q.where(owner, 'in', ids as number[]))
        .groupBy(owner)
        .execute(),
    );
  }
  return { policy: texts(policy), global: texts(global) };
}

/** The owners' change stamps, `settings` key → value (a range of the primary key). */
async function readStamps(db: Kysely<Database>): Promise<Map<string, string>> {
  const rows = await db
    .selectFrom('settings')
    .select(['key', 'value'])
    .where('key', '>=', LIST_STAMP_PREFIX)
    .where('key', '<', `${LIST_STAMP_PREFIX.slice(0, -1)};`)
    .execute();
  return new Map(rows.map((r) => [r.key, r.value]));
}

/** Adds the owner a stamp key names to `policies` or `globals` (the system as 0); other keys are ignored. */
function stampOwner(key: string, policies: Set<number>, globals: Set<number>): void {
  const [, kind, id] = key.split(':');
  if (kind === 'system') globals.add(0);
  else if ((kind === 'policy' || kind === 'msp') && id !== undefined && /^[1-9][0-9]*$/.test(id)) {
    (kind === 'policy' ? policies : globals).add(Number(id));
  }
}

/**
 * Reads the entries of one table (`policy_domains` by policy, or `global_domains` by MSP, the
 * system as 0) in id order, keyset pages of `page` rows, into `into`; `owners` limits the read to
 * those owners (null: all). The event loop runs between pages.
 */
async function readEntries(
  db: Kysely<Database>,
  table: 'policy_domains' | 'global_domains',
  owners: number[] | null,
  into: Map<number, MutableLists>,
  page: number,
): Promise<void> {
  const owner = sql<number>`coalesce(msp_id, 0)`;
  for (const ids of owners === null ? [null] : chunks(owners)) {
    for (let after = 0; ; ) {
      const rows =
        table === 'policy_domains'
          ? await db
              .selectFrom('policy_domains')
              .select([sql<number>`policy_id`.as('owner'), 'id', 'domain', 'action', 'include_subdomains'])
              .$if(ids !== null, (q) => q.where('policy_id', 'in', ids as number[]))
              .where('id', '>', after)
              .orderBy('id')
              .limit(page)
              .execute()
          : await db
              .selectFrom('global_domains')
              .select([owner.as('owner'), 'id', 'domain', 'action', 'include_subdomains'])
              .$if(ids !== null, (q) => q.where(owner, 'in', ids as number[]))
              .where('id', '>', after)
              .orderBy('id')
              .limit(page)
              .execute();
      for (const r of rows) add(into, Number(r.owner), r);
      if (rows.length < page) break;
      after = rows[rows.length - 1]!.id;
      await breathe();
    }
  }
}

/** Settings of {@link createListsPart}. */
export interface ListsPartOptions {
  /** The clock of the row digests' cadence, epoch ms (default `Date.now`). */
  now?: () => number;
  /** At most how often a load reads every owner's row digest, ms (default 10,000; 0: every load). */
  rowDigestEveryMs?: number;
  /** The coalescing window of change-triggered reloads, ms (default 200; `SnapshotPart.settleMs`). */
  settleMs?: number;
}

/**
 * The lists part (topic `lists`), read in one transaction (a consistent view), rows in id order (the
 * oldest of two equal entries wins). Incremental per owner (docs/architecture.md "Data plane"): the
 * owners' digests ({@link ListDigests}: core's change stamps on every load, the row digests at most
 * every `rowDigestEveryMs`) find the policies, MSPs and the system whose entries changed, and only
 * their rows are read again and their indexes rebuilt; every other owner's packed indexes are kept
 * as they are. A notification that finds no changed owner (the poller seeing again a change the
 * relay brought) reads no entry and keeps the value, so nothing is relinked: each change is applied
 * once. More than {@link INCREMENTAL_LIMIT} changed owners, or no previous value, reads everything.
 * Every read is cut into slices with the event loop let run between them, so the data-plane thread
 * keeps answering while a large list loads.
 */
export function createListsPart(options: ListsPartOptions = {}): SnapshotPart<ListsSnapshot> {
  const clock = options.now ?? Date.now;
  const every = options.rowDigestEveryMs ?? 10_000;
  return {
    name: 'lists',
    incremental: true,
    topics: ['lists'],
    settleMs: options.settleMs ?? 200,
    empty: () => ({
      policy: new Map(),
      msp: new Map(),
      system: NO_LISTS,
      digests: { stamps: new Map(), policy: new Map(), global: new Map(), at: 0 },
      reloadedOwners: 0,
    }),
    load: (handle: DatabaseHandle, _logger, previous) =>
      handle.db
        .transaction()
        .setAccessMode('read only')
        .execute(async (trx) => {
          const stamps = await readStamps(trx);
          const policies = new Set<number>();
          const globals = new Set<number>();
          let rows: { policy: Map<number, string>; global: Map<number, string> } | null = null;
          const at = clock();
          if (previous) {
            const before = previous.digests;
            for (const key of changedStringKeys(before.stamps, stamps)) stampOwner(key, policies, globals);
            if (at - before.at >= every) {
              rows = await rowDigests(trx, handle.dialect, null, null);
              for (const id of changedKeys(before.policy, rows.policy)) policies.add(id);
              for (const id of changedKeys(before.global, rows.global)) globals.add(id);
            }
            if (policies.size + globals.size === 0) {
              // Nothing to rebuild: the bookkeeping moves on, the value (and so every identity) stays.
              before.stamps = stamps;
              if (rows) Object.assign(before, { policy: rows.policy, global: rows.global, at });
              return previous;
            }
          }
          const partial = previous !== null && policies.size + globals.size <= INCREMENTAL_LIMIT;
          const freshPolicy = new Map<number, MutableLists>();
          const freshGlobal = new Map<number, MutableLists>();
          let digests: ListDigests;
          if (partial) {
            await readEntries(trx, 'policy_domains', [...policies], freshPolicy, SLICE_ROWS);
            await readEntries(trx, 'global_domains', [...globals], freshGlobal, SLICE_ROWS);
            // The re-read owners' row digests now, so the next digest pass does not flag them again.
            const mine = rows ?? (await rowDigests(trx, handle.dialect, [...policies], [...globals]));
            const before = previous.digests;
            const policy = rows ? rows.policy : new Map(before.policy);
            const global = rows ? rows.global : new Map(before.global);
            if (!rows) {
              for (const id of policies) setOrDelete(policy, id, mine.policy.get(id));
              for (const id of globals) setOrDelete(global, id, mine.global.get(id));
            }
            digests = { stamps, policy, global, at: rows ? at : before.at };
          } else {
            await readEntries(trx, 'policy_domains', null, freshPolicy, SLICE_ROWS);
            await readEntries(trx, 'global_domains', null, freshGlobal, SLICE_ROWS);
            const all = rows ?? (await rowDigests(trx, handle.dialect, null, null));
            digests = { stamps, policy: all.policy, global: all.global, at };
          }
          await sealAll([...freshPolicy.values(), ...freshGlobal.values()]);
          const policy = new Map<number, DomainLists>();
          const global = new Map<number, DomainLists>();
          if (partial) {
            for (const [id, l] of previous.policy) if (!policies.has(id)) policy.set(id, l);
            for (const [id, l] of previous.msp) if (!globals.has(id)) global.set(id, l);
            if (!globals.has(0) && previous.system !== NO_LISTS) global.set(0, previous.system);
          }
          for (const [id, l] of freshPolicy) policy.set(id, l);
          for (const [id, l] of freshGlobal) global.set(id, l);
          const system = global.get(0);
          global.delete(0);
          return {
            policy,
            msp: global,
            system: system && system.allow.size + system.block.size > 0 ? system : NO_LISTS,
            digests,
            reloadedOwners: partial ? policies.size + globals.size : policy.size + global.size + (system ? 1 : 0),
          };
        }),
    // Core's owner stamps, and every entry's id, action, flag, name length and updated_at (a hand edit).
    digest: async (handle) => {
      const stamps = [...(await readStamps(handle.db))].map(([k, v]) => `${k}=${v}`).join(',');
      const row = sql`((cast(id as bigint) * 2 + (case when action = 'block' then 1 else 0 end)) * 2 + include_subdomains) * 1024 + length(domain)`;
      const tables = await tableDigest(handle, [
        { table: 'policy_domains', rows: [row], stamps: ['updated_at'] },
        { table: 'global_domains', rows: [row], stamps: ['updated_at'] },
      ]);
      return `${stamps}|${tables}`;
    },
  };
}

/** The lists part with its defaults ({@link createListsPart}). */
export const listsPart: SnapshotPart<ListsSnapshot> = createListsPart();

/** Keys whose value differs between `before` and `after` (added, removed or changed). */
function changedStringKeys(before: ReadonlyMap<string, string>, after: ReadonlyMap<string, string>): string[] {
  const out: string[] = [];
  for (const [k, v] of after) if (before.get(k) !== v) out.push(k);
  for (const k of before.keys()) if (!after.has(k)) out.push(k);
  return out;
}

function setOrDelete(map: Map<number, string>, key: number, value: string | undefined): void {
  if (value === undefined) map.delete(key);
  else map.set(key, value);
}

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
