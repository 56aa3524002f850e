import type { ChangeTopic, DatabaseHandle } from '@cordon/db';
import { type Expression, type RawBuilder, sql } from 'kysely';
import type { Logger } from 'pino';

/**
 * One part of the resolver's in-memory snapshot (docs/architecture.md "Data plane"): its own loader
 * and the change topics (`CHANGE_TOPICS` of `@cordon/db`) it follows. The store reloads a part only
 * when one of its topics changes, or when the periodic resync finds its digest changed.
 */
export interface SnapshotPart<T> {
  readonly name: string;
  /** The topics whose changes reload this part; empty: only the periodic resync does. */
  readonly topics: readonly ChangeTopic[];
  /**
   * True when `load` with a previous value reads only what changed (so that load's rows are not the
   * whole part, and the copy on disk needs a full read of its own: snapshot/disk.ts).
   */
  readonly incremental?: boolean;
  /**
   * Coalescing window of change-triggered reloads, ms: a change waits this long for the changes
   * that follow it, and all of them make one reload (a burst of list edits is a few reloads, not
   * one per edit; docs/architecture.md "Data plane"). Unset or 0: the reload starts at once (it
   * still coalesces with one in flight). The store's `settleMs` option overrides it.
   */
  readonly settleMs?: number;
  /** The value before the first load: a part that knows nothing. */
  empty(): T;
  /**
   * Loads the part. `previous` is the current value for an incremental load, or null to read
   * everything (first load, periodic resync).
   * @throws when the database cannot be read (the store keeps the previous value)
   */
  load(handle: DatabaseHandle, logger: Logger, previous: T | null): Promise<T>;
  /**
   * A cheap digest of everything `load` reads (aggregates over indexes and change stamps, never the
   * rows themselves; {@link tableDigest}). The safety-net resync reads it first and rebuilds the part
   * only when it differs from the one read before the part's last full load (docs/architecture.md
   * "Data plane"). Unset: every resync rebuilds the part.
   * @throws when the database cannot be read
   */
  digest?(handle: DatabaseHandle): Promise<string>;
}

/** One table's share of a part's digest ({@link tableDigest}). */
export interface TableDigestSpec {
  readonly table: string;
  /**
   * Integer expressions encoding each row's columns the part reads (ids, foreign keys, flags, text
   * lengths), each summed with its square, modulo a prime.
   */
  readonly rows: readonly RawBuilder<unknown>[];
  /** Columns whose maximum joins the digest: the `updated_at` every writer sets (text edits in place). */
  readonly stamps?: readonly string[];
}

/**
 * Rows per slice of a digest on SQLite: each slice is one synchronous better-sqlite3 call on the
 * data-plane thread, which answers DNS between slices (as the lists part's reads, lists.ts).
 */
export const DIGEST_SLICE_ROWS = 2_000;

/** Lets the event loop run (answer queries) between two slices of a digest. */
const breathe = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * A portable digest (SQLite and PostgreSQL) of whole tables: per table the row count, for each
 * `rows` expression its sum and sum of squares modulo a prime, and the maximum of each `stamps`
 * column; joined as text. A row added, removed, or changed in an encoded column or a stamp changes
 * it, except by a coincidence of the sums; what no encoding or stamp covers (a text edited in place
 * by hand without its `updated_at`) is the one change it cannot see. On PostgreSQL one aggregate
 * query per table (the thread waits on the network, free to answer); on SQLite the table is walked
 * in rowid ranges of {@link DIGEST_SLICE_ROWS}, the event loop let run between them, so a table of
 * 100,000 rows never holds the answering thread (docs/architecture.md "Data plane").
 * @throws when the database cannot be read
 */
