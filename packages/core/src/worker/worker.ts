import { createHash } from 'node:crypto';
import type { Database } from '@cordon/db';
import { type Kysely, sql } from 'kysely';
import type { CoreDeps } from '../context.ts';

/** What a job gets when it runs. */
export interface WorkerJobContext {
  readonly deps: CoreDeps;
  /** The instant (epoch ms, `deps.now()`) this run was claimed at. */
  readonly now: number;
  /** The previous run's start (epoch ms), null on the first run. */
  readonly lastStartedAt: number | null;
  readonly log: WorkerLog;
}

/** The worker's log lines (pino's shape; any object with these three methods will do). */
export interface WorkerLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/**
 * A background job of the `worker` role (docs/architecture.md "Worker"). `name` is its key in the
 * `worker_jobs` ledger (unique, stable across releases). The job is due when it never ran or when
 * `intervalMs` has passed since its last start; `run` should be idempotent per period (a crash after
 * the claim skips one period rather than running it twice).
 */
export interface WorkerJob {
  readonly name: string;
  readonly intervalMs: number;
  run(ctx: WorkerJobContext): Promise<void>;
}

/** A running worker. */
export interface RunningWorker {
  /** Runs every due job once (claimed and locked as on the timer); resolves with the names that ran here. */
  runDue(): Promise<string[]>;
  /** Stops the timer and waits for the jobs running now. */
  close(): Promise<void>;
}

/** Options of {@link startWorker}. */
export interface WorkerOptions {
  /** How often due jobs are looked for, ms; default 15,000. 0 starts no timer (tests call `runDue`). */
  tickMs?: number;
  log?: WorkerLog;
  /**
   * Told of each run of a job on this worker once it ends: the job's name, its duration in seconds,
   * its error message (null when it succeeded) and when it ended (epoch ms, `deps.now()`): the
   * worker's metrics (docs/operations.md "Monitoring"). Default: nothing.
   */
  onJobDone?: (job: string, seconds: number, error: string | null, endedAt: number) => void;
}

const SILENT: WorkerLog = { info: () => undefined, warn: () => undefined, error: () => undefined };

/** The first key of every worker advisory lock: ASCII 'wrkr'. */
const LOCK_CLASS = 0x77726b72;

/** The second advisory-lock key of job `name`: 31 bits of its SHA-256 (stable across processes). */
export function jobLockKey(name: string): number {
  return createHash('sha256').update(name).digest().readUInt32BE(0) & 0x7fffffff;
}

/**
 * Starts the worker role (docs/architecture.md "Worker"): every `tickMs` it runs each due job of
 * `jobs`. Exactly one worker runs a job when several are started against one database: on PostgreSQL
 * the run holds the session advisory lock (`LOCK_CLASS`, {@link jobLockKey}) — another worker's
 * `pg_try_advisory_lock` fails and it skips the job; on both dialects the run first claims its period
 * in `worker_jobs` with a conditional UPDATE (`last_started_at` older than `intervalMs`), so a worker
 * that gets the lock just after another finished does not run the same period again. A job's failure
 * is logged and recorded in the ledger; the others still run.
 * @throws Error when two jobs share a name
 */
export function startWorker(deps: CoreDeps, jobs: readonly WorkerJob[], opts: WorkerOptions = {}): RunningWorker {
  const names = new Set<string>();
  for (const j of jobs) {
    if (names.has(j.name)) throw new Error(`worker job "${j.name}" is registered twice`);
    names.add(j.name);
  }
  const log = opts.log ?? SILENT;
  const running = new Map<string, Promise<boolean>>();
  let closed = false;

  const runOne = (job: WorkerJob): Promise<boolean> => {
    const current = running.get(job.name);
    if (current) return Promise.resolve(false);
    const p = runLocked(deps, job, log, opts.onJobDone).finally(() => running.delete(job.name));
    running.set(job.name, p);
    return p;
  };
  const runDue = async (): Promise<string[]> => {
    if (closed) return [];
    const ran = await Promise.all(jobs.map((j) => runOne(j).catch(() => false)));
    return jobs.filter((_, i) => ran[i]).map((j) => j.name);
  };
  const tickMs = opts.tickMs ?? 15_000;
  const timer = tickMs > 0 ? setInterval(() => void runDue(), tickMs) : null;
  timer?.unref();
  if (timer) setImmediate(() => void runDue());
  return {
    runDue,
    close: async () => {
      closed = true;
      if (timer) clearInterval(timer);
      await Promise.allSettled([...running.values()]);
    },
  };
}

/** Runs `job` when this worker gets its lock and its period; true when it ran here. */
async function runLocked(
  deps: CoreDeps,
  job: WorkerJob,
  log: WorkerLog,
  onJobDone: WorkerOptions['onJobDone'],
): Promise<boolean> {
  const { db, dialect } = deps.handle;
  if (dialect !== 'postgres') return claimAndRun(deps, db, job, log, onJobDone);
  // A session lock needs one connection for the lock and its release: pin one from the pool.
  return db.connection().execute(async (conn) => {
    const key = jobLockKey(job.name);
    const got = await sql<{ ok: boolean }>`select pg_try_advisory_lock(${LOCK_CLASS}, ${key}) as ok`.execute(conn);
    if (!got.rows[0]?.ok) return false;
    try {
      return await claimAndRun(deps, conn, job, log, onJobDone);
    } finally {
      await sql`select pg_advisory_unlock(${LOCK_CLASS}, ${key})`.execute(conn);
    }
  });
}

async function claimAndRun(
  deps: CoreDeps,
  db: Kysely<Database>,
  job: WorkerJob,
  log: WorkerLog,
  onJobDone: WorkerOptions['onJobDone'],
): Promise<boolean> {
  const now = deps.now();
  await db
    .insertInto('worker_jobs')
    .values({ name: job.name, last_started_at: null, last_finished_at: null, last_error: null })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  const before = await db
    .selectFrom('worker_jobs')
    .select('last_started_at')
    .where('name', '=', job.name)
    .executeTakeFirst();
  const last = before?.last_started_at ?? null;
  if (last !== null && Number(last) + job.intervalMs > now) return false;
  const claimed = await db
    .updateTable('worker_jobs')
    .set((eb) => ({ last_started_at: now, runs: eb('runs', '+', 1) }))
    .where('name', '=', job.name)
    .where((eb) => (last === null ? eb('last_started_at', 'is', null) : eb('last_started_at', '=', last)))
    .executeTakeFirst();
  if (Number(claimed.numUpdatedRows) !== 1) return false;
  let error: string | null = null;
  const started = performance.now();
  try {
    await job.run({ deps, now, lastStartedAt: last === null ? null : Number(last), log });
  } catch (err) {
    error = err instanceof Error ? err.message : String(err);
    log.error({ err, job: job.name }, 'worker job failed');
  }
  onJobDone?.(job.name, (performance.now() - started) / 1000, error, deps.now());
  await db
    .updateTable('worker_jobs')
    .set({ last_finished_at: deps.now(), last_error: error })
    .where('name', '=', job.name)
    .execute();
  return true;
}
