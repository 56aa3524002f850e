/**
 * Heavy reads off the API's request loop, each within a time bound (issue 30, "One tenant stalls
 * everyone's API"; docs/decisions.md "Heavy reads"). A history search over a month of one customer's
 * query log reads millions of rows: on SQLite, where better-sqlite3 runs every statement
 * synchronously, it held the event loop — and so every other tenant's request — for as long; on
 * PostgreSQL a few of them held every pooled connection. Such reads go through a {@link ReadPool}:
 *
 * - **SQLite file**: worker threads, each with its own connection to the same file (WAL lets readers
 *   run beside the writers), run the compiled statements; the API thread only posts them and waits.
 * - **SQLite `:memory:`** (tests): one database per connection, so no other thread can see it; the
 *   statements run here, one read at a time, with the same time bound.
 * - **PostgreSQL**: the queries are asynchronous already; the pool bounds how many run at once, so
 *   the other requests keep their connections, and `statement_timeout` bounds each.
 *
 * Each read has a deadline, counted from the call (time waiting for a free slot included); past it
 * the call rejects with {@link ReadTimeoutError}. The deadline also stops the work itself:
 * PostgreSQL cancels the statement (SQLSTATE 57014); SQLite, which better-sqlite3 cannot interrupt
 * from outside, checks it from inside the scan through {@link readDeadlineCheck}, a condition the
 * caller adds to the heavy query's WHERE.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type SQLite from 'better-sqlite3';
import { type CompiledQuery, type Expression, type SqlBool, sql } from 'kysely';
import { type DatabaseHandle, loadPg } from './connection.ts';
import type { Dialect } from './dialect-kind.ts';

/** Default {@link ReadPoolOptions.size}: heavy reads running at once. */
export const READ_POOL_SIZE = 2;
/** Default {@link ReadPoolOptions.timeoutMs}, ms. */
export const READ_TIMEOUT_MS = 10_000;
/** SQLite page cache of each read thread's connection, KiB: its scans go through the OS page cache anyway. */
const READ_THREAD_CACHE_KIB = 4_000;
/** The SQL function {@link readDeadlineCheck} calls (registered on every connection a pool reads with). */
const DEADLINE_FUNCTION = 'cordon_read_deadline';
/** The message of the error the deadline function throws, recognised on the way back. */
const DEADLINE_MESSAGE = 'cordon: read deadline passed';

/** Options of {@link createReadPool}. */
export interface ReadPoolOptions {
  /**
   * Heavy reads running at once: worker threads on a SQLite file, connections of the handle's pool
   * on PostgreSQL (keep it below `pgPoolSize`); default {@link READ_POOL_SIZE}. A read of a `key`
   * (a tenant) never takes a second slot while one of its reads runs: one tenant's searches queue
   * behind each other, not in front of another tenant's.
   */
  size?: number;
  /** Longest a read may take from the call, waiting included, ms; default {@link READ_TIMEOUT_MS}. */
  timeoutMs?: number;
  /**
   * SQLite file: false runs the reads on the handle's connection, one at a time, like `:memory:`
   * (a bare embedding with no threads to close); default true.
   */
  threads?: boolean;
}

/** Options of one {@link ReadPool.read}. */
export interface ReadOptions {
  /** Whose read it is (e.g. `customer:12`): at most one read of a key runs at a time. */
  key?: string;
}

/** A pool of heavy reads; see the module comment. */
export interface ReadPool {
  /** `threads` (SQLite file), `in-process` (SQLite `:memory:`) or `postgres`. */
  readonly kind: 'threads' | 'in-process' | 'postgres';
  readonly size: number;
  readonly timeoutMs: number;
  /**
   * Runs the statements in order, on one snapshot of the database (one read transaction), and
   * resolves with the rows of each.
   * @throws ReadTimeoutError when the deadline passes first (the statements are stopped);
   *   the database's error otherwise
   */
  read(queries: readonly CompiledQuery[], options?: ReadOptions): Promise<unknown[][]>;
  /** Ends the threads; reads waiting or running reject. Safe to call twice. */
  close(): Promise<void>;
}

/** A heavy read ran out of its time bound (docs/operations.md "Heavy reads"). */
export class ReadTimeoutError extends Error {
  readonly timeoutMs: number;
  constructor(timeoutMs: number) {
    super(`The read took longer than ${timeoutMs} ms and was stopped`);
    this.name = 'ReadTimeoutError';
    this.timeoutMs = timeoutMs;
  }
}

