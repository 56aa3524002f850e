import type { QueryLogRow } from '@cordon/db';
import { testDialects } from '@cordon/db/testing';
import type { HistoryEntry, PolicyPreview } from '@cordon/shared';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { call, createTenant, createTestApp, type TenantFixture, type TestApp } from '../../../test/helpers.ts';
import { insertQueryLogRows } from '../../../test/query-log.ts';

/*
 * The policy editor's preview (issue 29; docs/categories.md "Preview"): its figure, read from the
 * roll-ups, equals a count made from the History rows of the same period — the "Done when".
 */

/** Today's categories of the names the test logs (category_domains rows; one approved recategorisation). */
const FEED: Array<[string, number]> = [
  ['casino.test', 20],
  ['social.test', 43],
  ['social.test', 45],
  ['news.test', 39],
  ['malware.test', 6],
];
/** `work.casino.test` was recategorised to Business (50): the override wins over its parent's Gambling. */
const OVERRIDE: [string, number] = ['work.casino.test', 50];

/** The logged `categories` of each name: today's, as the resolver wrote them. */
const LOGGED: Record<string, string> = {
  'casino.test': '20',
  'www.casino.test': '20',
  'work.casino.test': '50',
  'social.test': '43,45',
  'news.test': '39',
  'malware.test': '6',
  'unknown.test': '',
};

const ACTIONS = ['allowed', 'blocked', 'bypassed', 'allowed'] as const;

function logRow(customerId: number, ts: number, qname: string, i: number): QueryLogRow {
  const action = ACTIONS[i % ACTIONS.length]!;
  return {
    ts,
    customer_id: customerId,
    location_id: null,
    policy_id: null,
    client_ip: `10.1.0.${(i % 5) + 1}`,
    qname,
    qtype: 'A',
    protocol: 'udp',
    action,
    reason: action === 'blocked' ? 'category' : 'default',
    categories: LOGGED[qname] ?? '',
    rcode: 'NOERROR',
    answer_source: 'upstream',
    latency_us: 100,
  };
}

/**
 * The clock is 2025-06-15T12:00Z and the customers are in Europe/Berlin, so `7days` is
 * [2025-06-08T22:00Z, 2025-06-15T22:00Z). Each name is asked a different number of times a day,
 * on every day of the period, and a few times just outside it.
 */
function seedRows(customerId: number): QueryLogRow[] {
  const rows: QueryLogRow[] = [];
  const names = Object.keys(LOGGED);
  let i = 0;
  for (let day = 0; day < 7; day++) {
    const dayStart = Date.UTC(2025, 5, 8, 22) + day * 86_400_000;
    names.forEach((qname, n) => {
      for (let k = 0; k < n + 1 + (day % 3); k++) {
        rows.push(logRow(customerId, dayStart + ((k * 37 + n * 11) % 1_380) * 60_000, qname, i++));
      }
    });
  }
  // Outside the period: the minute before it starts, and tomorrow (local).
  rows.push(logRow(customerId, Date.UTC(2025, 5, 8, 21, 59), 'casino.test', i++));
  rows.push(logRow(customerId, Date.UTC(2025, 5, 15, 22, 30), 'social.test', i++));
  return rows;
}

