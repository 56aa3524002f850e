import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createTestDatabase, testDialects } from '@cordon/db/testing';
import { describe, expect, it } from 'vitest';
import { parseDomainLine } from '../src/entries.ts';
import { loadUt1Mapping, parseMapping } from '../src/mapping.ts';
import { importUt1Directory, scanUt1Directory } from '../src/ut1.ts';

const FIXTURE = fileURLToPath(new URL('./fixtures/ut1', import.meta.url));
const SHARED_UT1 = fileURLToPath(new URL('../../../../shared/data/categories/ut1', import.meta.url));

describe('UT1 mapping', () => {
  it('maps every category of the shared UT1 snapshot, or says why it skips it', () => {
    const mapping = loadUt1Mapping();
    expect(mapping.get('gambling')).toEqual([20]);
    expect(mapping.get('doh')).toEqual([12]);
    expect(mapping.get('liste_blanche')).toEqual([]);
    const dir = existsSync(SHARED_UT1) ? SHARED_UT1 : FIXTURE;
    const scan = scanUt1Directory(dir, mapping);
    const unmapped = scan.skipped.filter((s) => s.why === 'not in the mapping').map((s) => s.category);
    expect(unmapped).toEqual(dir === FIXTURE ? ['unknown_list'] : []);
  });

  it('refuses a mapping to an unknown Cordon id, naming the line', () => {
    expect(() => parseMapping('# c\ngambling\t20\tok\ngames\t41\tunused id\n')).toThrow(/mapping line 3/);
    expect(() => parseMapping('a\t1\nx\na\t2\n')).toThrow(/line 2/);
  });
});

describe('parseDomainLine', () => {
  it('classifies UT1 lines', () => {
    expect(parseDomainLine('Example.COM')).toEqual({ kind: 'domain', name: 'example.com' });
    expect(parseDomainLine('.afshin.ir')).toEqual({ kind: 'domain', name: 'afshin.ir' });
    expect(parseDomainLine('..Bücher.Example.')).toEqual({ kind: 'domain', name: 'xn--bcher-kva.example' });
    expect(parseDomainLine('192.0.2.1')).toEqual({ kind: 'ip' });
    expect(parseDomainLine('  # comment')).toEqual({ kind: 'blank' });
    expect(parseDomainLine('http://x.test/path')).toEqual({ kind: 'invalid', text: 'http://x.test/path' });
  });
});

describe.each(testDialects())('UT1 import on %s', (dialect) => {
  it('imports the fixture, dedupes shared facts and is idempotent', async () => {
    const handle = await createTestDatabase(dialect);
    try {
      const progress: number[] = [];
      const first = await importUt1Directory(handle, FIXTURE, { onProgress: (p) => progress.push(p.bytesDone) });
      // gambling 3 + arjel 2 (fdj.fr twice in category 20 → once) + malware 1 + dynamic-dns 2
      expect(first.rows).toBe(7);
      expect(first.ipEntries).toBe(1);
      expect(first.invalidEntries).toBe(1);
      expect(first.skipped.map((s) => s.category).sort()).toEqual(['liste_blanche', 'unknown_list']);
      expect(progress.length).toBeGreaterThan(0);
      const fdj = await handle.db.selectFrom('category_domains').selectAll().where('domain', '=', 'fdj.fr').execute();
      expect(fdj).toEqual([{ domain: 'fdj.fr', category_id: 20, source: 'ut1' }]);

      const again = await importUt1Directory(handle, FIXTURE);
      expect(again.rows).toBe(first.rows);
      const all = await handle.db.selectFrom('category_domains').select('domain').execute();
      expect(all).toHaveLength(7);
    } finally {
      await handle.close();
    }
  });

  it('changes nothing when the directory is not a UT1 directory', async () => {
    const handle = await createTestDatabase(dialect);
    try {
      await importUt1Directory(handle, FIXTURE);
      await expect(importUt1Directory(handle, '/nonexistent/ut1')).rejects.toThrow(/not a directory/);
      const all = await handle.db.selectFrom('category_domains').select('domain').execute();
      expect(all).toHaveLength(7);
    } finally {
      await handle.close();
    }
  });
});

describe.runIf(existsSync(SHARED_UT1))('UT1 import of the shared snapshot', () => {
  it('stores every mapped list entry that is a name', async () => {
    const handle = await createTestDatabase('sqlite');
    try {
      const report = await importUt1Directory(handle, SHARED_UT1);
      const manifest = readFileSync(`${SHARED_UT1}/MANIFEST.tsv`, 'utf8').trim().split('\n').slice(1);
      const mapping = loadUt1Mapping();
      for (const line of manifest) {
        const [category, kept] = line.split('\t');
        if ((mapping.get(category ?? '') ?? []).length === 0) continue;
        // Each list's lines are names, IPv4 literals or invalid; every one is accounted for.
        expect(report.perCategory[category ?? ''], category).toBeLessThanOrEqual(Number(kept));
      }
      const listed = Object.values(report.perCategory).reduce((a, b) => a + b, 0);
      expect(listed + report.ipEntries + report.invalidEntries).toBeGreaterThan(780_000);
      const gambling = await handle.db
        .selectFrom('category_domains')
        .select('category_id')
        .where('domain', '=', readFileSync(`${SHARED_UT1}/gambling/domains`, 'utf8').split('\n')[0] ?? '')
        .execute();
      expect(gambling.map((r) => r.category_id)).toContain(20);
    } finally {
      await handle.close();
    }
  }, 180_000);
});
