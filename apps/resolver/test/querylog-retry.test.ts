import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteFile } from '@cordon/db/sqlite-file';
import { describe, expect, it } from 'vitest';
import { retryReason } from '../src/querylog/retry.ts';

/** An error with `code`, as better-sqlite3 and node-postgres throw them. */
const coded = (code: string) => Object.assign(new Error(code), { code });

// docs/operations.md "When the database goes away", "A full disk", "Writes under load (SQLite)".
describe('retryReason: which failed query-log inserts the writer thread retries', () => {
  it.each([
    ['a refused connection', coded('ECONNREFUSED'), 'unreachable'],
    ['a PostgreSQL shutdown', coded('57P01'), 'unreachable'],
    ['a full SQLite disk', coded('SQLITE_FULL'), 'full'],
    ['the write lock held past the busy timeout', coded('SQLITE_BUSY'), 'busy'],
    ['a stale read snapshot', coded('SQLITE_BUSY_SNAPSHOT'), 'busy'],
    ['a refused row', coded('SQLITE_CONSTRAINT_NOTNULL'), null],
    ['a corrupt file', coded('SQLITE_CORRUPT'), null],
    ['a bug', new TypeError('x is undefined'), null],
    ['no error object', 'SQLITE_FULL', null],
    ['null', null, null],
  ])('%s → %s', (_what, err, reason) => {
    expect(retryReason(err)).toBe(reason);
  });

  it('recognises the error better-sqlite3 throws when the file cannot grow', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cordon-retry-'));
    try {
      const setup = openSqliteFile(join(dir, 'cordon.sqlite'));
      setup.exec('create table probe (b blob)');
      const pages = setup.pragma('page_count', { simple: true }) as number;
      setup.close();
      const limited = openSqliteFile(join(dir, 'cordon.sqlite'), undefined, pages);
      let thrown: unknown = null;
      try {
        limited.prepare('insert into probe (b) values (randomblob(65536))').run();
      } catch (err) {
        thrown = err;
      } finally {
        limited.close();
      }
      expect(retryReason(thrown)).toBe('full');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
