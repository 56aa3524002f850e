import { createTestDatabase, testDialects } from '@cordon/db/testing';
import { describe, expect, it } from 'vitest';
import { importFeedLines, parseFeedLine } from '../src/formats.ts';

describe('parseFeedLine', () => {
  it('reads hosts files: any address, several names, comments, and never the machine itself', () => {
    expect(parseFeedLine('hosts', '0.0.0.0 Ads.Example.com tracker.example # two')).toEqual([
      { kind: 'domain', name: 'ads.example.com' },
      { kind: 'domain', name: 'tracker.example' },
    ]);
    expect(parseFeedLine('hosts', '127.0.0.1\tlocalhost')).toEqual([{ kind: 'blank' }]);
    expect(parseFeedLine('hosts', ':: ip6-localhost ip6-loopback')).toEqual([{ kind: 'blank' }]);
    expect(parseFeedLine('hosts', '# only a comment')).toEqual([{ kind: 'blank' }]);
    expect(parseFeedLine('hosts', 'ads.example.com')).toEqual([{ kind: 'invalid', text: 'ads.example.com' }]);
    expect(parseFeedLine('hosts', '0.0.0.0 bad_name!')).toEqual([{ kind: 'invalid', text: 'bad_name!' }]);
  });

  it('takes only whole-domain AdBlock blocks, refusing rules a DNS filter cannot apply', () => {
    expect(parseFeedLine('adblock', '||Ads.Example.com^')).toEqual([{ kind: 'domain', name: 'ads.example.com' }]);
    expect(parseFeedLine('adblock', '||tracker.example^$third-party,important')).toEqual([
      { kind: 'domain', name: 'tracker.example' },
    ]);
    for (const line of ['! comment', '[Adblock Plus 2.0]', '']) {
      expect(parseFeedLine('adblock', line)).toEqual([{ kind: 'blank' }]);
    }
    for (const line of [
      '@@||allowed.example^',
      '||example.com/ads/*',
      '||cdn.example^$script',
      'example.com##.banner',
      '/banner[0-9]+/',
      '||*.example^',
    ]) {
      expect(parseFeedLine('adblock', line), line).toEqual([{ kind: 'unsupported', text: line }]);
    }
    expect(parseFeedLine('adblock', '||192.0.2.1^')).toEqual([{ kind: 'ip' }]);
  });

  it('reads plain lists like UT1 files', () => {
    expect(parseFeedLine('domains', '.Casino.example # comment')).toEqual([{ kind: 'domain', name: 'casino.example' }]);
    expect(parseFeedLine('domains', '192.0.2.7')).toEqual([{ kind: 'ip' }]);
  });
});

describe.each(testDialects())('importFeedLines on %s', (dialect) => {
  it('replaces the source rows in one go, once per name, counting what it skipped', async () => {
    const handle = await createTestDatabase(dialect);
    try {
      const source = 'feed:1';
      const first = await importFeedLines(
        handle,
        ['0.0.0.0 a.example b.example', '0.0.0.0 a.example', '127.0.0.1 localhost', 'garbage'],
        { format: 'hosts', categoryIds: [20], source },
      );
      expect(first).toMatchObject({ source, rows: 2, invalidEntries: 1, ipEntries: 0, examples: ['garbage'] });
      const rows = () =>
        handle.db
          .selectFrom('category_domains')
          .select(['domain', 'category_id'])
          .where('source', '=', source)
          .orderBy('domain')
          .execute();
      expect(await rows()).toEqual([
        { domain: 'a.example', category_id: 20 },
        { domain: 'b.example', category_id: 20 },
      ]);
      // A second run replaces the first: b.example is gone, c.example arrives; other sources untouched.
      await handle.db
        .insertInto('category_domains')
        .values({ domain: 'b.example', category_id: 6, source: 'ut1' })
        .execute();
      const second = await importFeedLines(handle, ['||a.example^', '||c.example^', '@@||x.example^'], {
        format: 'adblock',
        categoryIds: [20],
        source,
      });
      expect(second).toMatchObject({ rows: 2, unsupportedEntries: 1 });
      expect(await rows()).toEqual([
        { domain: 'a.example', category_id: 20 },
        { domain: 'c.example', category_id: 20 },
      ]);
      expect(
        await handle.db.selectFrom('category_domains').select('domain').where('source', '=', 'ut1').execute(),
      ).toEqual([{ domain: 'b.example' }]);
      await expect(
        importFeedLines(handle, ['x.example'], { format: 'domains', categoryIds: [], source }),
      ).rejects.toThrow(/at least one category/);
    } finally {
      await handle.close();
    }
  });
});