export async function tableDigest(handle: DatabaseHandle, specs: readonly TableDigestSpec[]): Promise<string> {
  const out: string[] = [];
  for (const spec of specs) {
    const columns = [sql`count(*)`];
    const sums: boolean[] = [true];
    for (const v of spec.rows) {
      // Modulo before summing: a million large encodings would overflow SQLite's 64-bit sum.
      const m = sql`((${v}) % ${sql.lit(P)})`;
      columns.push(sql`sum(${m})`, sql`sum(${m} * ${m} % ${sql.lit(P)})`);
      sums.push(true, true);
    }
    for (const c of spec.stamps ?? []) {
      columns.push(sql`max(${sql.ref(c)})`);
      sums.push(false);
    }
    const select = sql.join(columns.map((c, i) => sql`${c} as ${sql.ref(`c${i}`)}`));
    const table = sql.table(spec.table);
    const total: Array<number | string | null> = sums.map((sum) => (sum ? 0 : null));
    const merge = (row: Record<string, unknown>) =>
      sums.forEach((sum, i) => {
        const v = row[`c${i}`] as number | string | null | undefined;
        if (v === null || v === undefined) return;
        // Sums of values below the prime: exact in a double up to 9e15, far above any table here.
        if (sum) total[i] = Number(total[i]) + Number(v);
        else if (total[i] === null || String(v) > String(total[i])) total[i] = String(v);
      });
    if (handle.dialect === 'sqlite') {
      const { rows: range } = await sql<{
        lo: number | null;
        hi: number | null;
      }>`select min(rowid) as lo, max(rowid) as hi from ${table}`.execute(handle.db);
      const lo = range[0]?.lo ?? null;
      const hi = range[0]?.hi ?? null;
      for (let from = lo === null ? 1 : Number(lo) - 1; hi !== null && from < Number(hi); from += DIGEST_SLICE_ROWS) {
        const { rows } = await sql<
          Record<string, unknown>
        >`select ${select} from ${table} where rowid > ${from} and rowid <= ${from + DIGEST_SLICE_ROWS}`.execute(
          handle.db,
        );
        if (rows[0]) merge(rows[0]);
        await breathe();
      }
    } else {
      const { rows } = await sql<Record<string, unknown>>`select ${select} from ${table}`.execute(handle.db);
      if (rows[0]) merge(rows[0]);
    }
    out.push(`${spec.table}:${total.map((v) => String(v ?? '')).join('/')}`);
  }
  return out.join('|');
}

const P = 1_000_000_007;

/**
 * A portable per-group digest of row values (SQLite and PostgreSQL): count, sum and sum of squares
 * modulo a prime of `v`, an integer expression that encodes one row. Two states of a customer's
 * rows that differ (a row added, removed, or changed in an encoded column) give different digests
 * except by a coincidence the periodic full resync corrects.
 */
export function digestColumns(v: RawBuilder<unknown>): {
  n: RawBuilder<number | string>;
  s: RawBuilder<number | string | null>;
  q: RawBuilder<number | string | null>;
} {
  return {
    n: sql<number | string>`count(*)`,
    s: sql<number | string | null>`sum(${v})`,
    q: sql<number | string | null>`sum(((${v}) % ${sql.lit(P)}) * ((${v}) % ${sql.lit(P)}) % ${sql.lit(P)})`,
  };
}

/** `cast(x as bigint)`: integer arithmetic of the digests must not overflow PostgreSQL's `integer`. */
export function big(column: Expression<unknown> | RawBuilder<unknown>): RawBuilder<number> {
  return sql<number>`cast(${column} as bigint)`;
}

/** Merges digest rows (`key`, n, s, q) into `into`, key → "n/s/q" text, appending when the key repeats. */
export function collectDigests(
  into: Map<number, string>,
  rows: readonly { key: number; n: number | string; s: number | string | null; q: number | string | null }[],
): void {
  for (const r of rows) {
    const text = `${r.n}/${r.s ?? 0}/${r.q ?? 0}`;
    const before = into.get(r.key);
    into.set(r.key, before === undefined ? text : `${before}|${text}`);
  }
}

/** Keys whose digest differs between `before` and `after` (added, removed or changed). */
export function changedKeys(before: ReadonlyMap<number, string>, after: ReadonlyMap<number, string>): Set<number> {
  const changed = new Set<number>();
  for (const [k, v] of after) if (before.get(k) !== v) changed.add(k);
  for (const k of before.keys()) if (!after.has(k)) changed.add(k);
  return changed;
}

/** Above this many changed customers an incremental reload reads everything instead. */
export const INCREMENTAL_LIMIT = 500;

/** Splits `ids` into chunks small enough for an `IN (…)` list on both dialects. */
export function chunks(ids: Iterable<number>, size = 500): number[][] {
  const out: number[][] = [];
  let cur: number[] = [];
  for (const id of ids) {
    cur.push(id);
    if (cur.length === size) {
      out.push(cur);
      cur = [];
    }
  }
  if (cur.length > 0) out.push(cur);
  return out;
}
