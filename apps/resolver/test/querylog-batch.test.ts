import { describe, expect, it } from 'vitest';
import { BatchBuilder, NUMS, QNAME_SEPARATOR, readRows } from '../src/querylog/batch.ts';
import type { QueryLogRow } from '../src/querylog/writer.ts';

/** A row; `i` varies every column, identity columns null for odd `i`, a matched alias name for blocked odd `i`. */
const row = (i: number): QueryLogRow => ({
  ts: 1_763_800_000_000 + i,
  customer_id: 1 + (i % 3),
  location_id: i % 4 === 0 ? null : 7,
  policy_id: i % 5 === 0 ? null : 3,
  client_ip: `10.0.0.${i % 6}`,
  qname: [`q${i}.example`, 'a\u0000b\tc\nd.example', 'bücher.example', '.', 'x'.repeat(63)][i % 5]!,
  qtype: i % 2 ? 'AAAA' : 'A',
  protocol: i % 7 ? 'udp' : 'doh',
  action: i % 3 ? 'allowed' : 'blocked',
  reason: i % 3 ? 'default' : 'category',
  categories: i % 3 ? '' : '12,53',
  rcode: 'NOERROR',
  answer_source: i % 2 ? 'cache' : 'upstream',
  latency_us: i * 3,
  device_id: i % 2 ? null : 40 + i,
  user_id: i % 2 ? null : 50,
  user_name: i % 2 ? '' : 'dom\\alice',
  group_id: i % 2 ? null : 60,
  matched_name: i % 3 || i % 2 === 0 ? '' : `t${i % 4}.cname-target.example`,
});

describe('query-log batches between the resolving thread and the writer thread', () => {
  it('carry every column of every row, nulls and odd qnames included, with a small dictionary', () => {
    const b = new BatchBuilder(100);
    const rows = Array.from({ length: 100 }, (_, i) => row(i));
    for (const r of rows) b.add(r);
    const msg = b.take();
    expect(msg.count).toBe(100);
    expect(msg.nums.length).toBe(100 * NUMS);
    // 6 addresses + 2 qtypes + 2 protocols + … : each value once, whatever the row count.
    expect(msg.dict.length).toBeLessThan(30);
    expect(new Set(msg.dict).size).toBe(msg.dict.length);
    expect(readRows(msg)).toEqual(rows);
    expect(readRows(msg)[3]).toMatchObject({ action: 'blocked', matched_name: 't3.cname-target.example' });
    // The builder starts again empty.
    expect(b.count).toBe(0);
    b.add(row(7));
    expect(readRows(b.take())).toEqual([row(7)]);
  });

  it('reads the optional columns left out of a row as null, and empty names', () => {
    const b = new BatchBuilder(1);
    const { device_id: _d, user_id: _u, user_name: _n, group_id: _g, matched_name: _m, ...bare } = row(3);
    b.add(bare);
    expect(readRows(b.take())).toEqual([
      { ...bare, device_id: null, user_id: null, user_name: '', group_id: null, matched_name: '' },
    ]);
  });

  it('an empty batch reads as no rows', () => {
    expect(readRows(new BatchBuilder(10).take())).toEqual([]);
  });

  it('refuses a batch whose qnames or dictionary do not match its rows', () => {
    const b = new BatchBuilder(2);
    b.add(row(1));
    b.add(row(2));
    const msg = b.take();
    expect(() => readRows({ ...msg, qnames: `a${QNAME_SEPARATOR}b${QNAME_SEPARATOR}c` })).toThrow(
      /3 qnames for 2 rows/,
    );
    expect(() => readRows({ ...msg, dict: [] })).toThrow(/no dictionary entry/);
  });
});
