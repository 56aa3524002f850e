import { createTestDatabase } from '@cordon/db/testing';
import { describe, expect, it } from 'vitest';
import { BatchBuilder, QNAME_SEPARATOR } from '../src/querylog/batch.ts';
import type { QueryLogRow } from '../src/querylog/row.ts';
import { insertQueryLogBatchesSqlite, insertQueryLogSqlite } from '../src/querylog/sqlite-raw.ts';
import { queryLogRow } from './helpers/query-log-rows.ts';

/** Row `i` with the columns the helper keeps constant varied too, and odd qnames. */
const row = (i: number): QueryLogRow =>
  queryLogRow(i, {
    policy_id: i % 4 === 0 ? null : 3,
    qname: [`q${i}.example`, 'a\u0000b\tc\nd.example', 'bücher.example', '.', 'x'.repeat(63)][i % 5]!,
    qtype: i % 2 ? 'AAAA' : 'A',
    protocol: i % 9 ? 'udp' : 'doh',
    rcode: i % 8 ? 'NOERROR' : 'NXDOMAIN',
    answer_source: i % 2 ? 'cache' : 'upstream',
    latency_us: i * 3,
  });

/** `rows` as the resolving thread posts them: one `rows` message per `sizes` entry, in order. */
function messages(rows: QueryLogRow[], sizes: number[]) {
  const out = [];
  let next = 0;
  for (const size of sizes) {
    const b = new BatchBuilder(Math.max(1, size));
    for (let k = 0; k < size; k++) b.add(rows[next++]!);
    out.push(b.take());
  }
  return out;
}

/** Every column of `query_log` but the id, in insertion order. */
async function logOf(handle: Awaited<ReturnType<typeof createTestDatabase>>) {
  const back = await handle.db.selectFrom('query_log').selectAll().orderBy('id').execute();
  return back.map(({ id: _id, ...rest }) => rest);
}

describe('the writer thread binds query-log batches from their columns (SQLite)', () => {
  it('stores exactly what the row-object insert stores, across messages and 50-row statements', async () => {
    const rows = Array.from({ length: 150 }, (_, i) => row(i));
    const byObjects = await createTestDatabase('sqlite');
    const byColumns = await createTestDatabase('sqlite');
    await insertQueryLogSqlite(byObjects.sqlite!, rows);
    // 37 + 100 + 13: statements of 50 rows straddle the messages, and a tail goes row by row.
    await insertQueryLogBatchesSqlite(byColumns.sqlite!, messages(rows, [37, 0, 100, 13]));
    const expected = await logOf(byObjects);
    expect(expected).toHaveLength(150);
    expect(await logOf(byColumns)).toEqual(expected);
    expect(expected[1]).toMatchObject({ qname: 'a\u0000b\tc\nd.example', user_name: 'alice', device_id: 41 });
    expect(expected[0]).toMatchObject({ location_id: null, policy_id: null, device_id: null, user_name: '' });
    expect(expected[7]).toMatchObject({ action: 'blocked', matched_name: 't1.cname-target.example' });
    expect(expected[14]).toMatchObject({ action: 'blocked', matched_name: '' });
    await byObjects.close();
    await byColumns.close();
  });

  it('paces in slices inside one transaction, and a failure between slices keeps none of them', async () => {
    const rows = Array.from({ length: 45 }, (_, i) => row(i));
    const handle = await createTestDatabase('sqlite');
    let pauses = 0;
    const pace = {
      rows: 10,
      between: async () => {
        pauses++;
      },
    };
    await insertQueryLogBatchesSqlite(handle.sqlite!, messages(rows, [20, 25]), pace);
    expect(pauses).toBe(4);
    expect((await logOf(handle)).map((r) => r.latency_us)).toEqual(rows.map((r) => r.latency_us));
    const failing = {
      rows: 1,
      between: async () => {
        throw new Error('stopped between slices');
      },
    };
    await expect(
      insertQueryLogBatchesSqlite(handle.sqlite!, messages([row(100), row(101)], [2]), failing),
    ).rejects.toThrow('stopped between slices');
    expect(await logOf(handle)).toHaveLength(45);
    await handle.close();
  });

  it('refuses an inconsistent message before inserting anything of the call', async () => {
    const rows = Array.from({ length: 6 }, (_, i) => row(i));
    const handle = await createTestDatabase('sqlite');
    const [good, bad] = messages(rows, [3, 3]);
    await expect(
      insertQueryLogBatchesSqlite(handle.sqlite!, [good!, { ...bad!, qnames: `a${QNAME_SEPARATOR}b` }]),
    ).rejects.toThrow('query-log batch: 2 qnames for 3 rows');
    await expect(insertQueryLogBatchesSqlite(handle.sqlite!, [good!, { ...bad!, dict: ['only'] }])).rejects.toThrow(
      /no dictionary entry/,
    );
    expect(await logOf(handle)).toEqual([]);
    await insertQueryLogBatchesSqlite(handle.sqlite!, []);
    expect(await logOf(handle)).toEqual([]);
    await handle.close();
  });
});
