import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import type { Dialect } from './dialect-kind.ts';
import type { Database } from './schema.ts';

/** An open database: the Kysely instance and which dialect it speaks. */
export interface DatabaseHandle {
  db: Kysely<Database>;
  dialect: Dialect;
  /** Where it lives, for the boot line: a file path, ':memory:' or the URL without its password. */
  location: string;
  /** PostgreSQL only: the pool behind `db`, whose settings a dedicated client (the change feed's LISTEN) reuses. */
  pgPool?: pg.Pool;
  /**
   * SQLite only: the connection behind `db`, for the query-log writer's prepared statements. Use it
   * only inside `db.connection().execute(…)`, which holds the connection exclusively.
   */
  sqlite?: SQLite.Database;
  close(): Promise<void>;
}

/** Options of {@link openDatabase}: a PostgreSQL URL, else a SQLite file (or ':memory:'). */
export interface OpenDatabaseOptions {
  /** `postgres://` / `postgresql://` URL; selects PostgreSQL (docs/decisions.md). */
  url?: string | undefined;
  /** SQLite file path, or ':memory:'. Used when `url` is not given. */
  sqlitePath?: string;
  /** PostgreSQL schema to use as search_path (tests isolate themselves this way). */
  pgSchema?: string;
  /** PostgreSQL pool size; default 10. */
  pgPoolSize?: number;
  /**
   * SQLite page cache of this connection, KiB (`PRAGMA cache_size = -N`). Default: better-sqlite3's
   * build, 16,000 KiB, held for as long as the connection is open once filled. A connection that only
   * appends (the query-log writer thread) needs far less (bench/README.md "Resolver memory").
   */
  sqliteCacheKiB?: number;
}

/**
 * `sqliteCacheKiB` of the data plane's connections (snapshot loads, the query-log writer): SQLite's
 * own default page cache, 2,000 KiB, instead of better-sqlite3's 16,000. Their reads are scans and
 * their writes appends; the larger cache only kept ≈ 16 MB resident per connection
 * (bench/README.md "Resolver memory").
 */
export const DATA_PLANE_SQLITE_CACHE_KIB = 2_000;

const INT8_OID = 20;

/**
 * Opens the database. SQLite runs in WAL mode with foreign keys on and `synchronous=NORMAL`: a
 * committed transaction survives a process crash, not a power loss or OS crash (the last transactions
 * before one may roll back; docs/security.md). Its file is private (0600, and its directory 0700 when
 * created here). PostgreSQL BIGINT columns are parsed as JS numbers (epoch ms fit in 2^53).
 * @throws Error when `url` is given but is not a PostgreSQL URL; RangeError when `sqliteCacheKiB` is
 *   not a whole number ≥ 1 (no file or directory is created)
 */
export function openDatabase(options: OpenDatabaseOptions): DatabaseHandle {
  if (options.url) {
    if (!/^postgres(ql)?:\/\//.test(options.url)) {
      throw new Error(`DATABASE_URL must be a postgres:// URL, got ${redactUrl(options.url)}`);
    }
    const pool = new pg.Pool({
      connectionString: options.url,
      max: options.pgPoolSize ?? 10,
      ...(options.pgSchema ? { options: `-c search_path=${options.pgSchema}` } : {}),
      types: {
        getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
          oid === INT8_OID ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format as 'text')) as never,
      },
    });
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    return { db, dialect: 'postgres', location: redactUrl(options.url), pgPool: pool, close: () => db.destroy() };
  }
  // Checked before the file or its directory is created: a refused option leaves nothing behind.
  const cacheKiB = options.sqliteCacheKiB;
  if (cacheKiB !== undefined && (!Number.isInteger(cacheKiB) || cacheKiB < 1)) {
    throw new RangeError(`sqliteCacheKiB must be a whole number of KiB from 1, got ${cacheKiB}`);
  }
  const path = options.sqlitePath ?? ':memory:';
  if (path !== ':memory:') prepareSqliteFile(path);
  const sqlite = new SQLite(path);
  sqlite.pragma('journal_mode = WAL');
  if (path !== ':memory:') restrictSqliteFiles(path);
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  if (cacheKiB !== undefined) sqlite.pragma(`cache_size = -${cacheKiB}`);
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) });
  return { db, dialect: 'sqlite', location: path, sqlite, close: () => db.destroy() };
}

/** Prepared statements kept per SQLite connection by {@link withStatementCache}. */
export const SQLITE_STATEMENT_CACHE = 500;

/**
 * The SQLite connection as Kysely sees it, with `prepare` answered from a per-connection cache of
 * prepared statements (least recently used dropped beyond {@link SQLITE_STATEMENT_CACHE}): Kysely
 * prepares the statement of every query anew, which costs 25–160 µs per call — often more than the
 * query (bench/README.md "API reads"). A cached statement still running (an open `iterate`, i.e.
 * a streamed query) is not handed out again: a fresh one is prepared for that call.
 * Exported for its tests; `openDatabase` applies it to every SQLite connection it opens.
 * @param max statements kept (default {@link SQLITE_STATEMENT_CACHE})
 */
export function withStatementCache(sqlite: SQLite.Database, max = SQLITE_STATEMENT_CACHE): SQLite.Database {
  const cache = new Map<string, SQLite.Statement>();
  const prepare = (source: string): SQLite.Statement => {
    const hit = cache.get(source);
    if (hit !== undefined && !hit.busy) {
      cache.delete(source);
      cache.set(source, hit);
      return hit;
    }
    const stmt = sqlite.prepare(source);
    if (hit === undefined) {
      cache.set(source, stmt);
      if (cache.size > max) cache.delete(cache.keys().next().value as string);
    }
    return stmt;
  };
  return new Proxy(sqlite, {
    get(target, prop, receiver) {
      if (prop === 'prepare') return prepare;
      const value = Reflect.get(target, prop, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** Owner-only modes of the data directory and its files (docs/security.md: the data directory is private). */
export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

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

/** The URL with any password replaced by `***`, for logs. */
export function redactUrl(url: string): string {
  return url.replace(/(\/\/[^:/@]+:)[^@]*@/, '$1***@');
}
