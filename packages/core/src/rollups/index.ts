/**
 * Query-log roll-ups (docs/architecture.md "Statistics"): the fold of the raw log into the hourly
 * roll-ups, their daily compaction and MSP summaries, retention and the PostgreSQL daily partitions.
 */

export {
  applyRollups,
  type FoldRow,
  foldRollups,
  mspTopDeltas,
  ROLLUP_HOUR_MS,
  RollupBuffer,
  type RollupDeltas,
  rollupAction,
  userKey,
} from './buffer.ts';
export { compactDays, DAILY_GRACE_MS, dailyRollupsJob, HOURLY_GRACE_MS, summarizeMspPeriods } from './daily.ts';
export {
  FOLD_MAX_ROWS,
  FOLD_MAX_ROWS_POSTGRES,
  type FolderLog,
  type FoldResult,
  foldedThrough,
  foldQueryLog,
  foldQueryLogAll,
  type QueryLogFolder,
  startQueryLogFolder,
} from './fold.ts';
export { MSP_RANK_KEYS, summarizeMspPeriod } from './msp-summary.ts';
export { ensureQueryLogPartitions, partitionsJob } from './partitions.ts';
export {
  applyRetention,
  type RetentionResult,
  type RetentionSettings,
  retentionCutoffs,
  retentionJob,
} from './retention.ts';
