import { createRequire } from 'node:module';
import type SQLite from 'better-sqlite3';
import {
  type Compilable,
  CompiledQuery,
  type DatabaseConnection,
  type Driver,
  Kysely,
  PostgresDialect,
  type PostgresPool,
  type PostgresPoolClient,
  SqliteDialect,
  type SqliteDialectConfig,
  SqliteDriver,
  type TransactionSettings,
} from 'kysely';
import type pg from 'pg';
import type { Dialect } from './dialect-kind.ts';
import type { Database } from './schema.ts';
import { openSqliteFile } from './sqlite-file.ts';

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
   * PostgreSQL: longest wait for a connection, ms — opening one, or a free one of a full pool; the
   * query then fails with an error {@link isDatabaseUnreachable} recognises. Default
   * {@link PG_CONNECT_TIMEOUT_MS}: an address that drops packets fails queries instead of holding
   * them forever (docs/operations.md "When the database goes away").
   */
  pgConnectTimeoutMs?: number;
  /**
   * PostgreSQL: told of each error of a pooled connection that no query was waiting for — the
   * server ended it (a restart, a failover, `pg_terminate_backend`) or the network did. The
   * connection is already discarded; the next query opens a new one. Default: nothing.
   */
  onPoolError?: (err: Error) => void;
  /**
   * SQLite page cache of this connection, KiB (`PRAGMA cache_size = -N`). Default: better-sqlite3's
   * build, 16,000 KiB, held for as long as the connection is open once filled. A connection that only
   * appends (the query-log writer thread) needs far less (bench/README.md "Resolver memory").
   */
  sqliteCacheKiB?: number;
  /**
   * SQLite: the most pages this connection lets the file grow to (`PRAGMA max_page_count`); writes
   * past it fail with `SQLITE_FULL`, as on a full disk. Default: SQLite's. For the full-disk tests of
   * the query-log writer (docs/operations.md "A full disk").
   */
  sqliteMaxPageCount?: number;
}

const INT8_OID = 20;

/** Default {@link OpenDatabaseOptions.pgConnectTimeoutMs}, ms. */
export const PG_CONNECT_TIMEOUT_MS = 10_000;

const requireHere = createRequire(import.meta.url);

/**
 * The `pg` module, loaded on first use: a process on SQLite (every resolver of a single-host
 * deployment) never evaluates it (bench/README.md "Resolver memory", round 7).
 */
export function loadPg(): typeof pg {
  return requireHere('pg') as typeof pg;
}

/**
 * Opens the database. SQLite runs in WAL mode with foreign keys on and `synchronous=NORMAL`: a
 * committed transaction survives a process crash, not a power loss or OS crash (the last transactions
 * before one may roll back; docs/security.md). Its transactions begin IMMEDIATE, read-only ones
 * deferred ({@link sqliteBeginStatement}), so a writer waits its turn for the write lock (up to the
 * 5 s busy timeout) instead of failing on another connection's commit. Its file is private (0600, and its directory 0700 when
 * created here). PostgreSQL BIGINT columns are parsed as JS numbers (epoch ms fit in 2^53).
 *
 * A PostgreSQL pool survives losing its server (docs/operations.md "When the database goes away"):
 * node-postgres emits `error` on a pooled connection the server or the network ends, and an
 * `error` event nobody listens to ends the process. Every
 * connection gets a listener for as long as it lives — checked out too, where a query waiting on it
 * gets the error as its rejection — and the pool one for its idle connections, which it discards;
 * the next query opens a new connection, so the pool reconnects by itself once the server answers.
 * TCP keep-alive is on, so a peer that vanished without a reset is noticed.
 * @throws Error when `url` is given but is not a PostgreSQL URL; RangeError when `sqliteCacheKiB` or
 *   `sqliteMaxPageCount` is not a whole number ≥ 1 (no file or directory is created)
 */
export function openDatabase(options: OpenDatabaseOptions): DatabaseHandle {
  if (options.url) {
    if (!/^postgres(ql)?:\/\//.test(options.url)) {
      throw new Error(`DATABASE_URL must be a postgres:// URL, got ${redactUrl(options.url)}`);
    }
    const pg = loadPg();
    const pool = new pg.Pool({
      connectionString: options.url,
      max: options.pgPoolSize ?? 10,
      keepAlive: true,
      connectionTimeoutMillis: options.pgConnectTimeoutMs ?? PG_CONNECT_TIMEOUT_MS,
      ...(options.pgSchema ? { options: `-c search_path=${options.pgSchema}` } : {}),
      types: {
        getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
          oid === INT8_OID ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format as 'text')) as never,
      },
    });
    const onPoolError = options.onPoolError ?? (() => undefined);
    // An idle connection's error: the pool has already removed it.
    pool.on('error', (err) => onPoolError(err));
    // A checked-out connection's error: its query, if any, rejects with it; released, it is discarded.
    pool.on('connect', (client) => {
      client.on('error', () => undefined);
    });
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: preparingPool(pool) }) });
    return { db, dialect: 'postgres', location: redactUrl(options.url), pgPool: pool, close: () => db.destroy() };
  }
  // openSqliteFile checks the cache size and page limit before the file or its directory is created.
  const path = options.sqlitePath ?? ':memory:';
  const sqlite = openSqliteFile(path, options.sqliteCacheKiB, options.sqliteMaxPageCount);
  const db = new Kysely<Database>({ dialect: new ImmediateSqliteDialect({ database: withStatementCache(sqlite) }) });
  return { db, dialect: 'sqlite', location: path, sqlite, close: () => db.destroy() };
}

