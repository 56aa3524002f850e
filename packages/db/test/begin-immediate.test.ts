import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type DatabaseHandle, openDatabase } from '../src/index.ts';

/** A row count of the probe table, as `db` sees it. */
async function count(db: DatabaseHandle['db']): Promise<number> {
  return (await sql<{ n: number }>`select count(*) as n from probe`.execute(db)).rows[0]!.n;
}

// docs/decisions.md "SQLite write transactions begin IMMEDIATE": a transaction that reads, then
// writes, must not fail because another connection (the query-log writer thread) committed between.
describe('SQLite transactions', () => {
  let dir: string;
  let handle: DatabaseHandle;
  /** Another connection on the same file, as the query-log writer thread holds one; no busy wait. */
  let other: SQLite.Database;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cordon-begin-'));
    handle = openDatabase({ sqlitePath: join(dir, 'cordon.sqlite') });
    await sql`create table probe (id integer primary key, v text)`.execute(handle.db);
    other = new SQLite(join(dir, 'cordon.sqlite'));
    other.pragma('busy_timeout = 0');
  });
  afterEach(async () => {
    other.close();
    await handle.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('holds the write lock from BEGIN: another connection cannot commit between a read and the write', async () => {
    await handle.db.transaction().execute(async (trx) => {
      expect(await count(trx)).toBe(0);
      // Without IMMEDIATE this insert commits, and the write below fails with SQLITE_BUSY_SNAPSHOT.
      expect(() => other.prepare(`insert into probe (v) values ('other')`).run()).toThrow(
        expect.objectContaining({ code: 'SQLITE_BUSY' }),
      );
      await sql`insert into probe (v) values ('mine')`.execute(trx);
    });
    expect(await count(handle.db)).toBe(1);
    // The other connection's turn comes once the transaction ends.
    other.prepare(`insert into probe (v) values ('other')`).run();
    expect(await count(handle.db)).toBe(2);
  });

  it('begins a read-only transaction deferred: writers are not held, its snapshot stays consistent', async () => {
    await handle.db
      .transaction()
      .setAccessMode('read only')
      .execute(async (trx) => {
        expect(await count(trx)).toBe(0);
        other.prepare(`insert into probe (v) values ('other')`).run();
        expect(await count(trx)).toBe(0);
      });
    expect(await count(handle.db)).toBe(1);
  });

  it('rolls back a failed transaction and releases the lock', async () => {
    await expect(
      handle.db.transaction().execute(async (trx) => {
        await sql`insert into probe (v) values ('lost')`.execute(trx);
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    other.prepare(`insert into probe (v) values ('other')`).run();
    expect(await count(handle.db)).toBe(1);
  });
});
