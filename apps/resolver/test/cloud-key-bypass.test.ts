import http from 'node:http';
import { addressClaimColumns, type ChangeFeed, type DatabaseHandle } from '@cordon/db';
import { createTestDatabase, testDialects } from '@cordon/db/testing';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningBlockPage, startBlockPage } from '../src/blockpage/http.ts';
import { dig } from './helpers/dig.ts';
import { type Seeded, seedTenants } from './helpers/seed.ts';
import { type ResolverStack, startResolverStack, within } from './helpers/stack.ts';

/** POSTs the block page's cloud-key form as a browser would, from `localAddress`, for `host`. */
function postKey(port: number, host: string, key: string, localAddress = '127.0.0.1') {
  const body = new URLSearchParams({ key }).toString();
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/',
        localAddress,
        headers: {
          host,
          'content-type': 'application/x-www-form-urlencoded',
          'content-length': Buffer.byteLength(body),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c) => {
          text += c;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const BLOCKED = '127.0.0.1'; // the block address the resolver answers for blocked A questions
const UPSTREAM = '192.0.2.10'; // what the fake upstream answers for any other name

/**
 * Cloud keys end to end (docs/architecture.md "Block page"; docs/architecture.md "Decision order" step 1): a key entered
 * on the block page over HTTP starts a bypass for that client only, which `dig` sees within a
 * second, never for a security category, and which ends by itself.
 */
describe.each(testDialects())('cloud-key bypass through the block page and dig (%s)', (dialect) => {
  let handle: DatabaseHandle;
  let changes: ChangeFeed;
  let page: RunningBlockPage;
  let seeded: Seeded;
  let port: number;
  let stack: ResolverStack;
  let keyId: number;

  const a = async (client: string, name: string) => {
    const r = await dig(port, '-b', client, name, 'A');
    return r.answers.map((x) => x.data);
  };

  beforeAll(async () => {
    handle = await createTestDatabase(dialect);
    seeded = await seedTenants(handle);
    const now = new Date().toISOString();
    // A second client of Acme's location, a malware name (category 6, blocked by the policy), and keys.
    await handle.db
      .insertInto('location_addresses')
      .values({
        location_id: seeded.locationId,
        customer_id: seeded.customerId,
        ...addressClaimColumns('127.0.0.5/32'),
        created_at: now,
      })
      .execute();
    await handle.db
      .insertInto('policy_categories')
      .values({ policy_id: seeded.defaultPolicyId, customer_id: seeded.customerId, category_id: 6 })
      .execute();
    await handle.db
      .insertInto('category_domains')
      .values({ domain: 'malware.example', category_id: 6, source: 'test' })
      .execute();
    const key = (values: {
      key: string;
      max_uses?: number;
      active?: number;
      valid_from?: string;
      customer_id?: number;
    }) =>
      handle.db
        .insertInto('cloud_keys')
        .values({
          customer_id: seeded.customerId,
          description: '',
          max_uses: null,
          times_used: 0,
          valid_from: null,
          valid_to: null,
          expires_after_s: 3,
          active: 1,
          created_at: now,
          updated_at: now,
          ...values,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
    keyId = (await key({ key: 'Library pass', max_uses: 1 })).id;
    await key({ key: 'Sleeping key', active: 0 });
    await key({ key: 'Future key', valid_from: '2999-01-01T00:00:00.000Z' });
    await key({ key: 'Beta key', customer_id: seeded.otherCustomerId });
    const logger = pino({ level: 'silent' });
    stack = await startResolverStack(handle, { blockAddresses: { ipv4: BLOCKED, ipv6: '::1' } });
    ({ changes, port } = stack);
    page = await startBlockPage({ db: handle, changes, logger, http: { host: '127.0.0.1', port: 0 } });
  });

  afterAll(async () => {
    await page?.close();
    await stack?.close();
    await handle?.close();
  });

  it('shows the form (no script) on a blocked page and refuses keys that are unknown, inactive, early or foreign', async () => {
    for (const key of ['Nope nope', 'Sleeping key', 'Future key', 'Beta key', 'bad<key>!']) {
      const res = await postKey(page.address.port, 'gambling.example', key);
      expect(res.status).toBe(200);
      expect(res.body).toContain('<form method="post"');
      expect(res.body).toContain('This cloud key is not valid, not active or has no uses left.');
      expect(res.body).not.toContain('<script');
    }
    expect(await handle.db.selectFrom('bypasses').selectAll().execute()).toEqual([]);
    expect(await a('127.0.0.1', 'gambling.example')).toEqual([BLOCKED]);
  });

  it('a valid key starts a bypass for that client only, counted once, seen by dig within 1 s, ending by itself', async () => {
    expect(await a('127.0.0.1', 'gambling.example')).toEqual([BLOCKED]);
    const res = await postKey(page.address.port, 'gambling.example', ' Library pass ');
    expect(res.body).toContain('Access granted');
    expect(res.body).toContain('href="http://gambling.example/"');
    const row = await handle.db
      .selectFrom('cloud_keys')
      .select('times_used')
      .where('id', '=', keyId)
      .executeTakeFirstOrThrow();
    expect(Number(row.times_used)).toBe(1);
    const bypass = await handle.db.selectFrom('bypasses').selectAll().executeTakeFirstOrThrow();
    expect(bypass).toMatchObject({ customer_id: seeded.customerId, cloud_key_id: keyId, client_ip: '127.0.0.1' });

    const ms = await within(1000, async () => (await a('127.0.0.1', 'gambling.example'))[0] === UPSTREAM);
    expect(ms).toBeLessThan(1000);
    expect(await a('127.0.0.1', 'www.gambling.example')).toEqual([UPSTREAM]);
    expect(await a('127.0.0.5', 'gambling.example')).toEqual([BLOCKED]); // another client of the same location
    expect(await a('127.0.0.1', 'malware.example')).toEqual([BLOCKED]); // security category: never bypassed
    const security = await postKey(page.address.port, 'malware.example', 'Library pass');
    expect(security.body).not.toContain('<form');

    // The key had one use: a second entry is refused and counts nothing.
    const again = await postKey(page.address.port, 'gambling.example', 'Library pass', '127.0.0.5');
    expect(again.body).toContain('This cloud key is not valid, not active or has no uses left.');
    expect(await a('127.0.0.5', 'gambling.example')).toEqual([BLOCKED]);

    // Expiry by the clock alone, no reload needed.
    await new Promise((r) => setTimeout(r, Math.max(0, Number(bypass.expires_at) - Date.now() + 50)));
    expect(await a('127.0.0.1', 'gambling.example')).toEqual([BLOCKED]);
  });
});
