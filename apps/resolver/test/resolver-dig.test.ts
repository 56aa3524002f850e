import type { ChangeFeed, DatabaseHandle } from '@cordon/db';
import { createTestDatabase, testDialects } from '@cordon/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningResolver } from '../src/index.ts';
import { dig } from './helpers/dig.ts';
import type { FakeUpstream } from './helpers/fake-upstream.ts';
import { type Seeded, seedTenants } from './helpers/seed.ts';
import { type ResolverStack, startResolverStack, within } from './helpers/stack.ts';

describe.each(testDialects())('resolver over real sockets with dig (%s)', (dialect) => {
  let handle: DatabaseHandle;
  let changes: ChangeFeed;
  let upstream: FakeUpstream;
  let resolver: RunningResolver;
  let seeded: Seeded;
  let port: number;
  let stack: ResolverStack;

  beforeAll(async () => {
    handle = await createTestDatabase(dialect);
    seeded = await seedTenants(handle);
    stack = await startResolverStack(handle);
    ({ changes, upstream, resolver, port } = stack);
  });

  afterAll(async () => {
    await stack?.close();
    await handle?.close();
  });

  it('listens on the same port for UDP and TCP', () => {
    expect(resolver.address.tcp.port).toBe(port);
  });

  it('answers a blocked category name (and its subdomains) with the block address, TTL 60', async () => {
    const before = upstream.total();
    for (const name of ['gambling.example', 'www.Gambling.example']) {
      const r = await dig(port, name, 'A');
      expect(r.status).toBe('NOERROR');
      expect(r.flags).toContain('ra');
      expect(r.answers).toEqual([{ name: `${name}.`, ttl: 60, type: 'A', data: '127.0.0.1' }]);
    }
    expect(upstream.total()).toBe(before); // blocked names never reach the upstream
  });

  it('answers blocked AAAA with the IPv6 block address and blocked HTTPS with NODATA', async () => {
    const aaaa = await dig(port, 'gambling.example', 'AAAA');
    expect(aaaa.answers).toEqual([{ name: 'gambling.example.', ttl: 60, type: 'AAAA', data: '::1' }]);
    const https = await dig(port, 'gambling.example', 'TYPE65');
    expect(https.status).toBe('NOERROR');
    expect(https.answers).toEqual([]);
    const mx = await dig(port, 'mixed.example', 'MX');
    expect(mx.status).toBe('NOERROR');
    expect(mx.answers).toEqual([]);
  });

  it('echoes EDNS(0) only when the query had it', async () => {
    const withEdns = await dig(port, 'gambling.example', 'A');
    expect(withEdns.raw).toContain('OPT PSEUDOSECTION');
    const without = await dig(port, '+noedns', 'gambling.example', 'A');
    expect(without.raw).not.toContain('OPT PSEUDOSECTION');
    expect(without.answers[0]?.data).toBe('127.0.0.1');
  });

  it('forwards an allowed name upstream, then answers it from the cache', async () => {
    const first = await dig(port, 'ok.example', 'A');
    expect(first.status).toBe('NOERROR');
    expect(first.answers).toEqual([{ name: 'ok.example.', ttl: 300, type: 'A', data: '192.0.2.10' }]);
    expect(upstream.queries.get('ok.example')).toBe(1);
    const second = await dig(port, 'OK.example', 'A');
    expect(second.answers[0]?.data).toBe('192.0.2.10');
    expect(second.answers[0]?.name).toBe('OK.example.'); // the client's own question case
    expect(second.answers[0]!.ttl).toBeLessThanOrEqual(300);
    expect(upstream.queries.get('ok.example')).toBe(1);
    expect(resolver.metrics.cacheHits).toBeGreaterThanOrEqual(1);
  });

  it('allows a categorised name whose categories the policy does not block', async () => {
    const r = await dig(port, 'www.news.example', 'A');
    expect(r.answers[0]?.data).toBe('192.0.2.10');
  });

  it('relays NXDOMAIN and caches it by the SOA minimum', async () => {
    const r = await dig(port, 'nx.example', 'A');
    expect(r.status).toBe('NXDOMAIN');
    await dig(port, 'nx.example', 'A');
    expect(upstream.queries.get('nx.example')).toBe(1);
  });

  it('serves TCP, and falls back to TCP upstream when the UDP answer is truncated', async () => {
    const tcp = await dig(port, '+tcp', 'tcp.example', 'A');
    expect(tcp.answers[0]?.data).toBe('192.0.2.10');
    const big = await dig(port, 'big.example', 'A');
    expect(big.answers).toEqual([{ name: 'big.example.', ttl: 300, type: 'A', data: '192.0.2.20' }]);
    expect(resolver.metrics.upstream.tcpFallbacks).toBeGreaterThanOrEqual(1);
  });

  it('truncates a UDP answer larger than 512 bytes for a client without EDNS(0)', async () => {
    const truncated = await dig(port, '+noedns', '+ignore', 'many.example', 'A');
    expect(truncated.flags).toContain('tc');
    expect(truncated.answers).toEqual([]);
    const retried = await dig(port, '+noedns', 'many.example', 'A'); // dig retries over TCP on TC
    expect(retried.answers).toHaveLength(40);
    const edns = await dig(port, 'many.example', 'A'); // fits the 1232 bytes we allow with EDNS(0)
    expect(edns.flags).not.toContain('tc');
    expect(edns.answers).toHaveLength(40);
  });

  it('refuses a client that matches no location address', async () => {
    const r = await dig(port, '-b', '127.0.0.2', 'ok.example', 'A');
    expect(r.status).toBe('REFUSED');
    expect(r.answers).toEqual([]);
    expect(resolver.metrics.unknownClients).toBeGreaterThanOrEqual(1);
  });

  it('applies each tenant its own policy through the one shared cache', async () => {
    const r = await dig(port, '-b', '127.0.0.3', 'gambling.example', 'A');
    expect(r.answers[0]?.data).toBe('192.0.2.10');
    const again = await dig(port, 'gambling.example', 'A');
    expect(again.answers[0]?.data).toBe('127.0.0.1');
  });

  it('answers SERVFAIL when no upstream answers and nothing is cached', async () => {
    const r = await dig(port, 'fail.example', 'A');
    expect(r.status).toBe('SERVFAIL');
  });

  it('enforces a policy change within one second of publish', async () => {
    await handle.db
      .deleteFrom('policy_categories')
      .where('policy_id', '=', seeded.defaultPolicyId)
      .where('category_id', '=', 20)
      .execute();
    await changes.publish('policies');
    await within(1000, async () => (await dig(port, 'gambling.example', 'A')).answers[0]?.data === '192.0.2.10');

    await handle.db
      .updateTable('policies')
      .set({ allow_unclassified: 0 })
      .where('id', '=', seeded.defaultPolicyId)
      .execute();
    await changes.publish('policies');
    await within(1000, async () => (await dig(port, 'unlisted.example', 'A')).answers[0]?.data === '127.0.0.1');
  });

  it('enforces a new category fact within one second of publish', async () => {
    await handle.db
      .insertInto('category_domains')
      .values({ domain: 'casino.example', category_id: 9, source: 'test' })
      .execute();
    await changes.publish('categories');
    await within(1000, async () => (await dig(port, 'play.casino.example', 'A')).answers[0]?.data === '127.0.0.1');
  });

  it('writes one query-log row per query with the right action, reason and source', async () => {
    await within(2000, async () => {
      const n = await handle.db
        .selectFrom('query_log')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      // Every query of a known client has been written (unknown clients are never logged).
      const m = resolver.metrics;
      return Number(n.n) >= m.queries - m.unknownClients;
    });
    const rows = await handle.db.selectFrom('query_log').selectAll().orderBy('id').execute();
    const blocked = rows.find((r) => r.qname === 'www.gambling.example');
    expect(blocked).toMatchObject({
      customer_id: seeded.customerId,
      location_id: seeded.locationId,
      policy_id: seeded.defaultPolicyId,
      client_ip: '127.0.0.1',
      qtype: 'A',
      protocol: 'udp',
      action: 'blocked',
      reason: 'category',
      categories: '20',
      rcode: 'NOERROR',
      answer_source: 'synthesized',
    });
    expect(rows.find((r) => r.qname === 'gambling.example' && r.qtype === 'HTTPS')?.action).toBe('blocked');
    const ok = rows.filter((r) => r.qname === 'ok.example').map((r) => [r.action, r.reason, r.answer_source]);
    expect(ok).toEqual([
      ['allowed', 'default', 'upstream'],
      ['allowed', 'default', 'cache'],
    ]);
    expect(rows.find((r) => r.qname === 'www.news.example')).toMatchObject({ action: 'allowed', categories: '39' });
    expect(rows.find((r) => r.qname === 'nx.example')?.rcode).toBe('NXDOMAIN');
    expect(rows.find((r) => r.qname === 'tcp.example')?.protocol).toBe('tcp');
    expect(rows.find((r) => r.qname === 'fail.example')).toMatchObject({ rcode: 'SERVFAIL', answer_source: 'error' });
    expect(rows.find((r) => r.qname === 'unlisted.example' && r.action === 'blocked')?.reason).toBe('unclassified');
    expect(rows.find((r) => r.client_ip === '127.0.0.3')?.customer_id).toBe(seeded.otherCustomerId);
    expect(rows.some((r) => r.client_ip === '127.0.0.2')).toBe(false); // unknown clients: counted, not logged
    expect(rows.every((r) => r.latency_us >= 0 && r.ts > 0)).toBe(true);
  });
});
