/**
 * Socket errors and PostgreSQL SQLSTATEs that mean "the database does not answer" rather than a
 * refusal of the SQL: SQLSTATE class 08 (connection exception); 57P01 admin_shutdown, what
 * `pg_terminate_backend` and a fast shutdown send; 57P02 crash_shutdown; 57P03 cannot_connect_now,
 * a server starting up or in recovery; 53300 too_many_connections.
 */
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  '57P01',
  '57P02',
  '57P03',
  '53300',
]);

/** Messages of node-postgres and pg-pool for a connection that ended, timed out or cannot be used any more. */
const UNREACHABLE_MESSAGE =
  /Connection terminated|timeout expired|timeout exceeded when trying to connect|Client has encountered a connection error|Client was closed and is not queryable|terminating connection due to administrator command/i;

/**
 * True when `err` says the database cannot be reached now — connection refused, reset or timed out,
 * SQLSTATE class 08, the server shutting down, starting up or out of connections — so the same work
 * may succeed once it is back (docs/operations.md "When the database goes away"). False for every
 * other error, SQLite's included (a local file is never "unreachable"). Looks into an
 * `AggregateError` (a dual-stack connect) and an error's `cause`.
 */
export function isDatabaseUnreachable(err: unknown): boolean {
  return unreachable(err, 0);
}

function unreachable(err: unknown, depth: number): boolean {
  if (err === null || typeof err !== 'object' || depth > 3) return false;
  const e = err as { code?: unknown; message?: unknown; errors?: unknown; cause?: unknown };
  if (Array.isArray(e.errors) && e.errors.some((x) => unreachable(x, depth + 1))) return true;
  const code = typeof e.code === 'string' ? e.code : '';
  if (UNREACHABLE_CODES.has(code) || /^08[0-9A-Z]{3}$/.test(code)) return true;
  if (typeof e.message === 'string' && UNREACHABLE_MESSAGE.test(e.message)) return true;
  return e.cause !== undefined && unreachable(e.cause, depth + 1);
}

/**
 * True when `err` is SQLite's `SQLITE_BUSY` (or an extended `SQLITE_BUSY_*` code): another
 * connection held the write lock past the busy timeout (5 s) — a long write such as `cordon
 * categories import` in another process. Nothing was written; the same work succeeds once the
 * other writer commits (docs/operations.md "Writes under load (SQLite)"). False for everything else.
 */
export function isDatabaseBusy(err: unknown): boolean {
  const code = err !== null && typeof err === 'object' ? (err as { code?: unknown }).code : undefined;
  return typeof code === 'string' && (code === 'SQLITE_BUSY' || code.startsWith('SQLITE_BUSY_'));
}
