import { readdirSync, readFileSync } from 'node:fs';

/**
 * CPU time of each `postgres` process on this machine by pid, ms (utime + stime of /proc/PID/stat,
 * at 100 ticks a second), or undefined when there is none to read (a remote server): the server's
 * side of a route's cost, its backends included. Other engineers' use of the same server counts too.
 */
export function postgresCpuMs(): Map<string, number> | undefined {
  const cpu = new Map<string, number>();
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      if (stat.slice(stat.indexOf('(') + 1, close) !== 'postgres') continue;
      const fields = stat.slice(close + 2).split(' ');
      cpu.set(pid, (Number(fields[11]) + Number(fields[12])) * 10);
    } catch {
      // The process ended in between.
    }
  }
  return cpu.size > 0 ? cpu : undefined;
}

/** The CPU time `postgres` processes spent from `before` to `after`, ms (one that ended in between is lost). */
export function postgresCpuSpent(before: Map<string, number>, after: Map<string, number>): number {
  let ms = 0;
  for (const [pid, t] of after) ms += t - (before.get(pid) ?? 0);
  return ms;
}
