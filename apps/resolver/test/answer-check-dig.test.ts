import type { DatabaseHandle } from '@cordon/db';
import { createTestDatabase, testDialects } from '@cordon/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChainUpstream, httpsRdata, startChainUpstream } from './helpers/chain-upstream.ts';
import { dig } from './helpers/dig.ts';
import { type Seeded, seedTenants } from './helpers/seed.ts';
import { type ResolverStack, startResolverStack, within } from './helpers/stack.ts';

/**
 * CNAME and DNAME cloaking (docs/architecture.md "Answer check"): an allowed qname whose upstream
 * answer leads to a blocked name gets the block answer, per client policy, from a fresh and a
 * cached answer alike. The upstream is a scripted recursive resolver returning whole chains.
 * Acme (127.0.0.1) blocks Gambling (gambling.example); Beta (127.0.0.3) blocks nothing.
 */
describe.each(testDialects())('answer check over real sockets with dig (%s)', (dialect) => {
  let handle: DatabaseHandle;
  let seeded: Seeded;
  let chain: ChainUpstream;
  let stack: ResolverStack;
  let port: number;

  beforeAll(async () => {
    handle = await createTestDatabase(dialect);
    seeded = await seedTenants(handle);
    const now = new Date().toISOString();
    // An explicit allow entry for one cloaked qname: it wins over the answer's blocked alias.
    await handle.db
      .insertInto('policy_domains')
      .values({
        policy_id: seeded.defaultPolicyId,
        customer_id: seeded.customerId,
        domain: 'allowed-cloak.example',
        action: 'allow',
        include_subdomains: 0,
        comment: '',
        log_requests: 1,
        created_at: now,
        updated_at: now,
      })
      .execute();
    chain = await startChainUpstream([
      { name: 'cloak.example', type: 'CNAME', class: 'IN', ttl: 300, data: 'gambling.example' },
      { name: 'allowed-cloak.example', type: 'CNAME', class: 'IN', ttl: 300, data: 'gambling.example' },
      { name: 'gambling.example', type: 'A', class: 'IN', ttl: 300, data: '192.0.2.66' },
      { name: 'chain.example', type: 'CNAME', class: 'IN', ttl: 300, data: 'hop.example' },
      { name: 'hop.example', type: 'CNAME', class: 'IN', ttl: 300, data: 'www.gambling.example' },
      { name: 'www.gambling.example', type: 'CNAME', class: 'IN', ttl: 300, data: 'edge.cdn.example' },
      { name: 'edge.cdn.example', type: 'A', class: 'IN', ttl: 300, data: '192.0.2.67' },
      { name: 'dname.example', type: 'DNAME', class: 'IN', ttl: 300, data: 'gambling.example' },
      { name: 'x.gambling.example', type: 'A', class: 'IN', ttl: 300, data: '192.0.2.68' },
      { name: 'svc.example', type: 'UNKNOWN_65', class: 'IN', ttl: 300, data: httpsRdata(1, 'gambling.example') },
      { name: 'clean.example', type: 'CNAME', class: 'IN', ttl: 300, data: 'edge.cdn.example' },
    ] as never);
    stack = await startResolverStack(handle, { upstreams: [{ host: '127.0.0.1', port: chain.port }] });
    port = stack.port;
  });

  afterAll(async () => {
    await stack?.close();
    await chain?.close();
    await handle?.close();
  });

  const blockedA = (name: string) => [{ name: `${name}.`, ttl: 60, type: 'A', data: '127.0.0.1' }];

  it('blocks a CNAME to a blocked name for the customer that blocks it, and serves the same cached answer to one that does not', async () => {
    const acme = await dig(port, 'cloak.example', 'A');
    expect(acme.status).toBe('NOERROR');
    expect(acme.answers).toEqual(blockedA('cloak.example'));
    const beta = await dig(port, '-b', '127.0.0.3', 'cloak.example', 'A');
    expect(beta.answers).toEqual([
      { name: 'cloak.example.', ttl: expect.any(Number), type: 'CNAME', data: 'gambling.example.' },
      { name: 'gambling.example.', ttl: expect.any(Number), type: 'A', data: '192.0.2.66' },
    ]);
    // From the shared cache now: still blocked for Acme, still allowed for Beta.
    const hits = stack.resolver.metrics.cacheHits;
    expect((await dig(port, 'Cloak.Example', 'A')).answers).toEqual(blockedA('Cloak.Example'));
    expect((await dig(port, '-b', '127.0.0.3', 'cloak.example', 'A')).answers[1]?.data).toBe('192.0.2.66');
    expect(stack.resolver.metrics.cacheHits).toBe(hits + 2);
    expect(chain.received.filter((q) => q.name === 'cloak.example')).toHaveLength(1);
  });

  it('blocks a chain with the blocked name in the middle', async () => {
    const r = await dig(port, 'chain.example', 'A');
    expect(r.answers).toEqual(blockedA('chain.example'));
    const beta = await dig(port, '-b', '127.0.0.3', 'chain.example', 'A');
    expect(beta.answers.map((a) => a.type)).toEqual(['CNAME', 'CNAME', 'CNAME', 'A']);
  });

  it('blocks a DNAME onto a blocked domain', async () => {
    const r = await dig(port, 'x.dname.example', 'A');
    expect(r.answers).toEqual(blockedA('x.dname.example'));
    const beta = await dig(port, '-b', '127.0.0.3', 'x.dname.example', 'A');
    expect(beta.answers.map((a) => a.type)).toEqual(['DNAME', 'CNAME', 'A']);
  });

  it('blocks an HTTPS record whose target is blocked (NODATA with the synthetic SOA)', async () => {
    const r = await dig(port, 'svc.example', 'TYPE65');
    expect(r.status).toBe('NOERROR');
    expect(r.answers).toEqual([]);
    expect(r.raw).toMatch(/svc\.example\.\s+60\s+IN\s+SOA\s+blocked\.cordon\.invalid\. hostmaster\.cordon\.invalid\./);
    const beta = await dig(port, '-b', '127.0.0.3', 'svc.example', 'TYPE65');
    expect(beta.answers).toHaveLength(1);
  });

  it('lets an explicit allow entry for the qname win over a blocked alias', async () => {
    const r = await dig(port, 'allowed-cloak.example', 'A');
    expect(r.answers.map((a) => a.data)).toEqual(['gambling.example.', '192.0.2.66']);
  });

  it('leaves an allowed chain alone', async () => {
    const r = await dig(port, 'clean.example', 'A');
    expect(r.answers.map((a) => a.data)).toEqual(['edge.cdn.example.', '192.0.2.67']);
  });

  it('logs the cloaked query as blocked by the category of the name that matched, with that name', async () => {
    const rows = async () =>
      handle.db
        .selectFrom('query_log')
        .select(['qname', 'action', 'reason', 'categories', 'matched_name', 'client_ip'])
        .where('qname', 'in', ['cloak.example', 'chain.example', 'x.dname.example', 'clean.example'])
        .where('customer_id', '=', seeded.customerId)
        .execute();
    await within(5000, async () => (await rows()).length >= 5);
    const logged = await rows();
    expect(logged.filter((r) => r.qname === 'cloak.example')[0]).toMatchObject({
      action: 'blocked',
      reason: 'category',
      categories: '20',
      matched_name: 'gambling.example',
    });
    expect(logged.find((r) => r.qname === 'chain.example')).toMatchObject({
      action: 'blocked',
      matched_name: 'www.gambling.example',
    });
    expect(logged.find((r) => r.qname === 'x.dname.example')).toMatchObject({ action: 'blocked' });
    expect(logged.find((r) => r.qname === 'clean.example')).toMatchObject({ action: 'allowed', matched_name: '' });
    expect(stack.resolver.metrics.blockedByAlias).toBeGreaterThanOrEqual(4);
  });

  it('says why in an Extended DNS Error: 17 Filtered with the category and the alias', async () => {
    const r = await dig(port, 'cloak.example', 'A');
    expect(r.raw).toMatch(/EDE: 17 \(Filtered\): \(Cordon: category Gambling; policy \d+; via gambling\.example\)/);
    const direct = await dig(port, 'gambling.example', 'A');
    expect(direct.raw).toMatch(/EDE: 17 \(Filtered\): \(Cordon: category Gambling; policy \d+\)/);
  });
});
