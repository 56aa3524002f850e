/**
 * The worker role's jobs retry while the database is unreachable (issue 30; docs/operations.md
 * "When the database goes away"): a job whose run fails because the connection was refused or
 * terminated runs again, with backoff, instead of waiting for its next period.
 */
import type { worker } from '@cordon/core';
import { describe, expect, it } from 'vitest';
import { retryWhileUnreachable } from '../src/worker-jobs.ts';

const refused = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
const terminated = () =>
  Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' });

/** A job failing with `errors` in turn, then succeeding; counts its runs. */
function flakyJob(errors: Error[]): worker.WorkerJob & { runs: number } {
  const job = {
    name: 'test.flaky',
    intervalMs: 86_400_000,
    runs: 0,
    async run() {
      job.runs++;
      const err = errors.shift();
      if (err) throw err;
    },
  };
  return job;
}

const ctx = (warnings: string[]) =>
  ({
    deps: {},
    now: 0,
    lastStartedAt: null,
    log: { info: () => undefined, warn: (_o: object, m: string) => void warnings.push(m), error: () => undefined },
  }) as unknown as worker.WorkerJobContext;

describe('worker jobs while the database is unreachable', () => {
  it('runs a job again, with growing waits, until the database answers', async () => {
    const job = flakyJob([refused(), terminated(), refused()]);
    const waits: number[] = [];
    const warnings: string[] = [];
    const wrapped = retryWhileUnreachable(job, {
      firstDelayMs: 100,
      maxDelayMs: 300,
      sleep: async (ms) => void waits.push(ms),
    });
    expect({ name: wrapped.name, intervalMs: wrapped.intervalMs }).toEqual({
      name: job.name,
      intervalMs: job.intervalMs,
    });
    await wrapped.run(ctx(warnings));
    expect(job.runs).toBe(4);
    expect(waits).toEqual([100, 200, 300]);
    expect(warnings).toEqual(Array(3).fill('worker job: database unreachable; retrying'));
  });

  it('throws any other error at once, and the last one after giving up or once stopping', async () => {
    const sql = Object.assign(new Error('duplicate key'), { code: '23505' });
    const other = flakyJob([sql]);
    await expect(retryWhileUnreachable(other, { sleep: async () => undefined }).run(ctx([]))).rejects.toBe(sql);
    expect(other.runs).toBe(1);

    const long = flakyJob(Array.from({ length: 10 }, refused));
    await expect(
      retryWhileUnreachable(long, { firstDelayMs: 100, giveUpAfterMs: 250, sleep: async () => undefined }).run(ctx([])),
    ).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    expect(long.runs).toBe(3); // waited 100 + 200 ≥ 250, then gave up

    const stopping = new AbortController();
    const stopped = flakyJob(Array.from({ length: 10 }, refused));
    const run = retryWhileUnreachable(stopped, { firstDelayMs: 60_000, stopping: stopping.signal }).run(ctx([]));
    setTimeout(() => stopping.abort(), 20);
    // The real timer's 60 s wait is cut short by the abort.
    await expect(run).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    expect(stopped.runs).toBe(2);
  });
});
