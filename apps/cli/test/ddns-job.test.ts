import { createChangeFeed, type DatabaseHandle } from '@cordon/db';
import { createTestDatabase, testDialects } from '@cordon/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeUpstream, startFakeUpstream } from '../../resolver/test/helpers/fake-upstream.ts';
import { ddnsJob, type HostLookup, upstreamLookup } from '../src/ddns-job.ts';

const CLAIMS = { maxPrefixV4: 24, maxPrefixV6: 48, allowPrivate: true, allowSpecial: true };
const SILENT = { info: () => undefined, warn: () => undefined, error: () => undefined };

/**
 * The dynamic-DNS re-resolution job (docs/agent.md "Dynamic-DNS locations"): a `dynamicdns`
 * location's host name is resolved and its address rows follow the answer; a failed lookup keeps
 * them and records the error; the `locations` topic is published so resolvers follow.
 */
describe.each(testDialects())('dynamic-DNS job (%s)', (dialect) => {
  let handle: DatabaseHandle;
  let upstream: FakeUpstream;
  let locId: number;
  const published: string[] = [];

  const addresses = async () =>
    (
      await handle.db
        .selectFrom('location_addresses')
        .select('ip')
        .where('location_id', '=', locId)
        .orderBy('ip')
        .execute()
    ).map((r) => r.ip);
  const runWith = async (lookup: HostLookup) => {
    const changes = createChangeFeed(handle);
    changes.subscribe((t) => published.push(t));
    const deps = { handle, changes, now: () => Date.now() };
    await ddnsJob({ claims: CLAIMS, lookup }).run({ deps, now: Date.now(), lastStartedAt: null, log: SILENT });
    await changes.close();
  };

  beforeAll(async () => {
    handle = await createTestDatabase(dialect);
    upstream = await startFakeUpstream();
    const now = new Date().toISOString();
    const msp = await handle.db
      .insertInto('msps')
      .values({ name: 'M', company_name: 'M', license: '', timezone: 'UTC', created_at: now, updated_at: now })
      .returning('id')
      .executeTakeFirstOrThrow();
    const customer = await handle.db
      .insertInto('customers')
      .values({
        msp_id: msp.id,
        account_name: 'Home',
        uuid_str: 'u-home',
        timezone: 'UTC',
        created_at: now,
        updated_at: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    locId = (
      await handle.db
        .insertInto('locations')
        .values({
          customer_id: customer.id,
          type: 'dynamicdns',
          name: 'Home',
          policy_id: null,
          key: null,
          hostname: 'home.example',
          created_at: now,
          updated_at: now,
        })
        .returning('id')
        .executeTakeFirstOrThrow()
    ).id;
  });
  afterAll(async () => {
    await upstream?.close();
    await handle?.close();
  });

  it("replaces the location's addresses with what its host name resolves to, through the upstreams", async () => {
    await runWith(upstreamLookup([{ host: '127.0.0.1', port: upstream.port }]));
    expect(upstream.queries.get('home.example')).toBeGreaterThanOrEqual(2); // A and AAAA
    expect(await addresses()).toEqual(['192.0.2.10/32', '2001:db8::10/128']);
    expect(published).toContain('locations');
  });

  it('follows a changed answer, and keeps the last addresses with the error when the lookup fails', async () => {
    await runWith(async () => ['198.51.100.7']);
    expect(await addresses()).toEqual(['198.51.100.7/32']);
    await runWith(async () => {
      throw new Error('SERVFAIL');
    });
    expect(await addresses()).toEqual(['198.51.100.7/32']);
    const row = await handle.db
      .selectFrom('locations')
      .select('resolve_error')
      .where('id', '=', locId)
      .executeTakeFirstOrThrow();
    expect(row.resolve_error).toContain('Could not resolve home.example');
  });
});