/** The pool was closed before the read ran. */
export class ReadPoolClosedError extends Error {
  constructor() {
    super('The read pool is closed');
    this.name = 'ReadPoolClosedError';
  }
}

/**
 * A WHERE condition that lets a heavy SQLite read be stopped at its deadline from inside its scan:
 * `(rowid & 1023) <> 0 or cordon_read_deadline()`, which calls the deadline function about once per
 * 1,024 rows scanned (a function call per row would cost as much as a covering-index count) and fails
 * the statement once the read's deadline has passed. Add it to the query's WHERE next to the range
 * conditions; null on PostgreSQL, whose `statement_timeout` stops the statement instead.
 * @param rowid the scanned table's integer primary key, e.g. `'query_log.id'`
 */
export function readDeadlineCheck(dialect: Dialect, rowid: string): Expression<SqlBool> | null {
  if (dialect !== 'sqlite') return null;
  return sql<SqlBool>`((${sql.ref(rowid)} & 1023) <> 0 or ${sql.raw(DEADLINE_FUNCTION)}())`;
}

/**
 * The read pool of `handle` (see the module comment). Threads start on the first read.
 * @throws RangeError when `size` is not a whole number from 1 to 64 or `timeoutMs` not from 1 to 3,600,000
 */
export function createReadPool(handle: DatabaseHandle, options: ReadPoolOptions = {}): ReadPool {
  const size = options.size ?? READ_POOL_SIZE;
  const timeoutMs = options.timeoutMs ?? READ_TIMEOUT_MS;
  if (!Number.isInteger(size) || size < 1 || size > 64) {
    throw new RangeError(`read pool size must be a whole number from 1 to 64, got ${size}`);
  }
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > 3_600_000) {
    throw new RangeError(`read timeout must be a whole number of ms from 1 to 3600000, got ${timeoutMs}`);
  }
  if (handle.dialect === 'postgres') return new Scheduler('postgres', size, timeoutMs, postgresRunner(handle));
  if (options.threads === false || handle.location === ':memory:' || handle.location === '') {
    return new Scheduler('in-process', 1, timeoutMs, inProcessRunner(handle));
  }
  return new Scheduler('threads', size, timeoutMs, threadRunner(handle.location, size));
}

/** One read waiting or running. */
interface Job {
  readonly queries: readonly CompiledQuery[];
  readonly key: string | undefined;
  readonly deadline: number;
  readonly resolve: (rows: unknown[][]) => void;
  readonly reject: (err: Error) => void;
  timer: NodeJS.Timeout | undefined;
  settled: boolean;
}

/** Runs one read on slot `slot`; resolves once the slot is free again (whatever became of the read). */
interface Runner {
  run(slot: number, job: Job): Promise<void>;
  close(): Promise<void>;
}

/**
 * The queue in front of the runners: a read starts on a free slot, the oldest waiting read whose key
 * has none running first; its deadline timer rejects it (waiting or running) when it passes. A slot
 * is free again only when its runner says so — a timed-out read stops itself (deadline check,
 * statement_timeout), so the work in flight never exceeds `size`.
 */
class Scheduler implements ReadPool {
  private readonly waiting: Job[] = [];
  private readonly free: number[];
  private readonly runningKeys = new Map<string, number>();
  private closed = false;

  constructor(
    readonly kind: ReadPool['kind'],
    readonly size: number,
    readonly timeoutMs: number,
    private readonly runner: Runner,
  ) {
    this.free = Array.from({ length: size }, (_, i) => i);
  }

  read(queries: readonly CompiledQuery[], options: ReadOptions = {}): Promise<unknown[][]> {
    if (this.closed) return Promise.reject(new ReadPoolClosedError());
    return new Promise<unknown[][]>((resolve, reject) => {
      const job: Job = {
        queries,
        key: options.key,
        deadline: Date.now() + this.timeoutMs,
        settled: false,
        timer: undefined,
        resolve: (rows) => this.settle(job, () => resolve(rows)),
        reject: (err) => this.settle(job, () => reject(err)),
      };
      job.timer = setTimeout(() => {
        const at = this.waiting.indexOf(job);
        if (at >= 0) this.waiting.splice(at, 1);
        job.reject(new ReadTimeoutError(this.timeoutMs));
      }, this.timeoutMs);
      job.timer.unref?.();
      this.waiting.push(job);
      this.pump();
    });
  }

