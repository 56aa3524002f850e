import { type CoreDeps, rollups } from '@cordon/core';
import type { QueryLogRow } from '@cordon/db';
import { createTestDatabase, testDialects } from '@cordon/db/testing';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { call, createTenant, createTestApp, type TenantFixture, type TestApp } from '../../../test/helpers.ts';
import { insertQueryLogRows } from '../../../test/query-log.ts';

/**
 * Who asked (migration 0029; docs/decisions.md "Query log identity"): the `users` top list, the
 * user and group reports and the history name the internal user, else the device, else the client
 * address, from the identity the resolver logged.
 */
describe.each(testDialects())('query-log identity in stats, reports and history on %s', (dialect) => {
  let t: TestApp;
  let a: TenantFixture;
  let b: TenantFixture;
  const ids: Record<string, number> = {};
  const stamp = () => ({ created_at: new Date().toISOString(), updated_at: new Date().toISOString() });
  const row = (customerId: number, iso: string, over: Partial<QueryLogRow> = {}): QueryLogRow => ({
    ts: Date.parse(iso),
    customer_id: customerId,
    location_id: null,
    policy_id: null,
    client_ip: '10.1.0.1',
    qname: 'news.example',
    qtype: 'A',
    protocol: 'udp',
    action: 'allowed',
    reason: 'default',
    categories: '',
    rcode: 'NOERROR',
    answer_source: 'upstream',
    latency_us: 100,
    ...over,
  });

  beforeEach(async () => {
    // Clock 2025-06-15T12:00Z; the customers are in Europe/Berlin, today = [06-14T22:00Z, 06-15T22:00Z).
    t = await createTestApp(dialect);
    a = await createTenant(t, 1);
    b = await createTenant(t, 2);
    const db = t.handle.db;
    const device = async (customerId: number, name: string) =>
      (
        await db
          .insertInto('devices')
          .values({ customer_id: customerId, key: `key-${name}`, name, policy_id: null, ...stamp() })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id;
    ids.laptop = await device(a.customerId, 'Laptop 7');
    ids.tablet = await device(a.customerId, 'Tablet');
    ids.foreignDevice = await device(b.customerId, 'Other laptop');
    ids.staff = (
      await db
        .insertInto('user_groups')
        .values({
          customer_id: a.customerId,
          name: 'Staff',
          description: '',
          disabled: 0,
          weight: 1,
          policy_id: a.policyId,
          ...stamp(),
        })
        .returning('id')
        .executeTakeFirstOrThrow()
    ).id;
    const alice = { device_id: ids.laptop, user_id: 501, user_name: 'alice', group_id: ids.staff };
    await insertQueryLogRows(t.handle, [
      row(a.customerId, '2025-06-15T08:00:00Z', alice),
      row(a.customerId, '2025-06-15T08:05:00Z', alice),
      row(a.customerId, '2025-06-15T08:10:00Z', { ...alice, action: 'blocked', qname: 'bad.example', categories: '6' }),
      row(a.customerId, '2025-06-15T09:00:00Z', { device_id: ids.laptop }),
      row(a.customerId, '2025-06-15T09:05:00Z', {
        device_id: ids.tablet,
        action: 'blocked',
        qname: 'bad.example',
        categories: '6',
      }),
      row(a.customerId, '2025-06-15T10:00:00Z', { client_ip: '10.1.0.9' }),
      row(b.customerId, '2025-06-15T10:00:00Z', { device_id: ids.foreignDevice, user_name: 'mallory', user_id: 9 }),
    ]);
  });
  afterEach(async () => {
    await t.close();
  });
  const get = async (path: string, token = a.customerToken) => {
    const res = await call(t.app, token, 'GET', `/restapi${path}`);
    expect(res.statusCode, `${path}: ${res.body}`).toBe(200);
    return res.json();
  };

  it('ranks users by user name, else device name, else client address', async () => {
    expect(await get(`/users/${a.customerId}/stats/users/allowed/today`)).toEqual({
      data: [
        { key: 'u:alice', name: 'alice', count: 2 },
        { key: `d:${ids.laptop}`, name: 'Laptop 7', count: 1 },
        { key: 'ip:10.1.0.9', name: '10.1.0.9', count: 1 },
      ],
    });
    expect(await get(`/users/${a.customerId}/stats/users/blocked/today`)).toEqual({
      data: [
        { key: `d:${ids.tablet}`, name: 'Tablet', count: 1 },
        { key: 'u:alice', name: 'alice', count: 1 },
      ],
    });
    // The MSP sees its customer's users, never the other tenant's.
    const msp = await get(`/msp/${a.mspId}/stats/users/allowed/today`, a.mspToken);
    expect(msp.data.map((r: { name: string }) => r.name)).not.toContain('mallory');
    expect(msp.data.map((r: { name: string }) => r.name)).toContain('alice');
  });

  it('fills the user, group and security-by-user reports', async () => {
    const day = '?start=2025-06-15&end=2025-06-15';
    const byUser = await get(`/users/${a.customerId}/reports/r_behaviour_user${day}`);
    expect(byUser.total).toBe(6);
    // Most queries first, ties by key (`d:` before `ip:`).
    expect(byUser.rows.map((r: { name: string; requests: number }) => [r.name, r.requests])).toEqual([
      ['alice', 3],
      ['Laptop 7', 1],
      ['Tablet', 1],
      ['10.1.0.9', 1],
    ]);
    const byGroup = await get(`/users/${a.customerId}/reports/r_behaviour_group${day}`);
    expect(byGroup.total).toBe(3);
    expect(byGroup.rows).toEqual([{ key: String(ids.staff), name: 'Staff', requests: 3, allowed: 2, blocked: 1 }]);
    const blockedGroup = await get(`/users/${a.customerId}/reports/r_blocked_group${day}`);
    expect(blockedGroup.rows.map((r: { name: string; requests: number }) => [r.name, r.requests])).toEqual([
      ['Staff', 1],
    ]);
    const malware = await get(`/users/${a.customerId}/reports/r_security_malware_user${day}`);
    expect(malware.rows.map((r: { name: string }) => r.name)).toEqual(['Tablet', 'alice']);
    // The other customer's reports hold only its own rows.
    const other = await get(`/users/${b.customerId}/reports/r_behaviour_user${day}`, b.customerToken);
    expect(other.rows).toEqual([{ key: 'u:mallory', name: 'mallory', requests: 1, allowed: 1, blocked: 0 }]);
  });

  it('shows and searches the device, user and group in the history', async () => {
    const all = await get(`/users/${a.customerId}/history/all/today`);
    expect(all.total).toBe(6);
    const first = all.data.find((r: { time: string }) => r.time === '2025-06-15T08:00:00.000Z');
    expect(first).toMatchObject({
      device_id: ids.laptop,
      device: 'Laptop 7',
      user: 'alice',
      group_id: ids.staff,
      group: 'Staff',
    });
    const plain = all.data.find((r: { client_ip: string }) => r.client_ip === '10.1.0.9');
    expect(plain).toMatchObject({ device_id: null, device: null, user: null, group_id: null, group: null });
    expect((await get(`/users/${a.customerId}/history/all/today?q=ALICE`)).total).toBe(3);
    expect((await get(`/users/${a.customerId}/history/all/today?q=tablet`)).total).toBe(1);
    expect((await get(`/users/${a.customerId}/history/all/today?q=laptop`)).total).toBe(4);
    // Another customer's device and user names never match.
    expect((await get(`/users/${a.customerId}/history/all/today?q=mallory`)).total).toBe(0);
    expect((await get(`/users/${a.customerId}/history/all/today?q=other%20laptop`)).total).toBe(0);
  });
});

describe.each(testDialects())('query-log identity columns on %s', (dialect) => {
  it('land in every daily partition, old and new (PostgreSQL), and read back', async () => {
    const handle = await createTestDatabase(dialect);
    const deps: CoreDeps = {
      handle,
      changes: {
        publish: async () => undefined,
        subscribe: () => () => undefined,
        start: async () => undefined,
        close: async () => undefined,
      },
      now: () => Date.parse('2027-01-10T12:00:00Z'),
    };
    // Partitions made by the worker after migration 0029 (PostgreSQL; nothing on SQLite).
    const created = await rollups.ensureQueryLogPartitions(deps);
    const at = Date.parse('2027-01-11T08:00:00Z');
    const base = {
      customer_id: 1,
      location_id: null,
      policy_id: null,
      client_ip: '10.0.0.1',
      qname: 'news.example',
      qtype: 'A',
      protocol: 'udp',
      action: 'allowed',
      reason: 'default',
      categories: '',
      rcode: 'NOERROR',
      answer_source: 'upstream',
      latency_us: 10,
    };
    await insertQueryLogRows(handle, [
      { ...base, ts: at, device_id: 7, user_id: 8, user_name: 'alice', group_id: 9 },
      // A day of the partitions migration 0022 made (today at migration time), and one with no identity.
      { ...base, ts: Date.now(), device_id: 7, user_id: null, user_name: '', group_id: null },
      { ...base, ts: Date.now() },
    ]);
    const rows = await handle.db
      .selectFrom('query_log')
      .select(['ts', 'device_id', 'user_id', 'user_name', 'group_id'])
      .orderBy('id')
      .execute();
    expect(rows.map((r) => [r.device_id, r.user_id, r.user_name, r.group_id])).toEqual([
      [7, 8, 'alice', 9],
      [7, null, '', null],
      [null, null, '', null],
    ]);
    if (dialect === 'postgres') {
      expect(created).toContain('query_log_p20270111');
      const missing = await sql<{ name: string }>`
        select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
        join pg_class p on p.oid = i.inhparent
        where p.relname = 'query_log' and p.relnamespace = (select oid from pg_namespace where nspname = current_schema())
          and not exists (select 1 from pg_attribute a where a.attrelid = c.oid and a.attname = 'user_name' and not a.attisdropped)`.execute(
        handle.db,
      );
      expect(missing.rows).toEqual([]);
      const parts = await sql<{ n: number }>`select count(*)::int as n from pg_inherits i
        join pg_class p on p.oid = i.inhparent
        where p.relname = 'query_log' and p.relnamespace = (select oid from pg_namespace where nspname = current_schema())`.execute(
        handle.db,
      );
      expect(parts.rows[0]!.n).toBeGreaterThan(9);
    }
    await handle.close();
  });
});
