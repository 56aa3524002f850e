/**
 * Opening a SQLite file the way every Cordon connection does, with no other import than
 * better-sqlite3: `openDatabase` (connection.ts) wraps it in Kysely, and the query-log writer thread
 * uses it alone, so that thread's isolate never evaluates Kysely, pg or the migrations
 * (bench/README.md "Resolver memory", round 7). Subpath `@cordon/db/sqlite-file`.
 */
import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';

/**
 * `sqliteCacheKiB` of the data plane's connections (snapshot loads, the query-log writer): SQLite's
 * own default page cache, 2,000 KiB, instead of better-sqlite3's 16,000. Their reads are scans and
 * their writes appends; the larger cache only kept ≈ 16 MB resident per connection
 * (bench/README.md "Resolver memory").
 */
export const DATA_PLANE_SQLITE_CACHE_KIB = 2_000;

/** Owner-only modes of the data directory and its files (docs/security.md: the data directory is private). */
export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/**
 * Opens the SQLite database at `path` (or ':memory:') in WAL mode with foreign keys on,
 * `synchronous=NORMAL` and a 5 s busy timeout: a committed transaction survives a process crash,
 * not a power loss or OS crash (docs/security.md). The file is private (0600, and its directory
 * 0700 when created here). `cacheKiB` sets `PRAGMA cache_size = -N`; default better-sqlite3's
 * build, 16,000 KiB. `maxPageCount` sets `PRAGMA max_page_count`: this connection's writes fail with
 * `SQLITE_FULL` once the file would grow past that many pages, as on a full disk (the query-log
 * writer's full-disk test, docs/operations.md "A full disk"); default SQLite's (no practical limit).
 * @throws RangeError when `cacheKiB` or `maxPageCount` is not a whole number ≥ 1 (no file or directory
 *   is created); what better-sqlite3 throws when the file cannot be opened
 */
export function openSqliteFile(path: string, cacheKiB?: number, maxPageCount?: number): SQLite.Database {
  // Checked before the file or its directory is created: a refused value leaves nothing behind.
  if (cacheKiB !== undefined && (!Number.isInteger(cacheKiB) || cacheKiB < 1)) {
    throw new RangeError(`sqliteCacheKiB must be a whole number of KiB from 1, got ${cacheKiB}`);
  }
  if (maxPageCount !== undefined && (!Number.isInteger(maxPageCount) || maxPageCount < 1)) {
    throw new RangeError(`sqliteMaxPageCount must be a whole number of pages from 1, got ${maxPageCount}`);
  }
  if (path !== ':memory:') prepareSqliteFile(path);
  const sqlite = new SQLite(path);
  sqlite.pragma('journal_mode = WAL');
  if (path !== ':memory:') restrictSqliteFiles(path);
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  if (cacheKiB !== undefined) sqlite.pragma(`cache_size = -${cacheKiB}`);
  if (maxPageCount !== undefined) sqlite.pragma(`max_page_count = ${maxPageCount}`);
  return sqlite;
}

/**
 * Creates the SQLite file's directory (0700, when it does not exist yet: an existing directory is the
 * operator's) and the file itself (0600) before SQLite opens it: SQLite gives the `-wal` and `-shm`
 * files it creates later the database file's mode.
 */
function prepareSqliteFile(path: string): void {
  const dir = dirname(path);
  if (!existsSync(dir)) {
    mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
    chmodSync(dir, PRIVATE_DIR_MODE); // mkdir's mode is masked by the umask
  }
  if (!existsSync(path)) closeSync(openSync(path, 'a', PRIVATE_FILE_MODE));
}

/** Sets the database file and its `-wal`/`-shm` files to 0600 (also tightening files of older versions). */
function restrictSqliteFiles(path: string): void {
  for (const file of [path, `${path}-wal`, `${path}-shm`]) {
    if (existsSync(file)) chmodSync(file, PRIVATE_FILE_MODE);
  }
}