  private settle(job: Job, done: () => void): void {
    if (job.settled) return;
    job.settled = true;
    clearTimeout(job.timer);
    done();
  }

  /** Starts waiting reads on free slots. */
  private pump(): void {
    while (this.free.length > 0 && !this.closed) {
      const at = this.waiting.findIndex((j) => j.key === undefined || !this.runningKeys.has(j.key));
      if (at < 0) return;
      const [job] = this.waiting.splice(at, 1) as [Job];
      const slot = this.free.pop() as number;
      if (job.key !== undefined) this.runningKeys.set(job.key, (this.runningKeys.get(job.key) ?? 0) + 1);
      void this.runner
        .run(slot, job)
        .catch((err: unknown) =>
          job.reject(
            err instanceof DeadlinePassed
              ? new ReadTimeoutError(this.timeoutMs)
              : err instanceof Error
                ? err
                : new Error(String(err)),
          ),
        )
        .finally(() => {
          if (job.key !== undefined) {
            const n = (this.runningKeys.get(job.key) ?? 1) - 1;
            if (n === 0) this.runningKeys.delete(job.key);
            else this.runningKeys.set(job.key, n);
          }
          this.free.push(slot);
          this.pump();
        });
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const job of this.waiting.splice(0)) job.reject(new ReadPoolClosedError());
    await this.runner.close();
  }
}

/** A runner's word that the read's deadline passed before it finished; the scheduler answers {@link ReadTimeoutError}. */
class DeadlinePassed extends Error {
  constructor() {
    super(DEADLINE_MESSAGE);
    this.name = 'DeadlinePassed';
  }
}

/** True for the error the deadline function throws (SQLite wraps it; a thread sends its message). */
function isDeadlineError(err: unknown): boolean {
  return err instanceof Error && err.message.includes(DEADLINE_MESSAGE);
}

/**
 * The read threads' code (CommonJS, run with `eval`: nothing to bundle or compile, and the thread
 * loads better-sqlite3 alone). Each opens the file with `query_only`, registers the deadline
 * function, and answers `{ id, queries, deadline }` with `{ id, rows }` or `{ id, error }`, the
 * statements run in one read transaction; a statement is not started once the deadline has passed.
 */
