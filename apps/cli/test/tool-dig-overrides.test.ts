import { testDialects } from '@cordon/db/testing';
import { type RunningResolver, startResolver } from '@cordon/resolver';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestApp, type TestApp } from '../../api/test/helpers.ts';
import { dig } from '../../resolver/test/helpers/dig.ts';
import { type FakeUpstream, startFakeUpstream } from '../../resolver/test/helpers/fake-upstream.ts';

const BLOCKED = '127.0.0.1'; // the block-page address answered for blocked A questions
const UPSTREAM = '192.0.2.10'; // the fake upstream's answer
const GAMBLING = 20; // blocked by a "moderate" policy
const NEWS = 39; // blocked by none

/**
 * The test-categorisation tool and `dig` agree on recategorised names (docs/architecture.md
 * "Test-categorisation tool"): the API's tool (@cordon/policy over one customer's view) and the
 * running resolver (@cordon/policy over its snapshot) give the same action, reason and categories
 * for an overridden domain and its subdomains — also for a subdomain with a feed row of its own,
 * which the override outranks. This file is in the CLI's tests because it wires the API and the
 * resolver together, as `cordon serve` does (docs/decisions.md "Apps import no app").
 */
describe.each(testDialects())('the tool agrees with dig on recategorised names (%s)', (dialect) => {
  let t: TestApp;
  let upstream: FakeUpstream;
  let resolver: RunningResolver;
  let port: number;
  let policyId: number;

  const ok = async (res: { statusCode: number; body: string; json(): unknown }) => {
    if (res.statusCode >= 300) throw new Error(`${res.statusCode} ${res.body}`);
    return res.json() as { id: number };
  };

  beforeAll(async () => {
    t = await createTestApp(dialect);
    // Feed rows: each overridden domain has a subdomain with a row of its own, of the other category.
    await t.handle.db
      .insertInto('category_domains')
      .values([
        { domain: 'casino.example', category_id: GAMBLING, source: 'test' },
        { domain: 'live.casino.example', category_id: GAMBLING, source: 'test' },
        { domain: 'daily.example', category_id: NEWS, source: 'test' },
        { domain: 'live.daily.example', category_id: NEWS, source: 'test' },
      ])
      .execute();
    const msp = await ok(await call(t.app, t.rootToken, 'POST', '/restapi/msp', { name: 'MSP', company_name: 'M' }));
    const school = await ok(
      await call(t.app, t.rootToken, 'POST', '/restapi/users/', {
        accountName: 'School',
        msp_id: msp.id,
        timezone: 'UTC',
      }),
    );
    policyId = (
      await ok(
        await call(t.app, t.rootToken, 'POST', '/restapi/policies', {
          user_id: school.id,
          name: 'Students',
          filtering_level: 'moderate',
        }),
      )
    ).id;
    await ok(
      await call(t.app, t.rootToken, 'POST', `/restapi/users/${school.id}/locations/staticip`, {
        name: 'School',
        policy_id: policyId,
        addresses: ['127.0.0.1/32'],
      }),
    );
    // Another customer's list entry for the same names must not reach School's view.
    const other = await ok(
      await call(t.app, t.rootToken, 'POST', '/restapi/users/', {
        accountName: 'Other',
        msp_id: msp.id,
        timezone: 'UTC',
      }),
    );
    const otherPolicy = await ok(
      await call(t.app, t.rootToken, 'POST', '/restapi/policies', {
        user_id: other.id,
        name: 'Other',
        filtering_level: 'low',
      }),
    );
    await ok(
      await call(t.app, t.rootToken, 'POST', `/restapi/policies/${otherPolicy.id}/domains/block`, {
        domain: 'casino.example',
        include_subdomains: true,
      }),
    );
    upstream = await startFakeUpstream();
    resolver = await startResolver({
      db: t.handle,
      changes: t.changes,
      logger: pino({ level: 'silent' }),
      dns: { host: '127.0.0.1', port: 0 },
      upstreams: [{ host: '127.0.0.1', port: upstream.port }],
      blockAddresses: { ipv4: BLOCKED, ipv6: '::1' },
      queryLog: { flushMs: 50 },
      upstreamTimeoutMs: 500,
    });
    port = resolver.address.udp.port;
  });

  afterAll(async () => {
    await resolver?.close();
    await upstream?.close();
    await t?.close();
  });

  /** The tool's answer for `domain` under School's policy. */
  async function tool(domain: string): Promise<{ action: string; reason: string; categories: number[] }> {
    const res = await call(t.app, t.rootToken, 'POST', '/restapi/tools/test/category', {
      domain,
      policy_id: policyId,
    });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json() as { action: string; reason: string; categories: { id: number }[] };
    return { action: body.action, reason: body.reason, categories: body.categories.map((c) => c.id) };
  }

  /** The A answer `dig` gets for `qname` from School's location. */
  const answer = async (qname: string) => (await dig(port, '-b', '127.0.0.1', qname, 'A')).answers[0]?.data ?? '';

  /** The resolver's logged decision of a query for `qname` received at `since` (epoch ms) or later, waited for up to 3 s. */
  async function logged(
    qname: string,
    since: number,
  ): Promise<{ action: string; reason: string; categories: number[] }> {
    const start = Date.now();
    for (;;) {
      const row = await t.handle.db
        .selectFrom('query_log')
        .select(['action', 'reason', 'categories'])
        .where('qname', '=', qname)
        .where('ts', '>=', since)
        .orderBy('id', 'desc')
        .executeTakeFirst();
      if (row) {
        const categories = row.categories === '' ? [] : row.categories.split(',').map(Number);
        return { action: row.action, reason: row.reason, categories };
      }
      if (Date.now() - start > 3000) throw new Error(`no query-log row for ${qname}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  it('gives the decision dig gets for overridden domains and their subdomains', async () => {
    // Before any override: the feeds decide, and both agree.
    expect(await answer('live.casino.example')).toBe(BLOCKED);
    expect(await tool('live.casino.example')).toMatchObject({ action: 'blocked', categories: [GAMBLING] });

    // Approved recategorisations: casino.example is News now, daily.example Gambling.
    for (const [domain, category] of [
      ['casino.example', NEWS],
      ['daily.example', GAMBLING],
    ] as const) {
      const asked = await ok(
        await call(t.app, t.rootToken, 'POST', '/restapi/tools/recategorize', {
          domain,
          category_id: category,
        }),
      );
      await ok(
        await call(t.app, t.rootToken, 'POST', `/restapi/tools/recategorize/${asked.id}/review`, {
          action: 'approve',
        }),
      );
    }
    // The resolver follows the overrides' topic: wait until it answers with them.
    const since = Date.now();
    while ((await answer('live.daily.example')) !== BLOCKED || (await answer('live.casino.example')) !== UPSTREAM) {
      if (Date.now() - since > 3000) throw new Error('the overrides did not reach the resolver within 3 s');
      await new Promise((r) => setTimeout(r, 50));
    }

    const expected: Record<string, { dig: string; action: string; categories: number[] }> = {
      'casino.example': { dig: UPSTREAM, action: 'allowed', categories: [NEWS] },
      'www.casino.example': { dig: UPSTREAM, action: 'allowed', categories: [NEWS] },
      // Its own Gambling row is outranked by the override above it.
      'live.casino.example': { dig: UPSTREAM, action: 'allowed', categories: [NEWS] },
      'daily.example': { dig: BLOCKED, action: 'blocked', categories: [GAMBLING] },
      'www.daily.example': { dig: BLOCKED, action: 'blocked', categories: [GAMBLING] },
      'live.daily.example': { dig: BLOCKED, action: 'blocked', categories: [GAMBLING] },
    };
    for (const [qname, want] of Object.entries(expected)) {
      const asked = Date.now();
      expect(await answer(qname), qname).toBe(want.dig);
      const fromTool = await tool(qname);
      expect(fromTool, qname).toMatchObject({ action: want.action, categories: want.categories });
      // The same decision as the resolver logged for the query dig just made.
      expect(fromTool, qname).toEqual(await logged(qname, asked));
    }
  });
});
