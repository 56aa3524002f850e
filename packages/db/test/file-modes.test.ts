import { chmodSync, existsSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { migrateToLatest, openDatabase } from '../src/index.ts';

const modeOf = (path: string) => statSync(path).mode & 0o777;

// docs/security.md: the data directory is private (0700) and so are its files (0600), whatever the umask.
describe('SQLite file modes', () => {
  it('creates a fresh data directory 0700 and the database, -wal and -shm files 0600', async () => {
    const previous = process.umask(0o022); // the usual umask, which would make everything world-readable
    try {
      const dataDir = join(mkdtempSync(join(tmpdir(), 'cordon-modes-')), 'data');
      const file = join(dataDir, 'cordon.sqlite');
      const handle = openDatabase({ sqlitePath: file });
      try {
        await migrateToLatest(handle);
        await sql`insert into settings (key, value) values ('probe', 'x')`.execute(handle.db);
        expect(modeOf(dataDir)).toBe(0o700);
        for (const f of [file, `${file}-wal`, `${file}-shm`]) {
          expect(existsSync(f), f).toBe(true);
          expect(modeOf(f), f).toBe(0o600);
        }
      } finally {
        await handle.close();
      }
    } finally {
      process.umask(previous);
    }
  });

  it('tightens the files of a database created world-readable by an earlier version', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cordon-modes-'));
    const file = join(dir, 'cordon.sqlite');
    const first = openDatabase({ sqlitePath: file });
    await migrateToLatest(first);
    await first.close();
    chmodSync(file, 0o644);
    writeFileSync(`${file}-shm`, Buffer.alloc(0));
    chmodSync(`${file}-shm`, 0o644);
    const again = openDatabase({ sqlitePath: file });
    try {
      expect(modeOf(file)).toBe(0o600);
      expect(modeOf(`${file}-shm`)).toBe(0o600);
    } finally {
      await again.close();
    }
  });
});
