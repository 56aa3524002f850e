/** The `worker` role: background jobs run exactly once across workers (docs/architecture.md "Worker"). */
export {
  jobLockKey,
  type RunningWorker,
  startWorker,
  type WorkerJob,
  type WorkerJobContext,
  type WorkerLog,
  type WorkerOptions,
} from './worker.ts';
