/**
 * Which failed query-log inserts the writer thread retries (querylog/worker.ts): the ones that may
 * succeed later without anything changing in the rows. Its own module so that it can be tested
 * outside a worker thread.
 */
import { isDatabaseBusy, isDatabaseUnreachable } from '@cordon/db/unreachable';

/**
 * Why an insert that failed with `err` may succeed later, or null when it may not (a bug, a refused
 * row: the batch is lost and counted).
 * - `unreachable`: the database does not answer (`isDatabaseUnreachable`; docs/operations.md "When
 *   the database goes away").
 * - `full`: SQLite `SQLITE_FULL`, the disk (or the file's page limit) is full; the failed
 *   transaction was rolled back whole, and the insert succeeds once space returns (docs/operations.md
 *   "A full disk").
 * - `busy`: SQLite `SQLITE_BUSY` and its extended codes, another connection held the write lock past
 *   the 5 s busy timeout (docs/operations.md "Writes under load (SQLite)").
 */
export function retryReason(err: unknown): 'unreachable' | 'full' | 'busy' | null {
  if (isDatabaseUnreachable(err)) return 'unreachable';
  const code = err !== null && typeof err === 'object' ? (err as { code?: unknown }).code : undefined;
  if (code === 'SQLITE_FULL') return 'full';
  if (isDatabaseBusy(err)) return 'busy';
  return null;
}
