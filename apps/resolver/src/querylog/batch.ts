import type { QueryLogRow } from './row.ts';
import type { StreamStats } from './streams/sinks.ts';

/**
 * The wire format of query-log batches between the resolving thread and the writer thread
 * (querylog/threaded.ts ↔ querylog/worker.ts), built so that posting a batch costs the resolving
 * thread little: one transferred `Float64Array` (zero-copy), the batch's qnames joined into one
 * string, and a small dictionary of the other text values. Structured-cloning ten strings a row was
 * a tenth of the resolving thread's time at saturation (bench/README.md "Issue 12: hot path").
 *
 * Per row, {@link NUMS} numbers: ts (epoch ms), customer_id, location_id (NaN = null), policy_id
 * (NaN = null), latency_us, device_id, user_id, group_id (NaN = null), then the dictionary index of
 * each of client_ip, qtype, protocol, action, reason, categories, rcode,
 * answer_source, user_name, matched_name — values that repeat across a batch (a client, an action,
 * a category set; `matched_name` is empty but for a query blocked through its answer's alias chain).
 * The qnames, nearly all distinct, are joined with {@link QNAME_SEPARATOR}.
 */
export const NUMS = 18;
/**
 * Joins the qnames of a batch: a lone high surrogate, which no decoded qname can hold (labels are
 * decoded as Latin-1 or as UTF-8 with invalid sequences replaced: dns/wire.ts), nor any other text
 * the resolver logs.
 */
export const QNAME_SEPARATOR = '\uD800';

/** Resolving thread → writer thread. */
export type ToWriter =
  /** `count` rows: `nums[0, count × NUMS)`, `dict` the coded values, `qnames` joined by {@link QNAME_SEPARATOR}. */
  | {
      readonly kind: 'rows';
      readonly count: number;
      readonly nums: Float64Array;
      readonly dict: string[];
      readonly qnames: string;
    }
  /**
   * `count` rows framed in a spool file at `offset`, `length` bytes (querylog/spool.ts): written in
   * their turn like a `rows` message, then the file's `.done` note moves past them.
   */
  | {
      readonly kind: 'spooled';
      readonly file: string;
      readonly offset: number;
      readonly length: number;
      readonly count: number;
    }
  /** No more frames go to `file`: delete it (and its note) once everything before is written. */
  | { readonly kind: 'spoolEnd'; readonly file: string }
  /** Answer `flushed` with this `seq` once every earlier message is written. */
  | { readonly kind: 'flush'; readonly seq: number }
  /** Write everything before it, close the connection, answer `closed`. */
  | { readonly kind: 'close' };

/** Writer thread → resolving thread. */
export type FromWriter =
  /**
   * Rows done: written, or lost (`error` set: the database said no, or a spool file could not be
   * read). `source`: `memory` for `rows` messages (they leave the resolving thread's in-flight
   * count), `spool` for frames this run spooled, `leftover` for a spool file of an earlier run.
   */
  | {
      readonly kind: 'batch';
      readonly count: number;
      readonly error: string | null;
      readonly source: 'memory' | 'spool' | 'leftover';
    }
  /** A spool file is written and deleted: `bytes` of the spool freed. */
  | { readonly kind: 'spoolDeleted'; readonly bytes: number }
  | { readonly kind: 'flushed'; readonly seq: number }
  | { readonly kind: 'closed' }
  /**
   * For the resolver's log, at warn unless `level` says info: a setting the thread could not use (it
   * went on with the default), a log stream connected or lost.
   */
  | { readonly kind: 'warning'; readonly message: string; readonly level?: 'info' }
  /** The log streams' counters (querylog/streams/sinks.ts), sent every second and before `flushed`. */
  | { readonly kind: 'streams'; readonly stats: StreamStats[] };

/** A batch being filled on the resolving thread (see {@link BatchBuilder.add}). */
export class BatchBuilder {
  nums: Float64Array<ArrayBuffer>;
  count = 0;
  private dict: string[] = [];
  private codes = new Map<string, number>();
  private qnames: string[] = [];
  /**
   * Per coded column (`nums` index 8–17), the last value and its code: a column mostly repeats its
   * previous row's value (one client, one protocol, one action in a row), and comparing two strings
   * — usually the same object — is cheaper than hashing one into the map.
   */
  private lastValue: string[] = new Array<string>(NUMS).fill('\uD800');
  private lastCode: number[] = new Array<number>(NUMS).fill(0);

  /** @param capacity rows per batch */
  constructor(private readonly capacity: number) {
    this.nums = new Float64Array(capacity * NUMS);
  }

  /** The dictionary code of `s` in column `col`. */
  private code(col: number, s: string): number {
    if (this.lastValue[col] === s) return this.lastCode[col]!;
    let c = this.codes.get(s);
    if (c === undefined) {
      c = this.dict.length;
      this.dict.push(s);
      this.codes.set(s, c);
    }
    this.lastValue[col] = s;
    this.lastCode[col] = c;
    return c;
  }

