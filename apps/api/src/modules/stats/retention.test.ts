import { type CoreDeps, rollups } from '@cordon/core';
import type { ChangeFeed, DatabaseHandle } from '@cordon/db';
import { createTestDatabase, testDialects } from '@cordon/db/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { insertQueryLogRows } from '../../../test/query-log.ts';

const NO_FEED: ChangeFeed = {
  publish: async () => undefined,
  subscribe: () => () => undefined,
  start: async () => undefined,
  close: async () => undefined,
};

/** Query-log retention (docs/architecture.md "Statistics"): raw rows 30 days, roll-ups 13 months, PG by partition. */
describe.each(testDialects())('query-log retention on %s', (dialect) => {
  let handle: DatabaseHandle;
  let now = Date.parse('2026-03-15T12:00:00Z');
  const deps = (): CoreDeps => ({ handle, changes: NO_FEED, now: () => now });
  const row = (iso: string, qname: string) => ({
    ts: Date.parse(iso),
    customer_id: 1,
    location_id: null,
    policy_id: null,
    client_ip: '10.0.0.1',
    qname,
    qtype: 'A',
    protocol: 'udp',
    action: 'allowed',
    reason: 'default',
    categories: '',
    rcode: 'NOERROR',
    answer_source: 'upstream',
    latency_us: 10,
  });
  beforeEach(async () => {
    handle = await createTestDatabase(dialect);
  });
  afterEach(async () => {
    await handle.close();
  });

  it('drops raw rows after 30 days and roll-ups after 13 months', async () => {
    // The partitions of the old day exist as they would have then.
    now = Date.parse('2026-02-01T12:00:00Z');
    const early = await rollups.ensureQueryLogPartitions(deps());
    now = Date.parse('2026-03-15T12:00:00Z');
    const late = await rollups.ensureQueryLogPartitions(deps());
    if (dialect === 'postgres') {
      expect(early).toContain('query_log_p20260201');
      expect(late).toContain('query_log_p20260322');
    } else {
      expect([...early, ...late]).toEqual([]);
    }
    await insertQueryLogRows(handle, [
      row('2026-02-01T10:00:00Z', 'old.example'),
      row('2026-03-10T10:00:00Z', 'recent.example'),
      row('2026-03-15T10:00:00Z', 'today.example'),
    ]);
    await handle.db
      .insertInto('stats_hourly')
      .values({
        customer_id: 1,
        location_id: 0,
        hour: Date.parse('2025-01-01T00:00:00Z'),
        requests: 5,
        allowed: 5,
        blocked: 0,
        bypassed: 0,
      })
      .execute();
    const result = await rollups.applyRetention(deps(), { logRetentionDays: 30, rollupRetentionMonths: 13 });
    if (dialect === 'postgres') {
      // Every daily partition of 2026-01-31 to 2026-02-08 ends before the cutoff (2026-02-13T12:00Z).
      expect(result.partitions).toHaveLength(9);
      expect(result.partitions).toContain('query_log_p20260201');
      expect(result.partitions).not.toContain('query_log_p20260213');
      expect(result.rawRows).toBe(0);
    } else {
      expect(result.rawRows).toBe(1);
    }
    const left = await handle.db.selectFrom('query_log').select('qname').orderBy('ts').execute();
    expect(left.map((r) => r.qname)).toEqual(['recent.example', 'today.example']);
    // 2025-01-01 is before 2025-02-01 (13 months before March 2026): gone; the 2026 hours stay.
    const hours = await handle.db.selectFrom('stats_hourly').select('hour').orderBy('hour').execute();
    expect(hours.map((h) => new Date(Number(h.hour)).toISOString())).toEqual([
      '2026-02-01T10:00:00.000Z',
      '2026-03-10T10:00:00.000Z',
      '2026-03-15T10:00:00.000Z',
    ]);
    expect(result.rollupRows).toBe(1);
  });

  it('keeps days whose rows already sit in the default partition, and deletes them row by row', async () => {
    await insertQueryLogRows(handle, [row('2026-01-20T10:00:00Z', 'stray.example')]);
    now = Date.parse('2026-01-20T12:00:00Z');
    await rollups.ensureQueryLogPartitions(deps());
    now = Date.parse('2026-03-15T12:00:00Z');
    const result = await rollups.applyRetention(deps(), { logRetentionDays: 30, rollupRetentionMonths: 13 });
    expect(result.rawRows).toBe(1);
    expect(await handle.db.selectFrom('query_log').selectAll().execute()).toEqual([]);
  });
});