describe.each(testDialects())('policy preview on %s', (dialect) => {
  let t: TestApp;
  let a: TenantFixture;
  let b: TenantFixture;

  beforeEach(async () => {
    t = await createTestApp(dialect);
    a = await createTenant(t, 1);
    b = await createTenant(t, 2);
    const now = new Date(t.clock.now).toISOString();
    await t.handle.db
      .insertInto('category_domains')
      .values([
        ...FEED.map(([domain, category_id]) => ({ domain, category_id, source: 'preview-test' })),
        { domain: OVERRIDE[0], category_id: OVERRIDE[1], source: 'override' },
      ])
      .execute();
    await t.handle.db
      .insertInto('category_overrides')
      .values({ domain: OVERRIDE[0], category_id: OVERRIDE[1], request_id: null, created_at: now })
      .execute();
    await insertQueryLogRows(t.handle, seedRows(a.customerId));
    // Another customer asks the same names: none of its queries may count.
    await insertQueryLogRows(t.handle, seedRows(b.customerId).slice(0, 40));
  });
  afterEach(async () => {
    await t.close();
  });

  const preview = async (token: string, body: unknown) => {
    const res = await call(t.app, token, 'POST', `/restapi/policies/${a.policyId}/preview`, body);
    return { status: res.statusCode, body: res.json() };
  };

  /** Every History row of customer a over `7days`, paged as the console pages it. */
  async function historyRows(): Promise<HistoryEntry[]> {
    const out: HistoryEntry[] = [];
    for (let offset = 0; ; offset += 100) {
      const res = await call(
        t.app,
        a.customerToken,
        'GET',
        `/restapi/users/${a.customerId}/history/all/7days?limit=100&offset=${offset}&order_dir=asc`,
      );
      expect(res.statusCode, res.body).toBe(200);
      const page = res.json() as { total: number; data: HistoryEntry[] };
      out.push(...page.data);
      if (page.data.length < 100) {
        expect(out).toHaveLength(page.total);
        return out;
      }
    }
  }

  /** The count the preview must match: History rows with a blocked category (or none, when unclassified is blocked). */
  function countFromHistory(rows: HistoryEntry[], blocked: number[], allowUnclassified = true) {
    const set = new Set(blocked);
    const hits = rows.filter((r) =>
      r.categories.length === 0 ? !allowUnclassified : r.categories.some((c) => set.has(c.id)),
    );
    const byName = new Map<string, number>();
    for (const r of hits) byName.set(r.qname, (byName.get(r.qname) ?? 0) + 1);
    return { count: hits.length, byName };
  }

  it('counts what the choices would have blocked, equal to a count made from History', async () => {
    const history = await historyRows();
    for (const [blocked, allowUnclassified] of [
      [[20, 45], true],
      [[6], true],
      [[39, 50], false],
      [[], true],
    ] as Array<[number[], boolean]>) {
      const { status, body } = await preview(a.customerToken, { blocked, allow_unclassified: allowUnclassified });
      expect(status, JSON.stringify(body)).toBe(200);
      const answer = body as PolicyPreview;
      const want = countFromHistory(history, blocked, allowUnclassified);
      expect(answer.blocked, `blocked ${blocked} unclassified ${allowUnclassified}`).toBe(want.count);
      expect(answer.total).toBe(history.length);
      expect(answer.from).toBe('2025-06-08T22:00:00.000Z');
      expect(answer.to).toBe('2025-06-15T22:00:00.000Z');
      // The top names are History's, with its counts, most first.
      expect(new Map(answer.top.map((d) => [d.domain, d.count]))).toEqual(want.byName);
      const counts = answer.top.map((d) => d.count);
      expect(counts).toEqual([...counts].sort((x, y) => y - x));
    }
    // The seeded data makes the comparison mean something: some, not all, and a multi-category name once.
    const gambling = (await preview(a.customerToken, { blocked: [20, 45] })).body as PolicyPreview;
    expect(gambling.blocked).toBeGreaterThan(0);
    expect(gambling.blocked).toBeLessThan(gambling.total);
    expect(gambling.top.map((d) => d.domain).sort()).toEqual(['casino.test', 'social.test', 'www.casino.test']);
    expect(gambling.top.find((d) => d.domain === 'www.casino.test')?.categories).toEqual([20]);
    // The recategorised name is Business now, not its parent's Gambling.
    const business = (await preview(a.customerToken, { blocked: [50] })).body as PolicyPreview;
    expect(business.top).toEqual([
      { domain: 'work.casino.test', count: countFromHistory(history, [50]).count, categories: [50] },
    ]);
  });

  it("lets the MSP preview its customer's policy, and refuses another tenant's", async () => {
    const mine = await preview(a.customerToken, { blocked: [20] });
    expect(await preview(a.mspToken, { blocked: [20] })).toEqual(mine);
    expect(await preview(t.rootToken, { blocked: [20] })).toEqual(mine);
    expect((await preview(b.customerToken, { blocked: [20] })).status).toBe(404);
    expect((await preview(b.mspToken, { blocked: [20] })).status).toBe(404);
  });

  it('refuses unknown categories, Unclassified and repeats with a 400', async () => {
    for (const blocked of [[99], [0], [41], [20, 20], ['x']]) {
      const res = await preview(a.customerToken, { blocked });
      expect(res.status, JSON.stringify(blocked)).toBe(400);
      expect(res.body.code).toBe('ERR_VALIDATION');
    }
    expect((await preview(a.customerToken, {})).status).toBe(400);
  });
});
