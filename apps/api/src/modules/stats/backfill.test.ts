import type { QueryLogRow } from '@cordon/db';
import { createTestDatabase, testDialects } from '@cordon/db/testing';
import { type Kysely, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { up } from '../../../../../packages/db/src/migrations/0019_stats_rollups.ts';
import { up as upIdentityDims } from '../../../../../packages/db/src/migrations/0030_rollup_identity_dims.ts';
import { insertQueryLogRows } from '../../../test/query-log.ts';

/**
 * Migration 0019 rolls up the rows logged before it exactly as the writer does, and 0030 adds the
 * `user` dimensions of rows with no device or user as the writer does (their client address).
 */
describe.each(testDialects())('roll-up backfill on %s', (dialect) => {
  it('rebuilds the roll-ups of existing raw rows', async () => {
    const handle = await createTestDatabase(dialect);
    const rows: QueryLogRow[] = Array.from({ length: 12_000 }, (_, i) => ({
      ts: Date.UTC(2026, 10, 20) + i * 37_000,
      customer_id: 1 + (i % 3),
      location_id: i % 4 === 0 ? null : 5,
      policy_id: i % 5 === 0 ? null : 9,
      client_ip: `10.0.0.${i % 7}`,
      qname: `q${i % 50}.example`,
      qtype: 'A',
      protocol: 'udp',
      action: i % 6 === 0 ? 'blocked' : i % 17 === 0 ? 'bypassed' : 'allowed',
      reason: 'default',
      categories: i % 6 === 0 ? '1,5' : i % 9 === 0 ? '13' : '',
      rcode: 'NOERROR',
      answer_source: 'upstream',
      latency_us: 10,
    }));
    for (let i = 0; i < rows.length; i += 1000) await insertQueryLogRows(handle, rows.slice(i, i + 1000));
    const snapshot = async () => ({
      hourly: (await handle.db.selectFrom('stats_hourly').selectAll().execute())
        .map((r) => JSON.stringify(Object.values(r).map(String)))
        .sort(),
      top: (await handle.db.selectFrom('stats_hourly_top').selectAll().execute())
        .map((r) => JSON.stringify(Object.values(r).map(String)))
        .sort(),
    });
    const want = await snapshot();
    expect(want.top.some((r) => r.includes('"phishing_domain"'))).toBe(true);
    expect(want.top.some((r) => r.includes('"phishing_user"'))).toBe(true);
    await sql`drop table stats_hourly`.execute(handle.db);
    await sql`drop table stats_hourly_top`.execute(handle.db);
    await up(handle.db as unknown as Kysely<unknown>, dialect);
    await upIdentityDims(handle.db as unknown as Kysely<unknown>, dialect);
    expect(await snapshot()).toEqual(want);
    await handle.close();
  });
});
