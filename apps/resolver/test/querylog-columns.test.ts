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

  it('binds a column once for 50 rows that share its value, and every row keeps its own values', async () => {
    // 40 statements of 50 rows (and a tail), statement g varying the column sets of g's bits within it
    // and sharing the rest: 40 sets, more than a connection keeps statements for.
    const varying: Array<(i: number) => Partial<QueryLogRow>> = [
      (i) => ({ customer_id: 1 + (i % 2) }),
      (i) => ({ location_id: i % 3 ? 7 : null }),
      (i) => ({ policy_id: i % 2 ? 3 : null }),
      (i) => ({ client_ip: `10.0.0.${i % 3}` }),
      (i) => ({ qtype: i % 2 ? 'AAAA' : 'A', protocol: i % 3 ? 'udp' : 'doh' }),
      (i) => ({ action: i % 2 ? 'blocked' : 'allowed', reason: i % 2 ? 'category' : 'default' }),
      (i) => ({ categories: i % 2 ? '6,13' : '', rcode: i % 3 ? 'NOERROR' : 'NXDOMAIN' }),
      (i) => ({ answer_source: i % 2 ? 'cache' : 'upstream', device_id: i % 3 ? 41 : null }),
      (i) => ({ user_id: i % 2 ? 50 : null, user_name: i % 2 ? 'alice' : '', group_id: i % 3 ? 60 : null }),
      (i) => ({ matched_name: i % 2 ? 't1.cname-target.example' : '' }),
    ];
    const shared: Partial<QueryLogRow> = {
      customer_id: 1,
      location_id: 7,
      policy_id: 3,
      client_ip: '10.0.0.9',
      action: 'allowed',
      categories: '',
      device_id: null,
      user_id: null,
      user_name: '',
      group_id: null,
      matched_name: '',
    };
    const rows = Array.from({ length: 2010 }, (_, i) => {
      const group = Math.floor(i / 50);
      let over: Partial<QueryLogRow> = { ...shared, qname: `q${i}.example`, latency_us: i };
      for (let v = 0; v < varying.length; v++) if ((group >> v) & 1) over = { ...over, ...varying[v]!(i) };
      return queryLogRow(i, over);
    });
    const handle = await createTestDatabase('sqlite');
    await insertQueryLogBatchesSqlite(handle.sqlite!, messages(rows, [50, 975, 985]));
    const back = await logOf(handle);
    expect(back).toHaveLength(2010);
    expect(back).toEqual(rows.map((r) => ({ ...r })));
    await handle.close();
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