  /** Appends `row`; the caller posts the batch when {@link count} reaches the capacity. */
  add(row: QueryLogRow): void {
    const nums = this.nums;
    const n = this.count++ * NUMS;
    nums[n] = row.ts;
    nums[n + 1] = row.customer_id;
    nums[n + 2] = row.location_id ?? Number.NaN;
    nums[n + 3] = row.policy_id ?? Number.NaN;
    nums[n + 4] = row.latency_us;
    nums[n + 5] = row.device_id ?? Number.NaN;
    nums[n + 6] = row.user_id ?? Number.NaN;
    nums[n + 7] = row.group_id ?? Number.NaN;
    nums[n + 8] = this.code(8, row.client_ip);
    nums[n + 9] = this.code(9, row.qtype);
    nums[n + 10] = this.code(10, row.protocol);
    nums[n + 11] = this.code(11, row.action);
    nums[n + 12] = this.code(12, row.reason);
    nums[n + 13] = this.code(13, row.categories);
    nums[n + 14] = this.code(14, row.rcode);
    nums[n + 15] = this.code(15, row.answer_source);
    nums[n + 16] = this.code(16, row.user_name ?? '');
    nums[n + 17] = this.code(17, row.matched_name ?? '');
    this.qnames.push(row.qname);
  }

  /** The `rows` message of what was added (its `nums` to be transferred), and a fresh empty batch in place. */
  take(): Extract<ToWriter, { kind: 'rows' }> & { nums: Float64Array<ArrayBuffer> } {
    const msg = {
      kind: 'rows' as const,
      count: this.count,
      nums: this.nums,
      dict: this.dict,
      qnames: this.qnames.join(QNAME_SEPARATOR),
    };
    this.nums = new Float64Array(this.capacity * NUMS);
    this.count = 0;
    this.dict = [];
    this.codes = new Map();
    this.qnames = [];
    // The codes belong to the dictionary just handed over.
    this.lastValue.fill('\uD800');
    return msg;
  }
}

/**
 * The qnames of `rows` message `m`, split, once the message is checked whole: as many qnames as rows,
 * and every dictionary code (`nums` columns 8–17 of each row) an index of `dict`. Both readers of the
 * format call it ({@link readRows}, and the writer thread's column binding in querylog/sqlite-raw.ts),
 * so an inconsistent message is refused before any of its rows is used.
 * @throws Error when the message is inconsistent (qname count or a dictionary code out of range)
 */
export function checkedQnames(m: Extract<ToWriter, { kind: 'rows' }>): string[] {
  const { count, nums, dict } = m;
  const qnames = count === 0 ? [] : m.qnames.split(QNAME_SEPARATOR);
  if (qnames.length !== count) throw new Error(`query-log batch: ${qnames.length} qnames for ${count} rows`);
  for (let row = 0; row < count; row++) {
    for (let n = row * NUMS + 8; n < (row + 1) * NUMS; n++) {
      const code = nums[n]!;
      if (!(Number.isInteger(code) && code >= 0 && code < dict.length))
        throw new Error(`query-log batch: no dictionary entry ${code}`);
    }
  }
  return qnames;
}

/**
 * The rows of a `rows` message, as inserted.
 * @throws Error when the message is inconsistent (see {@link checkedQnames})
 */
export function readRows(m: Extract<ToWriter, { kind: 'rows' }>): QueryLogRow[] {
  const { count, nums, dict } = m;
  const qnames = checkedQnames(m);
  const rows: QueryLogRow[] = new Array(count);
  for (let i = 0; i < count; i++) {
    const n = i * NUMS;
    const loc = nums[n + 2]!;
    const pol = nums[n + 3]!;
    const dev = nums[n + 5]!;
    const usr = nums[n + 6]!;
    const grp = nums[n + 7]!;
    rows[i] = {
      ts: nums[n]!,
      customer_id: nums[n + 1]!,
      location_id: Number.isNaN(loc) ? null : loc,
      policy_id: Number.isNaN(pol) ? null : pol,
      client_ip: dict[nums[n + 8]!]!,
      qname: qnames[i]!,
      qtype: dict[nums[n + 9]!]!,
      protocol: dict[nums[n + 10]!]!,
      action: dict[nums[n + 11]!]!,
      reason: dict[nums[n + 12]!]!,
      categories: dict[nums[n + 13]!]!,
      rcode: dict[nums[n + 14]!]!,
      answer_source: dict[nums[n + 15]!]!,
      latency_us: nums[n + 4]!,
      device_id: Number.isNaN(dev) ? null : dev,
      user_id: Number.isNaN(usr) ? null : usr,
      user_name: dict[nums[n + 16]!]!,
      group_id: Number.isNaN(grp) ? null : grp,
      matched_name: dict[nums[n + 17]!]!,
    };
  }
  return rows;
}
