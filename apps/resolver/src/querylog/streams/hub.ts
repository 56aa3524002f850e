import type { QueryLogRow } from '../row.ts';
import { type MspDestination, type MspStreamRow, mspDestination } from './msp.ts';
import { openStreamSink, type StreamLog, type StreamSink, type StreamStats } from './sinks.ts';
import type { MspStreamsOptions, StreamTarget } from './targets.ts';

/**
 * The state of an MSP's destination, written back to its row (`last_delivered_at`, `last_error`,
 * `last_error_at`; epoch ms, 0 for never) when it changed.
 */
export interface MspStreamStatus {
  readonly id: number;
  /** The row's change stamp the sink was opened for: a row changed since is not written. */
  readonly stamp: string;
  readonly deliveredAt: number;
  readonly error: string | null;
  readonly errorAt: number;
}

/** One open sink of an MSP's destination. */
interface MspSink {
  readonly destination: MspDestination;
  readonly sink: StreamSink;
  /** What was last reported by {@link StreamHub.mspStatus}. */
  reported: { deliveredAt: number; errorAt: number };
}

/** Customer id → MSP id, as the writer thread reads them from its connection. */
export type MspLoader = () => Promise<ReadonlyMap<number, number>>;

/** How often the customer → MSP map is reloaded, ms; a row of a customer not in it reloads it at once, once. */
const MSP_REFRESH_MS = 60_000;
/** How far an MSP destination's delivery time moves before it is written to its row again, ms. */
const STATUS_DELIVERED_MS = 30_000;
/** Rows held at most while a reload runs. */
const MAX_WAITING_ROWS = 50_000;

/**
 * The query-log streams of one writer thread (docs/decisions.md "Query-log streaming"): every row
 * the thread receives is handed to each sink, with its customer's MSP id added. Lives on the
 * query-log writer thread: the resolving thread only posts its batches, as it did before streams.
 * A row of a customer not in the map yet (created since the last load) waits, with the rows behind
 * it, for one reload: a new customer's first queries carry its MSP too. The MSPs' destinations
 * ({@link setMspDestinations}) get the rows of their own MSP's customers only, chosen by that MSP id:
 * a row whose customer has no known MSP goes to none (docs/operations.md "Query-log streaming"
 * "Per-MSP destinations").
 */
export class StreamHub {
  private readonly sinks: StreamSink[];
  private msps: ReadonlyMap<number, number> = new Map();
  private loadedAt = 0;
  private loading: Promise<void> | null = null;
  /** Customers missing from the map after a reload made for them (cleared at each periodic reload). */
  private readonly unknown = new Set<number>();
  /** Rows waiting for a reload, in order; null when none waits. */
  private waiting: QueryLogRow[] | null = null;
  /** The MSPs' destinations by id (docs/operations.md "Query-log streaming" "Per-MSP destinations"). */
  private readonly mspSinks = new Map<number, MspSink>();
  /** MSP id → its open sinks: a row goes only to its own MSP's. */
  private byMsp = new Map<number, StreamSink[]>();
  /** Destinations that could not be opened, by id → the stamp logged (one line per change). */
  private readonly broken = new Map<number, string>();

  constructor(
    targets: readonly StreamTarget[],
    private readonly log: StreamLog,
    private readonly loadMsps: MspLoader | null,
    private readonly maxRows?: number,
  ) {
    this.sinks = targets.map((t) => openStreamSink(t, log, maxRows));
    void this.refresh();
  }

  /** Reloads the customer → MSP map (a failure keeps the old one). */
  private refresh(): Promise<void> {
    if (this.loadMsps === null) return Promise.resolve();
    this.loadedAt = Date.now();
    this.loading ??= this.loadMsps()
      .then((m) => {
        this.msps = m;
      })
      .catch((err: Error) => this.log(`log streams: cannot read the customers' MSPs (${err.message}); msp_id null`))
      .finally(() => {
        this.loading = null;
      });
    return this.loading;
  }

