import type { QueryLogRow } from './query-log-row.ts';
import type { Database } from './schema.ts';

/**
 * The storage contract of the query log (docs/operations.md "Query log at fleet scale"): everything
 * Cordon does with raw logged queries, so that where they are kept — `query_log` in the configuration
 * database (SQLite, PostgreSQL: today's only implementation, spread over apps/resolver/src/querylog,
 * @cordon/core `rollups` and `stats`) or a columnar store beside it (ClickHouse) — is a setting, not a
 * rewrite. The configuration (tenants, policies, devices), the roll-ups the dashboards read, the fold's
 * watermark and the MSP summaries stay in the configuration database whatever the store; only the raw
 * rows and the three uses of them below move.
 *
 * Not yet wired: the PostgreSQL/SQLite code paths named on each member are what an implementation of
 * kind `'sql'` wraps, unchanged.
 */
export interface QueryLogStore extends QueryLogBatchWriter, QueryLogFoldSource, QueryLogSearch {
  /** `'sql'`: `query_log` in the configuration database; `'columnar'`: a store of its own. */
  readonly kind: 'sql' | 'columnar';
  /**
   * Drops the raw rows older than `before` (epoch ms), whole days where the store partitions by day
   * (PostgreSQL daily partitions, migration 0022; ClickHouse `PARTITION BY` day or a TTL). Resolves
   * with the rows or partitions removed. Today: `rollups.applyRetention`'s raw part.
   */
  dropBefore(before: number): Promise<{ rows: number; partitions: string[] }>;
  close(): Promise<void>;
}

/**
 * The writers' side, on each resolver's writer thread (docs/architecture.md "Data plane"): the log
 * streams (dnstap, syslog, NDJSON, per-MSP destinations: querylog/streams) stay beside it, fed from the
 * same batches. Today: `insertQueryLogRaw` (SQLite prepared multi-row INSERTs, PostgreSQL COPY under
 * the shared write lock).
 */
export interface QueryLogBatchWriter {
  /**
   * Appends `rows` (at most a few thousand, in the order the resolver answered them), all or nothing:
   * rejects with the store's error and keeps none of them, and the writer thread retries or spools the
   * batch (docs/decisions.md "Query-log spool"). `batch` names the batch uniquely across the fleet
   * (the resolver's instance and a sequence number it never reuses): a store that cannot tell whether a
   * timed-out insert committed drops a second copy by it (ClickHouse `insert_deduplication_token`);
   * a transactional store may ignore it.
   */
  writeBatch(rows: readonly QueryLogRow[], batch: { writer: string; seq: number }): Promise<void>;
}

/** The roll-up rows one fold adds: `stats_hourly` and `stats_hourly_top` deltas (@cordon/core `RollupDeltas`). */
export interface QueryLogDeltas {
  hourly: Array<Database['stats_hourly']>;
  top: Array<Database['stats_hourly_top']>;
}

/**
 * The fold's source (docs/decisions.md "Roll-ups folded by the worker"): the worker asks for the
 * deltas of the rows past its watermark, then adds them to the roll-ups and moves the watermark in
 * one transaction of the configuration database — so a row is counted exactly once even when the
 * store is another system. Today: the read half of `rollups.foldQueryLog` (rows past
 * `query_log_fold.last_id`, folded by `foldRollups`).
 */
export interface QueryLogFoldSource {
  /**
   * The deltas of at most `maxRows` rows past `watermark` ('' before the first fold), and the
   * watermark after them; `rows` 0 when none is final yet. The watermark is opaque text the store
   * alone reads (PostgreSQL: the last `query_log.id`, read below the write lock's final id; a
   * columnar store: its insert order, e.g. the last folded batch per writer). A columnar store may
   * aggregate in place (`GROUP BY` hour, tenant and dimension) and return deltas, not rows.
   */
  foldNext(watermark: string, maxRows: number): Promise<{ rows: number; deltas: QueryLogDeltas; watermark: string }>;
  /**
   * Epoch ms before which every stored row is folded (≤ `now`): the daily compaction waits for it.
   * Today: `rollups.foldedThrough`.
   */
  foldedThrough(watermark: string, now: number): Promise<number>;
}

/**
 * One page of raw rows of a customer's history and how many rows match; `id` is the store's row key as
 * text (PostgreSQL's `query_log.id`; a columnar store has no global sequence), the tie-break of the order.
 */
export interface QueryLogPage {
  total: number;
  rows: Array<QueryLogRow & { id: string }>;
}

/**
 * The reads of raw rows: the history search (docs/api.md "History"), the one console page that
 * reads them (dashboards and reports read the roll-ups). Today: `stats.searchHistory` of @cordon/core
 * through the read pool.
 */
export interface QueryLogSearch {
  /**
   * The rows of `customerId` with `from ≤ ts < to` (epoch ms) matching `filter`: `action` (`allowed`
   * counts `allowed` and `bypassed`), `q` a case-insensitive part of the qname, client address, user
   * name or matched name (`deviceIds`: the customer's devices whose name matched it, resolved in the
   * configuration database first), and the exact filters of `HistoryQuery` (@cordon/shared); ordered
   * by `orderBy` then id, paged by `limit` and `offset`. Every call is scoped to one customer: the
   * store holds every tenant's rows. Rejects with the store's error, or a timeout after `timeoutMs`.
   */
  searchHistory(
    customerId: number,
    range: { from: number; to: number },
    filter: {
      action: 'all' | 'allowed' | 'blocked';
      q?: string;
      deviceIds?: readonly number[];
      domain?: string;
      category?: number;
      location?: number;
      device?: number;
      user?: string;
      client_ip?: string;
      orderBy: 'time' | 'qname' | 'qtype' | 'client_ip' | 'action' | 'reason';
      orderDir: 'asc' | 'desc';
      limit: number;
      offset: number;
    },
    timeoutMs: number,
  ): Promise<QueryLogPage>;
}
