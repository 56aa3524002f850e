import type { ChangeFeed, DatabaseHandle } from '@cordon/db';
import { createTestDatabase, testDialects } from '@cordon/db/testing';
import { SAFE_SEARCH_ENGINES, safeSearchTarget } from '@cordon/policy';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dig } from './helpers/dig.ts';
import type { FakeUpstream } from './helpers/fake-upstream.ts';
import { type Seeded, seedTenants } from './helpers/seed.ts';
import { type ResolverStack, startResolverStack, within } from './helpers/stack.ts';

describe('the safe-search host list', () => {
  it('maps each engine to its documented safe-search host, lower case, without duplicates', () => {
    expect(safeSearchTarget('www.google.com')).toBe('forcesafesearch.google.com');
    expect(safeSearchTarget('www.google.co.uk')).toBe('forcesafesearch.google.com');
    expect(safeSearchTarget('www.bing.com')).toBe('strict.bing.com');
    expect(safeSearchTarget('m.youtube.com')).toBe('restrict.youtube.com');
    expect(safeSearchTarget('duckduckgo.com')).toBe('safe.duckduckgo.com');
    expect(safeSearchTarget('images.example.com')).toBeUndefined();
    expect(safeSearchTarget('forcesafesearch.google.com')).toBeUndefined();
    const hosts = SAFE_SEARCH_ENGINES.flatMap((e) => e.hosts);
    expect(new Set(hosts).size).toBe(hosts.length);
    for (const h of hosts) expect(h).toBe(h.toLowerCase().replace(/\.$/, ''));
    for (const e of SAFE_SEARCH_ENGINES) expect(e.source.length).toBeGreaterThan(10);
  });
});

describe.each(testDialects())('safe search over real sockets with dig (%s)', (dialect) => {
  let handle: DatabaseHandle;
  let changes: ChangeFeed;
  let upstream: FakeUpstream;
  let seeded: Seeded;
  let port: number;
  let stack: ResolverStack;

  beforeAll(async () => {
    handle = await createTestDatabase(dialect);
    seeded = await seedTenants(handle);
    stack = await startResolverStack(handle);
    ({ changes, upstream, port } = stack);
  });

  afterAll(async () => {
    await stack?.close();
    await handle?.close();
  });

  it('answers search hosts with the safe-search CNAME and its address once the policy turns it on', async () => {
    const off = await dig(port, 'www.google.com', 'A');
    expect(off.answers).toEqual([{ name: 'www.google.com.', ttl: 300, type: 'A', data: '192.0.2.10' }]);

    await handle.db.updateTable('policies').set({ safe_search: 1 }).where('id', '=', seeded.defaultPolicyId).execute();
    await changes.publish('policies');
    const ms = await within(1000, async () => (await dig(port, 'www.google.com', 'A')).answers[0]?.type === 'CNAME');
    expect(ms).toBeLessThan(1000);

    const google = await dig(port, 'www.Google.com', 'A');
    expect(google.status).toBe('NOERROR');
    expect(google.answers).toEqual([
      { name: 'www.Google.com.', ttl: 60, type: 'CNAME', data: 'forcesafesearch.google.com.' },
      { name: 'forcesafesearch.google.com.', ttl: expect.any(Number), type: 'A', data: '192.0.2.10' },
    ]);
    // The target was resolved through the upstream under its own name.
    expect(upstream.queries.get('forcesafesearch.google.com')).toBeGreaterThanOrEqual(1);

    const bing = await dig(port, '+tcp', 'www.bing.com', 'AAAA');
    expect(bing.answers).toEqual([
      { name: 'www.bing.com.', ttl: 60, type: 'CNAME', data: 'strict.bing.com.' },
      { name: 'strict.bing.com.', ttl: expect.any(Number), type: 'AAAA', data: '2001:db8::10' },
    ]);
    const youtube = await dig(port, 'www.youtube.com', 'A');
    expect(youtube.answers.map((a) => [a.type, a.data])).toEqual([
      ['CNAME', 'restrict.youtube.com.'],
      ['A', '192.0.2.10'],
    ]);
    const ddg = await dig(port, 'duckduckgo.com', 'CNAME');
    expect(ddg.answers).toEqual([{ name: 'duckduckgo.com.', ttl: 60, type: 'CNAME', data: 'safe.duckduckgo.com.' }]);
    // Other names and blocked names are untouched.
    expect((await dig(port, 'news.example', 'A')).answers).toEqual([
      { name: 'news.example.', ttl: expect.any(Number), type: 'A', data: '192.0.2.10' },
    ]);
    expect((await dig(port, 'gambling.example', 'A')).answers).toEqual([
      { name: 'gambling.example.', ttl: 60, type: 'A', data: '127.0.0.1' },
    ]);
    // Another customer's policy has safe search off: its clients get the plain answer.
    const beta = await dig(port, '-b', '127.0.0.3', 'www.google.com', 'A');
    expect(beta.answers).toEqual([{ name: 'www.google.com.', ttl: expect.any(Number), type: 'A', data: '192.0.2.10' }]);
  });
});
