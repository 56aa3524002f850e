import type { QueryLogRow } from './writer.ts';

/**
 * The wire format of query-log batches between the resolving thread and the writer thread
 * (querylog/threaded.ts ↔ querylog/worker.ts): columns rather than row objects, so a batch is
 * one transferred `Float64Array` (zero-copy) plus one flat string array (structured clone: one
 * copy of each string, no per-row object graph).
 *
 * Per row: {@link NUMS} numbers — ts (epoch ms), customer_id, location_id (NaN = null),
 * policy_id (NaN = null), latency_us, device_id, user_id, group_id (NaN = null) — and {@link STRS}
 * strings — client_ip, qname, qtype, protocol, action, reason, categories, rcode, answer_source,
 * user_name.
 */
export const NUMS = 8;
export const STRS = 10;

/** Resolving thread → writer thread. */
export type ToWriter =
  /** `count` rows: `nums[0, count × NUMS)`, `strs[0, count × STRS)`. */
  | { readonly kind: 'rows'; readonly count: number; readonly nums: Float64Array; readonly strs: string[] }
  /** Answer `flushed` with this `seq` once every earlier message is written. */
  | { readonly kind: 'flush'; readonly seq: number }
  /** Write everything before it, close the connection, answer `closed`. */
  | { readonly kind: 'close' };

/** Writer thread → resolving thread. */
export type FromWriter =
  /** One `rows` message done: written, or lost (`error` set: the database said no). */
  | { readonly kind: 'batch'; readonly count: number; readonly error: string | null }
  | { readonly kind: 'flushed'; readonly seq: number }
  | { readonly kind: 'closed' };

/** Appends `row` at position `i` of a batch's columns. */
export function writeRow(nums: Float64Array, strs: string[], i: number, row: QueryLogRow): void {
  const n = i * NUMS;
  nums[n] = row.ts;
  nums[n + 1] = row.customer_id;
  nums[n + 2] = row.location_id ?? Number.NaN;
  nums[n + 3] = row.policy_id ?? Number.NaN;
  nums[n + 4] = row.latency_us;
  nums[n + 5] = row.device_id ?? Number.NaN;
  nums[n + 6] = row.user_id ?? Number.NaN;
  nums[n + 7] = row.group_id ?? Number.NaN;
  strs.push(
    row.client_ip,
    row.qname,
    row.qtype,
    row.protocol,
    row.action,
    row.reason,
    row.categories,
    row.rcode,
    row.answer_source,
    row.user_name ?? '',
  );
}

/** The rows of a `rows` message, as inserted. */
export function readRows(count: number, nums: Float64Array, strs: readonly string[]): QueryLogRow[] {
  const rows: QueryLogRow[] = new Array(count);
  for (let i = 0; i < count; i++) {
    const n = i * NUMS;
    const s = i * STRS;
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
      client_ip: strs[s]!,
      qname: strs[s + 1]!,
      qtype: strs[s + 2]!,
      protocol: strs[s + 3]!,
      action: strs[s + 4]!,
      reason: strs[s + 5]!,
      categories: strs[s + 6]!,
      rcode: strs[s + 7]!,
      answer_source: strs[s + 8]!,
      latency_us: nums[n + 4]!,
      device_id: Number.isNaN(dev) ? null : dev,
      user_id: Number.isNaN(usr) ? null : usr,
      user_name: strs[s + 9]!,
      group_id: Number.isNaN(grp) ? null : grp,
    };
  }
  return rows;
}
