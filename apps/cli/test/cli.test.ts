import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type CoreDeps, reports } from '@cordon/core';
import { MIGRATION_NAMES, openDatabase } from '@cordon/db';
import { describe, expect, it } from 'vitest';
import { runCordon } from '../../../e2e/support/cordon.ts';

const FIXTURE = fileURLToPath(new URL('../../../packages/feeds/test/fixtures/ut1', import.meta.url));

describe('cordon command', () => {
  it('migrates, then imports a UT1 directory idempotently', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cordon-cli-'));
    const env = { CORDON_DATA_DIR: dataDir };
    // --dry-run lists what would apply and applies nothing: the same list twice.
    for (let i = 0; i < 2; i++) {
      const dry = await runCordon(['migrate', '--dry-run'], env);
      expect(dry.code).toBe(0);
      expect(dry.output.join('\n')).toContain(`pending: ${MIGRATION_NAMES.join(', ')}`);
    }
    const migrate = await runCordon(['migrate'], env);
    expect(migrate.code).toBe(0);
    // Every migration, in order, on a fresh database; the first ones by name, so a dropped one is noticed.
    const applied = migrate.output
      .join('\n')
      .match(/^applied: (.*)$/m)?.[1]
      ?.split(', ');
    expect(applied).toEqual([...MIGRATION_NAMES]);
    expect(applied?.slice(0, 10)).toEqual([
      '0001_initial',
      '0002_address_claims',
      '0003_login_throttle',
      '0004_audit_log',
      '0005_domain_lists',
      '0006_static_routes',
      '0007_cloud_keys',
      '0008_default_policies',
      '0009_root_ca',
      '0010_blockpage_branding',
    ]);
    expect((await runCordon(['migrate'], env)).output).toContain('database is up to date');
    expect((await runCordon(['migrate', '--dry-run'], env)).output).toContain('database is up to date');

    for (let i = 0; i < 2; i++) {
      const result = await runCordon(['categories', 'import', '--format', 'ut1', FIXTURE], env);
      expect(result.code).toBe(0);
      expect(result.output.join('\n')).toMatch(/imported 7 domain categorisations from 4 UT1 lists/);
    }
    const handle = openDatabase({ sqlitePath: join(dataDir, 'cordon.sqlite') });
    try {
      const rows = await handle.db
        .selectFrom('category_domains')
        .select(['domain', 'category_id'])
        .orderBy('domain')
        .execute();
      expect(rows).toHaveLength(7);
      expect(rows).toContainEqual({ domain: 'bet-example.test', category_id: 20 });
      // The import tells running resolvers through the change feed.
      const version = await handle.db
        .selectFrom('settings')
        .select('value')
        .where('key', '=', 'version:categories')
        .executeTakeFirst();
      expect(version?.value).toMatch(/^\d+-[0-9a-f]{8}$/);
    } finally {
      await handle.close();
    }
  }, 60_000);

  it('imports a hosts file as one category, and refuses an unknown format, category or directory', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cordon-cli-'));
    const env = { CORDON_DATA_DIR: dataDir };
    const hosts = join(dataDir, 'ads.hosts');
    writeFileSync(hosts, '# ad servers\n0.0.0.0 ads.example tracker.example\n127.0.0.1 localhost\nnot-a-hosts-line\n');
    const imported = await runCordon(['categories', 'import', '--format', 'hosts', '--category', '20', hosts], env);
    expect(imported.code, imported.output.join('\n')).toBe(0);
    expect(imported.output.join('\n')).toContain('imported 2 names as Gambling from ads.hosts');
    const handle = openDatabase({ sqlitePath: join(dataDir, 'cordon.sqlite') });
    try {
      const rows = await handle.db
        .selectFrom('category_domains')
        .select(['domain', 'category_id', 'source'])
        .orderBy('domain')
        .execute();
      expect(rows).toEqual([
        { domain: 'ads.example', category_id: 20, source: 'file:ads.hosts' },
        { domain: 'tracker.example', category_id: 20, source: 'file:ads.hosts' },
      ]);
    } finally {
      await handle.close();
    }

    const noCategory = await runCordon(['categories', 'import', '--format', 'hosts', hosts], env);
    expect(noCategory.code).toBe(1);
    expect(noCategory.output.join('\n')).toContain('--category must be a Cordon category id');
    const badFormat = await runCordon(['categories', 'import', '--format', 'csv', FIXTURE], env);
    expect(badFormat.code).toBe(1);
    expect(badFormat.output.join('\n')).toContain(
      '--format csv is not supported; supported: ut1, domains, hosts, adblock',
    );
    const badDir = await runCordon(['categories', 'import', '--format', 'ut1', join(dataDir, 'nope')], env);
    expect(badDir.code).toBe(1);
    expect(badDir.output.join('\n')).toMatch(/is not a directory/);
  }, 60_000);

  it('sets and clears the Power BI embed address, refusing anything but https', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cordon-cli-'));
    const env = { CORDON_DATA_DIR: dataDir };
    const stored = async () => {
      const handle = openDatabase({ sqlitePath: join(dataDir, 'cordon.sqlite') });
      try {
        return (await reports.powerBiConfig({ handle } as CoreDeps)).embed_url;
      } finally {
        await handle.close();
      }
    };
    const set = await runCordon(['powerbi', 'set', 'https://app.powerbi.example/reportEmbed?groupId=g1'], env);
    expect(set.code, set.output.join('\n')).toBe(0);
    expect(set.output).toContain('Power BI embed set: https://app.powerbi.example/reportEmbed?groupId=g1');
    expect(await stored()).toBe('https://app.powerbi.example/reportEmbed?groupId=g1');
    // Refused without touching the stored address.
    for (const bad of ['javascript:alert(1)', 'http://app.powerbi.example/x', 'not a url']) {
      const refused = await runCordon(['powerbi', 'set', bad], env);
      expect(refused.code).toBe(1);
      expect(refused.output.join('\n')).toContain('The Power BI embed address must be an https:// URL.');
    }
    expect(await stored()).toBe('https://app.powerbi.example/reportEmbed?groupId=g1');
    const cleared = await runCordon(['powerbi', 'clear'], env);
    expect(cleared.code).toBe(0);
    expect(cleared.output).toContain('Power BI embed removed');
    expect(await stored()).toBeNull();
  }, 60_000);

  it('refuses a malformed setting with exit code 2, naming the flag and variable', async () => {
    const result = await runCordon(['serve'], { CORDON_DNS_ADDR: 'nonsense', CORDON_UPSTREAM: '127.0.0.1:53' });
    expect(result.code).toBe(2);
    expect(result.output.join('\n')).toContain('--dns-addr / CORDON_DNS_ADDR: expected host:port');
  }, 60_000);
});