/** The comment that opens the text of a statement {@link prepared} marks. */
export const PREPARED_MARK = '/* cordon:prepared */ ';

/**
 * Distinct statement texts a database handle names on PostgreSQL ({@link prepared}); a text first
 * seen past this many runs unnamed. Each connection keeps the named statements it ran until it
 * closes (after 10 s idle, node-postgres's default), ≈ 50–350 KB of server memory each with its plan
 * (`pg_backend_memory_contexts`; the MSP overview's customer page ≈ 200 KB).
 */
export const PREPARED_STATEMENTS_MAX = 64;

/**
 * `query` marked to run as a named prepared statement on PostgreSQL (node-postgres's `{ name, text,
 * values }`; Kysely's dialect passes no name): each connection parses it once, and after five runs
 * PostgreSQL plans it once too (a generic plan, when its estimate is no worse than the custom plans':
 * `pg_prepared_statements.generic_plans`). Planning was most of the time of the API's small
 * statements, 0.2–0.8 ms each (bench/README.md "API reads"). For statements run on every request whose
 * plan does not depend on their values' selectivity (a primary key, a tenant's id, a page of an
 * index); not for dashboards over time ranges, whose custom plans follow the range. On SQLite the
 * mark is a comment (its statements are cached already: {@link withStatementCache}).
 * Run it with `db.executeQuery` (a transaction's too) or through a read pool.
 */
export function prepared<O>(query: CompiledQuery<O>): CompiledQuery<O> {
  return query.sql.startsWith(PREPARED_MARK) ? query : { ...query, sql: PREPARED_MARK + query.sql };
}

/** The rows of `query` run {@link prepared} on `db` (a Kysely instance or a transaction). */
export async function executePrepared<O>(db: Kysely<Database>, query: Compilable<O>): Promise<O[]> {
  return (await db.executeQuery(prepared(query.compile()))).rows;
}

/**
 * The pool as Kysely's PostgreSQL driver sees it: a statement {@link prepared} marked goes to
 * node-postgres with a name, every other one as Kysely sends it. Names are `cordon_1`, `cordon_2`, …
 * in the order the texts are first seen, at most {@link PREPARED_STATEMENTS_MAX} (node-postgres
 * refuses one name for two texts; a name is never reused). One wrapper per pooled client, so the
 * driver's connection per client stays one.
 */
function preparingPool(pool: pg.Pool): PostgresPool {
  const names = new Map<string, string>();
  const nameOf = (text: string): string | undefined => {
    let name = names.get(text);
    if (name === undefined && names.size < PREPARED_STATEMENTS_MAX) {
      name = `cordon_${names.size + 1}`;
      names.set(text, name);
    }
    return name;
  };
  const wrappers = new WeakMap<pg.PoolClient, PostgresPoolClient>();
  const wrap = (client: pg.PoolClient): PostgresPoolClient => {
    const query = (text: unknown, values?: unknown[]) =>
      typeof text === 'string' && text.startsWith(PREPARED_MARK)
        ? client.query({ name: nameOf(text), text, values })
        : client.query(text as never, values);
    return { query: query as unknown as PostgresPoolClient['query'], release: () => client.release() };
  };
  return {
    async connect() {
      const client = await pool.connect();
      let wrapper = wrappers.get(client);
      if (wrapper === undefined) {
        wrapper = wrap(client);
        wrappers.set(client, wrapper);
      }
      return wrapper;
    },
    end: () => pool.end(),
  };
}

/**
 * The statement that begins a SQLite transaction of `settings` (docs/decisions.md "SQLite write
 * transactions begin IMMEDIATE"): `begin immediate` — the write lock taken first, waiting for it
 * under the connection's busy timeout — unless the transaction is declared read-only
 * (`db.transaction().setAccessMode('read only')`), which begins deferred and never waits for a
 * writer. In WAL mode a deferred transaction that reads and then writes fails at once with
 * `SQLITE_BUSY` — no busy wait: its read snapshot cannot move forward — when another connection (the
 * query-log writer thread) committed in between.
 */
export function sqliteBeginStatement(settings: TransactionSettings): 'begin immediate' | 'begin deferred' {
  return settings.accessMode === 'read only' ? 'begin deferred' : 'begin immediate';
}

/** Kysely's better-sqlite3 driver, its transactions begun by {@link sqliteBeginStatement}. */
class ImmediateSqliteDriver extends SqliteDriver {
  // Kysely passes the settings; its SqliteDriver's signature leaves them out.
  override async beginTransaction(connection: DatabaseConnection, settings?: TransactionSettings): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(sqliteBeginStatement(settings ?? {})));
  }
}

/** Kysely's SQLite dialect with {@link ImmediateSqliteDriver}. */
class ImmediateSqliteDialect extends SqliteDialect {
  readonly #config: SqliteDialectConfig;
  constructor(config: SqliteDialectConfig) {
    super(config);
    this.#config = config;
  }
  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.#config);
  }
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

/** The URL with any password replaced by `***`, for logs. */
export function redactUrl(url: string): string {
  return url.replace(/(\/\/[^:/@]+:)[^@]*@/, '$1***@');
}
