import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DATA_PLANE_SQLITE_CACHE_KIB, openDatabase } from '../src/index.ts';

const cacheSizeOf = (handle: ReturnType<typeof openDatabase>) =>
  (handle.sqlite!.pragma('cache_size') as Array<{ cache_size: number }>)[0]!.cache_size;

// The data plane's connections keep a small page cache (bench/README.md "Resolver memory").
describe('openDatabase sqliteCacheKiB', () => {
  it('keeps better-sqlite3’s 16,000 KiB by default and sets the page cache in KiB when asked', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'cordon-cache-')), 'cordon.sqlite');
    const plain = openDatabase({ sqlitePath: file });
    const small = openDatabase({ sqlitePath: file, sqliteCacheKiB: DATA_PLANE_SQLITE_CACHE_KIB });
    try {
      expect(cacheSizeOf(plain)).toBe(-16_000);
      expect(cacheSizeOf(small)).toBe(-2_000);
    } finally {
      await plain.close();
      await small.close();
    }
  });

  it.each([0, -5, 1.5, Number.NaN])('refuses a cache of %s KiB with a RangeError and creates nothing', (kib) => {
    const dir = join(mkdtempSync(join(tmpdir(), 'cordon-cache-')), 'data');
    expect(() => openDatabase({ sqlitePath: join(dir, 'cordon.sqlite'), sqliteCacheKiB: kib })).toThrow(
      /sqliteCacheKiB must be a whole number of KiB from 1/,
    );
    expect(existsSync(dir)).toBe(false);
  });
});
