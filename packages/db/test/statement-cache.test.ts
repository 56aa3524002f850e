import SQLite from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openDatabase, withStatementCache } from '../src/connection.ts';

describe('SQLite statement cache (withStatementCache)', () => {
  it('hands out one prepared statement per SQL text, bounded, least recently used dropped first', () => {
    const raw = new SQLite(':memory:');
    const db = withStatementCache(raw, 2);
    const a = db.prepare('select 1 as x');
    expect(db.prepare('select 1 as x')).toBe(a);
    const b = db.prepare('select 2 as x');
    expect(db.prepare('select 1 as x')).toBe(a); // 'select 1' is now the most recent
    db.prepare('select 3 as x'); // drops 'select 2'
    expect(db.prepare('select 2 as x')).not.toBe(b);
    expect(db.prepare('select 1 as x').get()).toEqual({ x: 1 });
    raw.close();
  });

  it('prepares a fresh statement while the cached one is still iterating', () => {
    const raw = new SQLite(':memory:');
    const db = withStatementCache(raw);
    const sql = 'select value from json_each(?)';
    const first = db.prepare(sql);
    const rows = first.iterate('[1,2,3]');
    expect(rows.next().value).toEqual({ value: 1 });
    const second = db.prepare(sql);
    expect(second).not.toBe(first);
    expect(second.all('[7]')).toEqual([{ value: 7 }]);
    expect([...rows]).toEqual([{ value: 2 }, { value: 3 }]);
    expect(db.prepare(sql)).toBe(first);
    raw.close();
  });

  it('keeps answering Kysely queries right after a schema change', async () => {
    const handle = openDatabase({ sqlitePath: ':memory:' });
    await handle.db.schema.createTable('t').addColumn('a', 'integer').execute();
    const read = () =>
      handle.db
        .selectFrom('t' as never)
        .selectAll()
        .execute();
    expect(await read()).toEqual([]);
    await handle.db.schema.alterTable('t').addColumn('b', 'text').execute();
    await handle.db
      .insertInto('t' as never)
      .values({ a: 1, b: 'x' } as never)
      .execute();
    // The cached `select * from "t"` is re-prepared by SQLite for the new column.
    expect(await read()).toEqual([{ a: 1, b: 'x' }]);
    await handle.close();
  });
});
