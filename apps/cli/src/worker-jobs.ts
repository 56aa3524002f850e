import { feeds, notifications, reports, rollups, webhooks, type worker } from '@cordon/core';
import { isDatabaseBusy, isDatabaseUnreachable } from '@cordon/db';
import type { ServeConfig } from './config.ts';
import { ddnsJob, upstreamLookup } from './ddns-job.ts';

/**
 * The jobs of the `worker` role of `cordon serve` (docs/architecture.md "Worker"), one ordered array.
 * To add a job: build a `worker.WorkerJob` (`name` unique and stable, `intervalMs`, `run`) where its
 * code lives and add one line here. Several workers may run against one database: each due job runs
 * exactly once (a PostgreSQL advisory lock plus a claim in `worker_jobs`). Each job is retried while
 * the database is unreachable ({@link retryWhileUnreachable}) until `stopping` aborts.
 * @param stopping aborted when the worker stops: retries end and the last error is thrown
 */
export function workerJobs(config: ServeConfig, stopping?: AbortSignal): worker.WorkerJob[] {
  return [
    rollups.retentionJob({
      logRetentionDays: config.logRetentionDays,
      rollupRetentionMonths: config.rollupRetentionMonths,
    }),
    rollups.partitionsJob(),
    rollups.dailyRollupsJob(),
    reports.scheduledReportsJob(),
    notifications.digestJob(),
    feeds.feedsJob(),
    webhooks.webhooksJob(),
    ddnsJob({
      claims: {
        maxPrefixV4: config.claimMaxPrefixV4,
        maxPrefixV6: config.claimMaxPrefixV6,
        allowPrivate: config.claimAllowPrivate,
        allowSpecial: config.claimAllowSpecial,
      },
      lookup: upstreamLookup(config.upstreams),
    }),
  ].map((job) => retryWhileUnreachable(job, stopping ? { stopping } : {}));
}

/** Settings of {@link retryWhileUnreachable}; the defaults suit the worker role. */
export interface UnreachableRetry {
  /** The first wait after a failure, ms; doubles up to `maxDelayMs`. Default 1,000. */
  firstDelayMs?: number;
  /** The longest wait between two attempts, ms. Default 30,000. */
  maxDelayMs?: number;
  /** How long the run keeps retrying, ms; then the last error is thrown (and recorded). Default 10 minutes. */
  giveUpAfterMs?: number;
  /** Waits `ms` (tests pass a fake clock's); default a timer, cut short when `stopping` aborts. */
  sleep?: (ms: number) => Promise<void>;
  /** Aborted when the worker stops (shutdown): no more retries, the last error is thrown. */
  stopping?: AbortSignal;
}

/**
 * `job` with its run retried, with backoff, while it fails because the database cannot be reached
 * (`isDatabaseUnreachable` of @cordon/db: a restart, a failover, a cut connection; docs/operations.md
 * "When the database goes away"). The worker has already claimed the job's period when `run` starts,
 * so a run lost to an outage would otherwise wait a whole `intervalMs` (a day for the daily jobs);
 * jobs are idempotent per period (the `WorkerJob` contract), so running one again is safe. Any other
 * error is thrown at once, as before; after `giveUpAfterMs` of outage, or once `stopping` aborts,
 * the last error is thrown, so the ledger records it and the next period runs as usual.
 */
export function retryWhileUnreachable(job: worker.WorkerJob, opts: UnreachableRetry = {}): worker.WorkerJob {
  const first = opts.firstDelayMs ?? 1000;
  const max = opts.maxDelayMs ?? 30_000;
  const giveUpAfter = opts.giveUpAfterMs ?? 10 * 60_000;
  const stopping = opts.stopping;
  const sleep =
    opts.sleep ??
    ((ms: number) =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(done, ms);
        function done() {
          clearTimeout(timer);
          stopping?.removeEventListener('abort', done);
          resolve();
        }
        stopping?.addEventListener('abort', done, { once: true });
      }));
  return {
    name: job.name,
    intervalMs: job.intervalMs,
    async run(ctx) {
      let delay = first;
      let waited = 0;
      for (;;) {
        try {
          return await job.run(ctx);
        } catch (err) {
          const busy = isDatabaseBusy(err);
          if (!(busy || isDatabaseUnreachable(err)) || waited >= giveUpAfter || stopping?.aborted) throw err;
          if (busy) {
            // Another process's long write (an import): expected contention, one line without a stack.
            ctx.log.warn(
              { code: 'SQLITE_BUSY', job: job.name, retryInMs: delay },
              'worker job: database busy; retrying',
            );
          } else {
            ctx.log.warn({ err, job: job.name, retryInMs: delay }, 'worker job: database unreachable; retrying');
          }
          await sleep(delay);
          waited += delay;
          delay = Math.min(delay * 2, max);
        }
      }
    },
  };
}
