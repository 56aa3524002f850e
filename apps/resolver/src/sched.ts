/**
 * Thread scheduling on Linux (docs/decisions.md "Thread scheduling"): the resolving thread asks the
 * kernel's fair scheduler for a short time slice, so that when a query arrives while another
 * thread of the process holds the same core (the query-log writer's INSERTs, V8's GC helpers),
 * it preempts that thread within ≈ 0.1 ms instead of waiting out a default slice (0.75–3 ms,
 * scaled with the core count); the query-log writer thread runs at a lower priority (a higher
 * nice value), so it yields the core to answering while still getting its share under load.
 * Both go through `@cordon/udp-batch` (`sched_setattr(2)`); without the addon nothing changes.
 */
import { loadUdpBatch } from '@cordon/udp-batch';

/**
 * The resolving thread's requested slice, ns: EEVDF's minimum (0.1 ms). A thread with a shorter
 * slice gets an earlier virtual deadline, so on wake-up it runs before a thread with the default
 * slice (Linux 6.12 "sched/eevdf: Allow shorter slices to wakeup-preempt"). Its share of the CPU
 * under contention is unchanged: that is the nice value's business.
 */
export const RESOLVING_THREAD_SLICE_NS = 100_000;

/**
 * The query-log writer thread's nice value: weight 335 against the resolving thread's 1024 (Linux
 * `sched_prio_to_weight`), so under contention on one core the writer gets ≈ 25 % of it and the
 * resolving thread ≈ 75 %; with a core to spare it runs as fast as ever.
 */
export const QUERY_LOG_WRITER_NICE = 5;

/** What {@link tuneThisThread} did: `applied`, or why not (`no addon`, `errno N`). */
export type ThreadTuning = 'applied' | 'no addon' | `errno ${number}`;

/**
 * Applies the scheduling of `role` to the calling thread (see the module's comment). Never throws.
 * @returns `applied`, `no addon` (not built: nothing changes), or the errno of `sched_setattr`
 */
export function tuneThisThread(role: 'resolving' | 'query-log writer'): ThreadTuning {
  const binding = loadUdpBatch();
  if (binding === null || typeof binding.tuneThread !== 'function') return 'no addon';
  const err =
    role === 'resolving'
      ? binding.tuneThread(RESOLVING_THREAD_SLICE_NS, 0)
      : binding.tuneThread(0, QUERY_LOG_WRITER_NICE);
  return err === 0 ? 'applied' : `errno ${err}`;
}
