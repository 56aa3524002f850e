import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DatabaseHandle, migrateToLatest, openDatabase } from '@cordon/db';
import { sql } from 'kysely';

/** A migrated bench database and the function that closes and removes it. */
export interface BenchDatabase {
  handle: DatabaseHandle;
  drop: () => Promise<void>;
}

/**
 * Opens a fresh, migrated database for a benchmark: a schema of its own on the PostgreSQL server of
 * `CORDON_BENCH_DATABASE_URL` when set, else a SQLite file `cordon-bench-<name>-<pid>.db` in the OS
 * temp folder. `drop()` closes it and removes the schema or the file (kept, and its name printed,
 * with `CORDON_BENCH_KEEP=1`).
 * @param name the benchmark's name, for the SQLite file
 * @param pgPoolSize connections of the PostgreSQL pool
 */
export async function openBenchDatabase(name: string, pgPoolSize: number): Promise<BenchDatabase> {
  const keep = Boolean(process.env.CORDON_BENCH_KEEP);
  const url = process.env.CORDON_BENCH_DATABASE_URL;
  if (url) {
    const schema = `cordon_bench_${randomBytes(4).toString('hex')}`;
    const admin = openDatabase({ url, pgPoolSize: 1 });
    await sql`create schema ${sql.id(schema)}`.execute(admin.db);
    const handle = openDatabase({ url, pgSchema: schema, pgPoolSize });
    await migrateToLatest(handle);
    return {
      handle,
      drop: async () => {
        await handle.close();
        if (keep) console.log(`kept schema ${schema}`);
        else await sql`drop schema ${sql.id(schema)} cascade`.execute(admin.db);
        await admin.close();
      },
    };
  }
  const file = join(tmpdir(), `cordon-bench-${name}-${process.pid}.db`);
  // CORDON_BENCH_SQLITE_CACHE_KIB: the connection's page cache (openDatabase's sqliteCacheKiB).
  const cacheKiB = process.env.CORDON_BENCH_SQLITE_CACHE_KIB;
  const handle = openDatabase({ sqlitePath: file, ...(cacheKiB ? { sqliteCacheKiB: Number(cacheKiB) } : {}) });
  await migrateToLatest(handle);
  return {
    handle,
    drop: async () => {
      await handle.close();
      if (keep) console.log(`kept ${file}`);
      else for (const f of [file, `${file}-wal`, `${file}-shm`]) rmSync(f, { force: true });
    },
  };
}