  /** Hands `rows` to every sink (each drops and counts what its buffer cannot hold). */
  push(rows: readonly QueryLogRow[]): void {
    if (this.waiting !== null) {
      for (const r of rows) this.waiting.push(r);
      // A reload that hangs (database unreachable) holds rows in memory: bounded, then sent without MSP.
      if (this.waiting.length < MAX_WAITING_ROWS) return;
      rows = this.waiting;
      this.waiting = null;
      this.loadedAt = Date.now();
    }
    const now = Date.now();
    if (now - this.loadedAt > MSP_REFRESH_MS) {
      this.unknown.clear();
      void this.refresh();
    }
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i]!;
      const msp = this.msps.get(row.customer_id);
      if (msp === undefined && this.loadMsps !== null && !this.unknown.has(row.customer_id)) {
        const waiting = rows.slice(i);
        this.waiting = waiting;
        void this.refresh().then(() => {
          // Still unknown after a reload (a deleted customer): no more reloads for it until the next periodic one.
          for (const r of waiting) if (!this.msps.has(r.customer_id)) this.unknown.add(r.customer_id);
          if (this.waiting !== waiting) return;
          this.waiting = null;
          this.push(waiting);
        });
        return;
      }
      const streamRow = { ...row, msp_id: msp ?? null };
      for (const s of this.sinks) s.push(streamRow);
      // A row of an unknown MSP goes to no MSP's destination.
      const own = msp === undefined ? undefined : this.byMsp.get(msp);
      if (own !== undefined) for (const s of own) s.push(streamRow);
    }
  }
  /**
   * Applies the enabled MSP destinations read from the database: a new one opens a sink, one whose
   * change stamp moved is reopened (its waiting rows dropped), one gone (deleted, disabled) closes.
   * A row that cannot become a target (a sealed value without the secret…) is logged once per change.
   */
  setMspDestinations(rows: readonly MspStreamRow[], opts: MspStreamsOptions): void {
    const seen = new Set<number>();
    for (const row of rows) {
      seen.add(row.id);
      const open = this.mspSinks.get(row.id);
      if (open !== undefined && open.destination.stamp === row.updated_at) continue;
      if (open !== undefined) this.closeMspSink(row.id);
      let destination: MspDestination;
      try {
        destination = mspDestination(row, opts);
      } catch (err) {
        if (this.broken.get(row.id) !== row.updated_at) {
          this.log(`log stream msp ${row.msp_id} stream ${row.id}: not opened (${(err as Error).message})`);
        }
        this.broken.set(row.id, row.updated_at);
        continue;
      }
      this.broken.delete(row.id);
      const sink = openStreamSink(destination.target, this.log, this.maxRows);
      this.log(`log stream ${sink.stats.target}: opened`);
      this.mspSinks.set(row.id, { destination, sink, reported: { deliveredAt: 0, errorAt: 0 } });
    }
    for (const id of [...this.mspSinks.keys()]) if (!seen.has(id)) this.closeMspSink(id);
    for (const id of [...this.broken.keys()]) if (!seen.has(id)) this.broken.delete(id);
    const byMsp = new Map<number, StreamSink[]>();
    for (const { destination, sink } of this.mspSinks.values()) {
      byMsp.set(destination.mspId, [...(byMsp.get(destination.mspId) ?? []), sink]);
    }
    this.byMsp = byMsp;
  }

  private closeMspSink(id: number): void {
    const open = this.mspSinks.get(id);
    if (open === undefined) return;
    this.mspSinks.delete(id);
    this.log(`log stream ${open.sink.stats.target}: closed (changed, disabled or deleted)`);
    void open.sink.close(0);
  }

  /**
   * The MSP destinations whose state is worth writing to their rows since the last call: a new
   * error, a first delivery, or a delivery time {@link STATUS_DELIVERED_MS} past the one written.
   */
  mspStatus(): MspStreamStatus[] {
    const out: MspStreamStatus[] = [];
    for (const m of this.mspSinks.values()) {
      const { lastDeliveredAt, lastError, lastErrorAt } = m.sink;
      // A delivery time is written at first, then when it moved by STATUS_DELIVERED_MS; an error at once.
      const delivered =
        lastDeliveredAt !== 0 &&
        (m.reported.deliveredAt === 0 || lastDeliveredAt - m.reported.deliveredAt >= STATUS_DELIVERED_MS);
      if (!delivered && lastErrorAt === m.reported.errorAt) continue;
      m.reported = { deliveredAt: lastDeliveredAt, errorAt: lastErrorAt };
      out.push({
        id: m.destination.id,
        stamp: m.destination.stamp,
        deliveredAt: lastDeliveredAt,
        error: lastError,
        errorAt: lastErrorAt,
      });
    }
    return out;
  }

  /** The counters of each MSP destination's sink, by destination id (not in {@link stats}: the operator's metrics). */
  mspStats(): Map<number, StreamStats> {
    return new Map([...this.mspSinks].map(([id, m]) => [id, { ...m.sink.stats }]));
  }

  /** A copy of every sink's counters, in the order of the targets. */
  stats(): StreamStats[] {
    return this.sinks.map((s) => ({ ...s.stats }));
  }

  /** Closes every sink, sending what waits within `graceMs`. */
  async close(graceMs: number): Promise<void> {
    if (this.waiting !== null) await this.loading;
    await Promise.all([...this.sinks, ...[...this.mspSinks.values()].map((m) => m.sink)].map((s) => s.close(graceMs)));
  }
}
