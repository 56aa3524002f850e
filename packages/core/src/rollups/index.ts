/** Query-log roll-ups' upkeep: retention and the PostgreSQL daily partitions (docs/architecture.md "Statistics"). */

export { compactDays, DAILY_GRACE_MS, dailyRollupsJob, HOURLY_GRACE_MS, summarizeMspPeriods } from './daily.ts';
export { MSP_RANK_KEYS, summarizeMspPeriod } from './msp-summary.ts';
export { ensureQueryLogPartitions, partitionsJob } from './partitions.ts';
export {
  applyRetention,
  type RetentionResult,
  type RetentionSettings,
  retentionCutoffs,
  retentionJob,
} from './retention.ts';
