import type { QueryLogRow } from '../row.ts';
import { openStreamSink, type StreamLog, type StreamSink, type StreamStats } from './sinks.ts';
import type { StreamTarget } from './targets.ts';

/** Customer id → MSP id, as the writer thread reads them from its connection. */
export type MspLoader = () => Promise<ReadonlyMap<number, number>>;

/** How often the customer → MSP map is reloaded, ms; a row of a customer not in it reloads it at once, once. */
const MSP_REFRESH_MS = 60_000;
/** Rows held at most while a reload runs. */
const MAX_WAITING_ROWS = 50_000;

/**
 * The query-log streams of one writer thread (docs/decisions.md "Query-log streaming"): every row
 * the thread receives is handed to each sink, with its customer's MSP id added. Lives on the
 * query-log writer thread: the resolving thread only posts its batches, as it did before streams.
 * A row of a customer not in the map yet (created since the last load) waits, with the rows behind
 * it, for one reload: a new customer's first queries carry its MSP too.
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

  constructor(
    targets: readonly StreamTarget[],
    private readonly log: StreamLog,
    private readonly loadMsps: MspLoader | null,
    maxRows?: number,
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
    }
  }
  /** A copy of every sink's counters, in the order of the targets. */
  stats(): StreamStats[] {
    return this.sinks.map((s) => ({ ...s.stats }));
  }

  /** Closes every sink, sending what waits within `graceMs`. */
  async close(graceMs: number): Promise<void> {
    if (this.waiting !== null) await this.loading;
    await Promise.all(this.sinks.map((s) => s.close(graceMs)));
  }
}