const READ_THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
const SQLite = require(workerData.driver);
const db = new SQLite(workerData.path, { fileMustExist: true });
db.pragma('query_only = 1');
db.pragma('busy_timeout = 5000');
db.pragma('cache_size = -' + workerData.cacheKiB);
let deadline = Infinity;
const passed = () => { const e = new Error(workerData.deadlineMessage); e.code = 'CORDON_READ_DEADLINE'; return e; };
db.function(workerData.deadlineFunction, { deterministic: false }, () => {
  if (Date.now() > deadline) throw passed();
  return 1;
});
const statements = new Map();
function prepare(source) {
  let stmt = statements.get(source);
  if (stmt === undefined) {
    stmt = db.prepare(source);
    statements.set(source, stmt);
    if (statements.size > 100) statements.delete(statements.keys().next().value);
  }
  return stmt;
}
parentPort.on('message', (m) => {
  deadline = m.deadline;
  try {
    db.exec('begin');
    try {
      const rows = [];
      for (const q of m.queries) {
        if (Date.now() > deadline) throw passed();
        rows.push(prepare(q.sql).all(q.parameters));
      }
      parentPort.postMessage({ id: m.id, rows });
    } finally {
      db.exec('commit');
    }
  } catch (e) {
    parentPort.postMessage({ id: m.id, error: { message: String(e && e.message), code: e && e.code } });
  }
});
`;

/** Read threads on the SQLite file `path`, started on first use, one per slot; a thread that dies is replaced. */
function threadRunner(path: string, size: number): Runner {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const threads: Array<Worker | null> = Array.from({ length: size }, () => null);
  /** The read each slot's thread runs (one at a time). */
  const current: Array<{ id: number; resolve: (m: ThreadAnswer) => void; reject: (e: Error) => void } | null> =
    Array.from({ length: size }, () => null);
  let nextId = 1;
  let closed = false;

  const start = (slot: number): Worker => {
    const worker = new Worker(READ_THREAD, {
      eval: true,
      workerData: {
        driver,
        path,
        cacheKiB: READ_THREAD_CACHE_KIB,
        deadlineFunction: DEADLINE_FUNCTION,
        deadlineMessage: DEADLINE_MESSAGE,
      },
    });
    // The API's listener keeps the process alive; an idle read thread must not.
    worker.unref();
    worker.on('message', (m: ThreadAnswer) => {
      const read = current[slot];
      if (read?.id !== m.id) return;
      current[slot] = null;
      read.resolve(m);
    });
    const fail = (err: Error) => {
      if (threads[slot] !== worker) return;
      threads[slot] = null;
      const read = current[slot];
      current[slot] = null;
      read?.reject(err);
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`read thread exited (${code})`)));
    threads[slot] = worker;
    return worker;
  };

  return {
    async run(slot, job) {
      if (closed) throw new ReadPoolClosedError();
      const worker = threads[slot] ?? start(slot);
      const id = nextId++;
      const answer = await new Promise<ThreadAnswer>((resolve, reject) => {
        current[slot] = { id, resolve, reject };
        worker.postMessage({
          id,
          deadline: job.deadline,
          queries: job.queries.map((q) => ({ sql: q.sql, parameters: q.parameters })),
        });
      });
      if (answer.error) {
        const err = Object.assign(new Error(answer.error.message), { code: answer.error.code });
        throw isDeadlineError(err) ? new DeadlinePassed() : err;
      }
      job.resolve(answer.rows ?? []);
    },
    async close() {
      closed = true;
      const all = threads.filter((w): w is Worker => w !== null);
      threads.fill(null);
      for (const read of current.splice(0)) read?.reject(new ReadPoolClosedError());
      await Promise.all(all.map((w) => w.terminate()));
    },
  };
}

/** A read thread's answer. */
interface ThreadAnswer {
  id: number;
  rows?: unknown[][];
  error?: { message: string; code?: string };
}

/**
 * SQLite `:memory:`: the statements run on the handle's own connection, held exclusively for the
 * read (no other query runs in between: one snapshot), with the deadline function registered on it.
 */
function inProcessRunner(handle: DatabaseHandle): Runner {
  return {
    async run(_slot, job) {
      const raw = handle.sqlite;
      if (!raw) throw new Error('an in-process read pool needs the SQLite connection');
      const rows = await handle.db.connection().execute(async () => {
        const state = deadlineOf(raw);
        state.deadline = job.deadline;
        try {
          return job.queries.map((q) => {
            if (Date.now() > job.deadline) throw new DeadlinePassed();
            return raw.prepare(q.sql).all(q.parameters as unknown[]) as unknown[];
          });
        } catch (err) {
          throw isDeadlineError(err) ? new DeadlinePassed() : err;
        } finally {
          state.deadline = Number.POSITIVE_INFINITY;
        }
      });
      job.resolve(rows);
    },
    async close() {},
  };
}

/** The deadline of the read running on each in-process connection, whose function is registered once. */
const inProcessDeadlines = new WeakMap<SQLite.Database, { deadline: number }>();

function deadlineOf(raw: SQLite.Database): { deadline: number } {
  let state = inProcessDeadlines.get(raw);
  if (state === undefined) {
    const created = { deadline: Number.POSITIVE_INFINITY };
    raw.function(DEADLINE_FUNCTION, { deterministic: false }, () => {
      if (Date.now() > created.deadline) throw new Error(DEADLINE_MESSAGE);
      return 1;
    });
    inProcessDeadlines.set(raw, created);
    state = created;
  }
  return state;
}

/** PostgreSQL SQLSTATE query_canceled: what `statement_timeout` ends a statement with. */
const QUERY_CANCELED = '57014';

/**
 * PostgreSQL: each read in a read-only, repeatable-read transaction (one snapshot), every statement
 * bounded by `statement_timeout` set to the time left. A read of one statement whose parameters are
 * all strings, finite numbers, booleans or nulls goes in one round trip: the transaction's start,
 * the bound, the statement with its parameters written in as quoted literals
 * ({@link inlineParameters}) and the commit, one simple-protocol query. Any other read takes a
 * round trip for the start and the first bound (two statements without parameters, which the simple
 * protocol takes together), one per statement and one for the commit. One customer's searches run
 * one at a time (the read's `key`), so its round trips are that queue's length
 * (bench/README.md "API reads").
 */
function postgresRunner(handle: DatabaseHandle): Runner {
  const quote = loadPg().escapeLiteral;
  return {
    async run(_slot, job) {
      const [only, ...more] = job.queries;
      const inlined = only !== undefined && more.length === 0 ? inlineParameters(only, quote) : undefined;
      try {
        if (inlined !== undefined) {
          job.resolve([await oneRoundTrip(handle, job, inlined)]);
          return;
        }
        const rows = await handle.db.connection().execute(async (conn) => {
          const out: unknown[][] = [];
          let open = false;
          try {
            for (const q of job.queries) {
              const left = job.deadline - Date.now();
              if (left <= 0 || job.settled) throw new DeadlinePassed();
              const bound = `set local statement_timeout = ${Math.ceil(left)}`;
              const start = !open;
              // Open from here: a rollback outside a transaction is only a warning.
              open = true;
              await sql
                .raw(start ? `start transaction isolation level repeatable read, read only; ${bound}` : bound)
                .execute(conn);
              out.push((await conn.executeQuery(q)).rows as unknown[]);
            }
            if (open) await sql.raw('commit').execute(conn);
            return out;
          } catch (err) {
            // A failed or cancelled statement leaves the transaction aborted: end it before the
            // connection goes back to the pool (a connection that is gone fails here too: the pool drops it).
            if (open)
              await sql
                .raw('rollback')
                .execute(conn)
                .catch(() => undefined);
            throw err;
          }
        });
        job.resolve(rows);
      } catch (err) {
        throw (err as { code?: unknown }).code === QUERY_CANCELED ? new DeadlinePassed() : err;
      }
    },
    async close() {},
  };
}

/**
 * Runs `statement` (parameters written in) as a read of its own in one simple-protocol query: start
 * of a read-only, repeatable-read transaction, `statement_timeout` set to the time left, the
 * statement, commit. A failed or cancelled statement leaves the transaction aborted: it is rolled back
 * before the connection goes back to the pool, and a connection that cannot is discarded.
 * @returns the statement's rows
 */
async function oneRoundTrip(handle: DatabaseHandle, job: Job, statement: string): Promise<unknown[]> {
  const left = job.deadline - Date.now();
  if (left <= 0 || job.settled) throw new DeadlinePassed();
  const pool = handle.pgPool;
  if (!pool) throw new Error("a PostgreSQL read pool needs the handle's pool");
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    const results = (await client.query(
      `start transaction isolation level repeatable read, read only; set local statement_timeout = ${Math.ceil(left)}; ${statement}; commit`,
    )) as unknown as Array<{ rows: unknown[] }>;
    return results[2]?.rows ?? [];
  } catch (err) {
    await client.query('rollback').catch((e: Error) => {
      broken = e;
    });
    throw err;
  } finally {
    client.release(broken);
  }
}

/**
 * The text of `query` with each parameter (`$1`, `$2`, … outside quotes and comments) written in as
 * a quoted literal by `quote` (node-postgres's `escapeLiteral`): a string, a finite number or a
 * boolean as its text — the text node-postgres sends for the parameter, and like an untyped
 * parameter a quoted literal takes its type from where it stands — and null as `NULL`. Undefined,
 * and the read keeps its parameters, for any other value, a `$` that is not a parameter (a dollar
 * quote, an identifier holding one), an escape-string or Unicode literal (`E'…'`, `U&'…'`), or a
 * quote or comment left open.
 */
export function inlineParameters(query: CompiledQuery, quote: (text: string) => string): string | undefined {
  const text = query.sql;
  const literal = (value: unknown): string | undefined => {
    if (value === null) return 'NULL';
    if (typeof value === 'string') return quote(value);
    if (typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value)))
      return quote(String(value));
    return undefined;
  };
  let out = '';
  let copied = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "'" || c === '"') {
      if (c === "'" && /[eE&]/.test(text[i - 1] ?? '')) return undefined;
      let end = i + 1;
      for (;;) {
        end = text.indexOf(c, end);
        if (end < 0) return undefined;
        if (text[end + 1] !== c) break;
        end += 2;
      }
      i = end;
    } else if (c === '-' && text[i + 1] === '-') {
      const end = text.indexOf('\n', i);
      i = end < 0 ? text.length : end;
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      if (end < 0) return undefined;
      i = end + 1;
    } else if (c === '$') {
      const match = /^\$(\d{1,6})(?![\w$])/.exec(text.slice(i, i + 8));
      if (match === null || /[\w$]/.test(text[i - 1] ?? '')) return undefined;
      const index = Number(match[1]) - 1;
      const value = index >= 0 && index < query.parameters.length ? literal(query.parameters[index]) : undefined;
      if (value === undefined) return undefined;
      out += `${text.slice(copied, i)}${value}`;
      i += match[0].length - 1;
      copied = i + 1;
    }
  }
  return out + text.slice(copied);
}
