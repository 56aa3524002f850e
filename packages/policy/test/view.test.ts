import type { DatabaseHandle } from '@cordon/db';
import { createTestDatabase, testDialects } from '@cordon/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decideForTool, loadCustomerView } from '../src/index.ts';

const GAMBLING = 20;
const NEWS = 39;

/**
 * One customer's view (docs/architecture.md "Test-categorisation tool"): customer 1 (MSP 9, policy
 * 11 blocking Gambling) beside customer 2 (MSP 10, policy 12), each with lists, global lists and a
 * static route of its own; `casino.example` recategorised as News over its feed rows.
 */
describe.each(testDialects())('the customer view of the tool on %s', (dialect) => {
  let handle: DatabaseHandle;
  const now = new Date().toISOString();
  const stamps = { created_at: now, updated_at: now };
  const ask = (domain: string, policyId: number | null = 11) =>
    decideForTool(handle, { domain, customerId: 1, mspId: 9, policyId }, Date.now());

  beforeAll(async () => {
    handle = await createTestDatabase(dialect);
    const db = handle.db;
    for (const id of [9, 10])
      await db
        .insertInto('msps')
        .values({ id, name: `m${id}`, company_name: 'M', license: '', timezone: 'UTC', ...stamps })
        .execute();
    for (const [id, msp] of [
      [1, 9],
      [2, 10],
    ] as const)
      await db
        .insertInto('customers')
        .values({ id, msp_id: msp, account_name: `c${id}`, uuid_str: `c${id}`, timezone: 'UTC', ...stamps })
        .execute();
    for (const [id, customer] of [
      [11, 1],
      [12, 2],
    ] as const)
      await db
        .insertInto('policies')
        .values({
          id,
          customer_id: customer,
          name: `p${id}`,
          description: '',
          level: 'custom',
          is_default: 1,
          allow_unclassified: 1,
          ...stamps,
        })
        .execute();
    await db.insertInto('policy_categories').values({ policy_id: 11, customer_id: 1, category_id: GAMBLING }).execute();
    const entry = { include_subdomains: 1, comment: '', log_requests: 0, ...stamps };
    await db
      .insertInto('policy_domains')
      .values([
        { policy_id: 11, customer_id: 1, domain: 'ok.example', action: 'allow', ...entry },
        { policy_id: 12, customer_id: 2, domain: 'news.example', action: 'block', ...entry },
      ])
      .execute();
    await db
      .insertInto('global_domains')
      .values([
        { msp_id: 9, domain: 'msp9.example', action: 'block', ...entry },
        { msp_id: 10, domain: 'msp10.example', action: 'block', ...entry },
        { msp_id: null, domain: 'sys.example', action: 'block', ...entry },
      ])
      .execute();
    await db
      .insertInto('static_routes')
      .values([
        {
          customer_id: 1,
          domain: 'corp.example',
          resolver_ip: '10.0.0.53',
          resolver_port: 53,
          description: '',
          ...stamps,
        },
        {
          customer_id: 2,
          domain: 'corp2.example',
          resolver_ip: '10.0.0.54',
          resolver_port: 53,
          description: '',
          ...stamps,
        },
      ])
      .execute();
    await db
      .insertInto('category_domains')
      .values([
        { domain: 'casino.example', category_id: GAMBLING, source: 'test' },
        { domain: 'live.casino.example', category_id: GAMBLING, source: 'test' },
        { domain: 'news.example', category_id: NEWS, source: 'test' },
      ])
      .execute();
    await db
      .insertInto('category_overrides')
      .values({ domain: 'casino.example', category_id: NEWS, request_id: null, created_at: now })
      .execute();
  });

  afterAll(async () => {
    await handle?.close();
  });

  it('decides a recategorised name and every name below it by the override, its own feed rows notwithstanding', async () => {
    for (const name of ['casino.example', 'www.casino.example', 'live.casino.example']) {
      expect((await ask(name)).decision, name).toMatchObject({ action: 'allowed', categories: [NEWS] });
    }
    expect((await ask('Www.Casino.Example.')).qname).toBe('www.casino.example');
  });

  it("holds the customer's own lists, routes and MSP only, and the system's lists", async () => {
    expect((await ask('a.ok.example')).decision).toMatchObject({ action: 'allowed', reason: 'policy_allow' });
    expect((await ask('msp9.example')).decision).toMatchObject({ action: 'blocked', reason: 'msp_block' });
    expect((await ask('sys.example')).decision).toMatchObject({ action: 'blocked', reason: 'global_block' });
    expect((await ask('x.corp.example')).decision).toMatchObject({ reason: 'static_route', forwardTo: '10.0.0.53:53' });
    // Another customer's policy list, another MSP's list, another customer's route: not in this view.
    expect((await ask('news.example')).decision).toMatchObject({ action: 'allowed', categories: [NEWS] });
    expect((await ask('msp10.example')).decision.action).toBe('allowed');
    expect((await ask('x.corp2.example')).decision.reason).not.toBe('static_route');
    const view = await loadCustomerView(handle, { qname: 'msp10.example', customerId: 1, mspId: 9, policyId: 11 });
    expect([...view.snapshot.mspLists.keys()]).toEqual([9]);
    expect([...view.snapshot.staticRoutes.keys()]).toEqual([1]);
  });

  it("never takes another customer's policy: scoped to the customer, it is no policy", async () => {
    const view = await loadCustomerView(handle, { qname: 'news.example', customerId: 1, mspId: 9, policyId: 12 });
    expect(view.identity.policy).toBeNull();
    expect((await ask('news.example', 12)).decision.action).toBe('allowed');
  });
});
