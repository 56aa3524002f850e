import { feeds, notifications, reports, rollups, type worker } from '@cordon/core';
import type { ServeConfig } from './config.ts';
import { ddnsJob, upstreamLookup } from './ddns-job.ts';

/**
 * The jobs of the `worker` role of `cordon serve` (docs/architecture.md "Worker"), one ordered array.
 * To add a job: build a `worker.WorkerJob` (`name` unique and stable, `intervalMs`, `run`) where its
 * code lives and add one line here. Several workers may run against one database: each due job runs
 * exactly once (a PostgreSQL advisory lock plus a claim in `worker_jobs`).
 */
export function workerJobs(config: ServeConfig): worker.WorkerJob[] {
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
    ddnsJob({
      claims: {
        maxPrefixV4: config.claimMaxPrefixV4,
        maxPrefixV6: config.claimMaxPrefixV6,
        allowPrivate: config.claimAllowPrivate,
        allowSpecial: config.claimAllowSpecial,
      },
      lookup: upstreamLookup(config.upstreams),
    }),
  ];
}
