import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../src/index.ts';
import { openSqliteFile } from '../src/sqlite-file.ts';

// docs/operations.md "A full disk": the query-log writer's full-disk test limits its connection's file size.
describe('sqliteMaxPageCount', () => {
  it('fails the growing writes of the limited connection with SQLITE_FULL; another connection still writes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cordon-max-pages-'));
    const path = join(dir, 'cordon.sqlite');
    const handle = openDatabase({ sqlitePath: path });
    try {
      await sql`create table probe (b blob)`.execute(handle.db);
      const pages = (await sql<{ page_count: number }>`pragma page_count`.execute(handle.db)).rows[0]!.page_count;
      const limited = openSqliteFile(path, undefined, pages);
      try {
        expect(() => limited.prepare('insert into probe (b) values (randomblob(65536))').run()).toThrow(
          expect.objectContaining({ code: 'SQLITE_FULL' }),
        );
        await sql`insert into probe (b) values (randomblob(65536))`.execute(handle.db);
        expect((await sql<{ n: number }>`select count(*) as n from probe`.execute(handle.db)).rows[0]!.n).toBe(1);
      } finally {
        limited.close();
      }
    } finally {
      await handle.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.each([0, -1, 1.5, Number.NaN])('refuses %s pages before creating anything', (pages) => {
    const dir = join(mkdtempSync(join(tmpdir(), 'cordon-max-pages-')), 'data');
    expect(() => openDatabase({ sqlitePath: join(dir, 'cordon.sqlite'), sqliteMaxPageCount: pages })).toThrow(
      RangeError,
    );
    expect(existsSync(dir)).toBe(false);
    rmSync(join(dir, '..'), { recursive: true, force: true });
  });
});
