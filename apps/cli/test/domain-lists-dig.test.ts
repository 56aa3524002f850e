import { testDialects } from '@cordon/db/testing';
import { type RunningResolver, startResolver } from '@cordon/resolver';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestApp, type TestApp } from '../../api/test/helpers.ts';
import { dig } from '../../resolver/test/helpers/dig.ts';
import { type FakeUpstream, startFakeUpstream } from '../../resolver/test/helpers/fake-upstream.ts';

const BLOCKED = '127.0.0.1'; // the block-page address answered for blocked A questions
const UPSTREAM = '192.0.2.10'; // the fake upstream's answer

/**
 * Domain lists end to end (docs/architecture.md "Decision order" steps 3–4): entries added through
 * the API reach the running resolver through the change feed and decide what `dig` gets, within a
 * second of the API call, with the reason logged. MSP 1 has two customers (School at 127.0.0.1,
 * College at 127.0.0.3); MSP 2 has Other at 127.0.0.4. School's policy blocks Gambling (category 20),
 * and `casino.example` is in that category.
 */
describe.each(testDialects())('domain lists in the resolver with dig (%s)', (dialect) => {
  let t: TestApp;
  let upstream: FakeUpstream;
  let resolver: RunningResolver;
  let port: number;
  let schoolPolicy: number;
  let mspId: number;

  const ok = async (res: { statusCode: number; body: string; json(): unknown }) => {
    if (res.statusCode >= 300) throw new Error(`${res.statusCode} ${res.body}`);
    return res.json() as { id: number; default_policy_id?: number };
  };

  /** The A answer for `qname` from `source`, polled until `expected` or 1 s after `since`; returns ms taken. */
  async function expectWithin(source: string, qname: string, expected: string, since: number): Promise<number> {
    let last = '';
    while (Date.now() - since < 1000) {
      last = (await dig(port, '-b', source, qname, 'A')).answers[0]?.data ?? '';
      if (last === expected) return Date.now() - since;
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error(`${qname} from ${source}: ${last}, not ${expected}, 1 s after the API call`);
  }

  beforeAll(async () => {
    t = await createTestApp(dialect);
    await t.handle.db
      .insertInto('category_domains')
      .values({ domain: 'casino.example', category_id: 20, source: 'test' })
      .execute();
    const customer = async (msp: number, name: string, ip: string, level: string) => {
      const c = await ok(
        await call(t.app, t.rootToken, 'POST', '/restapi/users/', { accountName: name, msp_id: msp, timezone: 'UTC' }),
      );
      const p = await ok(
        await call(t.app, t.rootToken, 'POST', '/restapi/policies', {
          user_id: c.id,
          name: `${name} policy`,
          filtering_level: level,
        }),
      );
      await ok(
        await call(t.app, t.rootToken, 'POST', `/restapi/users/${c.id}/locations/staticip`, {
          name,
          policy_id: p.id,
          addresses: [`${ip}/32`],
        }),
      );
      return p.id;
    };
    mspId = (await ok(await call(t.app, t.rootToken, 'POST', '/restapi/msp', { name: 'MSP 1', company_name: 'One' })))
      .id;
    const other = (
      await ok(await call(t.app, t.rootToken, 'POST', '/restapi/msp', { name: 'MSP 2', company_name: 'Two' }))
    ).id;
    schoolPolicy = await customer(mspId, 'School', '127.0.0.1', 'moderate');
    await customer(mspId, 'College', '127.0.0.3', 'low');
    await customer(other, 'Other', '127.0.0.4', 'low');
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

  it("blocks a policy's entry (and its subdomains only with include_subdomains) within 1 s", async () => {
    expect((await dig(port, '-b', '127.0.0.1', 'games.example', 'A')).answers[0]?.data).toBe(UPSTREAM);
    const since = Date.now();
    await ok(
      await call(t.app, t.rootToken, 'POST', `/restapi/policies/${schoolPolicy}/domains/block`, {
        domain: 'games.example',
        include_subdomains: true,
      }),
    );
    await expectWithin('127.0.0.1', 'games.example', BLOCKED, since);
    expect((await dig(port, '-b', '127.0.0.1', 'www.games.example', 'A')).answers[0]?.data).toBe(BLOCKED);
    expect((await dig(port, '+tcp', '-b', '127.0.0.1', 'deep.www.games.example', 'A')).answers[0]?.data).toBe(BLOCKED);
    // Only School's policy: College (same MSP) is not affected.
    expect((await dig(port, '-b', '127.0.0.3', 'games.example', 'A')).answers[0]?.data).toBe(UPSTREAM);

    const exact = Date.now();
    await ok(
      await call(t.app, t.rootToken, 'POST', `/restapi/policies/${schoolPolicy}/domains/block`, {
        domain: 'video.example',
        include_subdomains: false,
      }),
    );
    await expectWithin('127.0.0.1', 'video.example', BLOCKED, exact);
    expect((await dig(port, '-b', '127.0.0.1', 'www.video.example', 'A')).answers[0]?.data).toBe(UPSTREAM);
  });

  it('lets an allow entry beat a blocked category', async () => {
    expect((await dig(port, '-b', '127.0.0.1', 'casino.example', 'A')).answers[0]?.data).toBe(BLOCKED);
    const since = Date.now();
    await ok(
      await call(t.app, t.rootToken, 'POST', `/restapi/policies/${schoolPolicy}/domains/allow`, {
        domain: 'casino.example',
      }),
    );
    await expectWithin('127.0.0.1', 'casino.example', UPSTREAM, since);
  });

  it("applies an MSP's global block to all its customers, and a removal lifts it, each within 1 s", async () => {
    const since = Date.now();
    const entry = await ok(
      await call(t.app, t.rootToken, 'POST', `/restapi/global/domains/block?msp_id=${mspId}`, {
        domain: 'social.example',
      }),
    );
    await expectWithin('127.0.0.1', 'social.example', BLOCKED, since);
    await expectWithin('127.0.0.3', 'm.social.example', BLOCKED, since);
    expect((await dig(port, '-b', '127.0.0.4', 'social.example', 'A')).answers[0]?.data).toBe(UPSTREAM);
    // The system's block list applies to every MSP.
    const sys = Date.now();
    await ok(await call(t.app, t.rootToken, 'POST', '/restapi/global/domains/block', { domain: 'malware.example' }));
    await expectWithin('127.0.0.4', 'malware.example', BLOCKED, sys);
    const removed = Date.now();
    await ok(await call(t.app, t.rootToken, 'DELETE', `/restapi/global/domains/block/${entry.id}?msp_id=${mspId}`));
    await expectWithin('127.0.0.3', 'social.example', UPSTREAM, removed);
  });

  it('logs the reason of each list decision', async () => {
    let rows: Array<{ qname: string; reason: string }> = [];
    const want = {
      'games.example': 'policy_block',
      'casino.example': 'policy_allow',
      'malware.example': 'global_block',
    };
    const start = Date.now();
    while (Date.now() - start < 3000) {
      rows = await t.handle.db.selectFrom('query_log').select(['qname', 'reason']).orderBy('id').execute();
      if (Object.keys(want).every((q) => rows.some((r) => r.qname === q && r.reason === want[q as keyof typeof want])))
        break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const reasons = new Set(rows.map((r) => `${r.qname} ${r.reason}`));
    expect(reasons).toContain('games.example policy_block');
    expect(reasons).toContain('casino.example policy_allow');
    expect(reasons).toContain('social.example msp_block');
    expect(reasons).toContain('malware.example global_block');
  });
});
