import type { ChangeFeed, DatabaseHandle } from '@cordon/db';
import { createTestDatabase, testDialects } from '@cordon/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningResolver } from '../src/index.ts';
import { dig } from './helpers/dig.ts';
import { type FakeUpstream, startFakeUpstream } from './helpers/fake-upstream.ts';
import { type Seeded, seedTenants } from './helpers/seed.ts';
import { type ResolverStack, startResolverStack, within } from './helpers/stack.ts';

/**
 * Static routes over real sockets (docs/architecture.md "Decision order" step 2): two fake upstreams
 * on loopback, the configured one and a customer's internal resolver; names under the route go to
 * the second only, everything else to the first, and route changes apply within a second.
 */
describe.each(testDialects())('static routes with dig (%s)', (dialect) => {
  let handle: DatabaseHandle;
  let changes: ChangeFeed;
  let main: FakeUpstream;
  let corp: FakeUpstream;
  let resolver: RunningResolver;
  let seeded: Seeded;
  let port: number;
  let stack: ResolverStack;

  const addRoute = async (domain: string, target: FakeUpstream) => {
    const at = new Date().toISOString();
    const row = await handle.db
      .insertInto('static_routes')
      .values({
        customer_id: seeded.customerId,
        domain,
        resolver_ip: '127.0.0.1',
        resolver_port: target.port,
        description: '',
        created_at: at,
        updated_at: at,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await changes.publish('staticroutes');
    return row.id;
  };

  beforeAll(async () => {
    handle = await createTestDatabase(dialect);
    seeded = await seedTenants(handle);
    corp = await startFakeUpstream();
    await handle.db
      .insertInto('category_domains')
      .values({ domain: 'casino.corp.example', category_id: 20, source: 'test' })
      .execute();
    stack = await startResolverStack(handle);
    ({ changes, resolver, port, upstream: main } = stack);
    await addRoute('corp.example', corp);
    await within(1000, async () => resolver.snapshot.staticRoutes.size === 1);
  });

  afterAll(async () => {
    await stack?.close();
    await corp?.close();
    await handle?.close();
  });

  it("answers a name under the customer's route from its resolver and other names from the upstream", async () => {
    const routed = await dig(port, 'a.corp.example', 'A');
    expect(routed.status).toBe('NOERROR');
    expect(routed.answers).toEqual([{ name: 'a.corp.example.', ttl: 300, type: 'A', data: '192.0.2.10' }]);
    expect(corp.queries.get('a.corp.example')).toBe(1);
    expect(main.queries.get('a.corp.example')).toBeUndefined();
    // The suffix itself, over TCP too.
    await dig(port, '+tcp', 'Corp.Example', 'AAAA');
    expect(corp.queries.get('corp.example')).toBe(1);

    await dig(port, 'www.example.org', 'A');
    await dig(port, 'corp.example.org', 'A');
    expect(main.queries.get('www.example.org')).toBe(1);
    expect(main.queries.get('corp.example.org')).toBe(1);
    expect(corp.queries.get('www.example.org')).toBeUndefined();
  });

  it("never caches a routed answer, and another customer's clients use the upstream", async () => {
    await dig(port, 'b.corp.example', 'A');
    await dig(port, 'b.corp.example', 'A');
    expect(corp.queries.get('b.corp.example')).toBe(2);
    // Beta (127.0.0.3) has no route: its answer comes from the upstream and does not reach Acme's.
    const other = await dig(port, '-b', '127.0.0.3', 'c.corp.example', 'A');
    expect(other.answers[0]?.data).toBe('192.0.2.10');
    expect(main.queries.get('c.corp.example')).toBe(1);
    await dig(port, 'c.corp.example', 'A');
    expect(corp.queries.get('c.corp.example')).toBe(1);
  });

  it('forwards before the policy (step 2 precedes categories)', async () => {
    const r = await dig(port, 'casino.corp.example', 'A');
    expect(r.answers[0]?.data).toBe('192.0.2.10');
    expect(corp.queries.get('casino.corp.example')).toBe(1);
  });

  it('answers SERVFAIL when the route resolver is down, never falling back to the upstream', async () => {
    corp.setDown(true);
    try {
      const r = await dig(port, 'down.corp.example', 'A');
      expect(r.status).toBe('SERVFAIL');
      expect(main.queries.get('down.corp.example')).toBeUndefined();
    } finally {
      corp.setDown(false);
    }
  });

  it('applies a new route and a removed route within a second', async () => {
    const id = await addRoute('lab.example', corp);
    const added = await within(1000, async () => {
      const before = corp.queries.get('x.lab.example') ?? 0;
      await dig(port, 'x.lab.example', 'A');
      return (corp.queries.get('x.lab.example') ?? 0) > before;
    });
    expect(added).toBeLessThan(1000);
    await handle.db.deleteFrom('static_routes').where('id', '=', id).execute();
    await changes.publish('staticroutes');
    const removed = await within(1000, async () => {
      const before = main.queries.get('y.lab.example') ?? 0;
      await dig(port, 'y.lab.example', 'A');
      return (main.queries.get('y.lab.example') ?? 0) > before;
    });
    expect(removed).toBeLessThan(1000);
  });

  it('logs routed queries with reason static_route', async () => {
    await within(2000, async () => {
      const row = await handle.db
        .selectFrom('query_log')
        .select('reason')
        .where('qname', '=', 'a.corp.example')
        .executeTakeFirst();
      return row !== undefined;
    });
    const row = await handle.db
      .selectFrom('query_log')
      .selectAll()
      .where('qname', '=', 'a.corp.example')
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ customer_id: seeded.customerId, action: 'allowed', reason: 'static_route' });
  });
});
