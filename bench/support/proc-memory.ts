/**
 * A process's memory as the benchmarks report it (docs/decisions.md "The addon does UDP I/O only"):
 * USS, its private memory (`Private_Clean + Private_Dirty`), PSS (its private memory plus its share
 * of pages mapped by other processes too) and RSS, from Linux `/proc/PID/smaps_rollup` (proc(5)).
 * USS is what the process costs; RSS also counts shared code pages such as node's executable.
 */
import { readFileSync } from 'node:fs';

/** Megabytes (2^20 bytes) of one reading. */
export interface ProcMemory {
  uss: number;
  pss: number;
  rss: number;
}

/**
 * Reads `/proc/<pid>/smaps_rollup` (`self` for this process).
 * @throws Error when the file cannot be read (not Linux, the process is gone, another user's process)
 */
export function procMemory(pid: number | 'self' = 'self'): ProcMemory {
  const text = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? Number.NaN);
  return {
    uss: (kb('Private_Clean') + kb('Private_Dirty')) / 1024,
    pss: kb('Pss') / 1024,
    rss: kb('Rss') / 1024,
  };
}

/** "USS 61.2 / PSS 63.0 / RSS 89.5 MB". */
export function formatProcMemory(m: ProcMemory): string {
  return `USS ${m.uss.toFixed(1)} / PSS ${m.pss.toFixed(1)} / RSS ${m.rss.toFixed(1)} MB`;
}
