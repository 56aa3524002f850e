import { mkdtempSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testDialects } from '@cordon/db/testing';
import { ensureRootCa, readRootCertificatePem } from '@cordon/pki';
import { type RunningResolver, startResolver } from '@cordon/resolver';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTestApp, type TestApp } from '../../api/test/helpers.ts';
import { dig } from '../../resolver/test/helpers/dig.ts';
import { type FakeUpstream, startFakeUpstream } from '../../resolver/test/helpers/fake-upstream.ts';
import { type RunningAgent, startAgent } from '../src/agent/index.ts';
import { compileRules } from '../src/agent/rules.ts';
import { fitUdp, readQuestion, udpLimit, withEdnsOptions } from '../src/agent/wire.ts';

const CA_SECRET = 'agent-test-ca-secret-0123456789abcdef';
const BLOCKED = '127.0.0.1';
const UPSTREAM = '192.0.2.10';

/** The first A answer of `dig` through the agent, or the status. */
async function a(port: number, name: string, ...args: string[]): Promise<string> {
  const r = await dig(port, ...args, name, 'A');
  return r.answers.find((x) => x.type === 'A')?.data ?? r.status;
}

async function until(ms: number, check: () => Promise<boolean>): Promise<void> {
  const start = Date.now();
  while (!(await check())) {
    if (Date.now() - start > ms) throw new Error(`not true within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/**
 * `cordon agent` against a real API and resolver on loopback (docs/agent.md): it enrols with the
 * install key, forwards `dig` queries over DoH with its device key and user, reports its user (an
 * internal user appears, whose group policy then applies), applies the exception rules it gets in
 * heartbeats (ByPass OTG → the system resolver, Use Specific Resolver → that resolver), and keeps
 * working from its cached configuration when the API is gone.
 */
describe.each(testDialects())('cordon agent (%s)', (dialect) => {
  let t: TestApp;
  let resolver: RunningResolver;
  let upstream: FakeUpstream;
  let system: FakeUpstream;
  let corp: FakeUpstream;
  let agent: RunningAgent;
  let customerId: number;
  let installKey: string;
  let apiUrl: string;
  let rootPem: string;
  const stateDir = mkdtempSync(join(tmpdir(), 'cordon-agent-'));

  const ok = async (res: { statusCode: number; body: string; json(): unknown }) => {
    if (res.statusCode >= 300) throw new Error(`${res.statusCode} ${res.body}`);
    return res.json() as Record<string, unknown>;
  };
  const startIt = (extra: { installKey?: string; stateDir?: string } = {}) =>
    startAgent({
      server: apiUrl,
      doh: `https://localhost:${resolver.address.doh!.port}`,
      ca: rootPem,
      stateDir,
      listen: { host: '127.0.0.1', port: 0 },
      systemResolver: { host: '127.0.0.1', port: system.port },
      user: 'alice',
      name: 'laptop-1',
      timeoutMs: 2000,
      ...extra,
    });

  beforeAll(async () => {
    t = await createTestApp(dialect);
    await t.handle.db
      .insertInto('category_domains')
      .values({ domain: 'casino.example', category_id: 20, source: 'test' })
      .execute();
    const msp = await ok(
      await call(t.app, t.rootToken, 'POST', '/restapi/msp', { name: 'MSP 1', company_name: 'One' }),
    );
    const c = await ok(
      await call(t.app, t.rootToken, 'POST', '/restapi/users/', {
        accountName: 'Roamers',
        msp_id: msp.id,
        timezone: 'UTC',
      }),
    );
    customerId = c.id as number;
    // The customer's default policy blocks Gambling (moderate), so casino.example is blocked by default.
    await t.handle.db
      .insertInto('policy_categories')
      .values(
        (
          await t.handle.db
            .selectFrom('policies')
            .select('id')
            .where('customer_id', '=', customerId)
            .where('is_default', '=', 1)
            .execute()
        ).map((p) => ({ policy_id: p.id, customer_id: customerId, category_id: 20 })),
      )
      .onConflict((oc) => oc.doNothing())
      .execute();
    await t.changes.publish('policies');
    installKey = (await ok(await call(t.app, t.rootToken, 'GET', `/restapi/users/${customerId}/devices/config`)))
      .install_key as string;
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    apiUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    await ensureRootCa(t.handle, Buffer.from(CA_SECRET, 'utf8'));
    rootPem = (await readRootCertificatePem(t.handle)) ?? '';
    upstream = await startFakeUpstream();
    system = await startFakeUpstream();
    corp = await startFakeUpstream();
    resolver = await startResolver({
      db: t.handle,
      changes: t.changes,
      logger: pino({ level: 'silent' }),
      dns: { host: '127.0.0.1', port: 0 },
      doh: { host: '127.0.0.1', port: 0, tls: { caSecret: CA_SECRET } },
      upstreams: [{ host: '127.0.0.1', port: upstream.port }],
      blockAddresses: { ipv4: BLOCKED, ipv6: '::1' },
      queryLog: { flushMs: 50 },
      upstreamTimeoutMs: 500,
    });
    agent = await startIt({ installKey });
  });

  afterAll(async () => {
    await agent?.close();
    await resolver?.close();
    await upstream?.close();
    await system?.close();
    await corp?.close();
    await t?.close();
  });

  it('enrols with the install key, keeps its device key on disk, and forwards through DoH with its policy', async () => {
    expect(agent.state.deviceKey.length).toBeGreaterThanOrEqual(16);
    const saved = JSON.parse(readFileSync(join(stateDir, 'agent.json'), 'utf8')) as { deviceKey: string };
    expect(saved.deviceKey).toBe(agent.state.deviceKey);
    await until(2000, async () => (await a(agent.address.port, 'casino.example')) === BLOCKED);
    expect(await a(agent.address.port, 'www.example.org')).toBe(UPSTREAM);
    expect(await a(agent.address.port, 'casino.example', '+tcp')).toBe(BLOCKED);
    expect(agent.stats.cordon).toBeGreaterThanOrEqual(3);
  });

  it('shows the device with its last contact, and creates the reported user', async () => {
    await until(3000, async () => agent.stats.heartbeats > 0);
    const list = await ok(await call(t.app, t.rootToken, 'GET', `/restapi/users/${customerId}/devices`));
    const rows = (list.data ?? list.items ?? list) as Array<Record<string, unknown>>;
    const device = (Array.isArray(rows) ? rows : []).find((d) => d.id === agent.state.deviceId);
    expect(device).toBeDefined();
    expect(device?.last_contact ?? device?.last_contact_at).toBeTruthy();
    const user = await t.handle.db
      .selectFrom('internal_users')
      .select(['id', 'name'])
      .where('customer_id', '=', customerId)
      .where('name', '=', 'alice')
      .executeTakeFirst();
    expect(user?.name).toBe('alice');
  });

  it("applies the user's group policy", async () => {
    const now = new Date().toISOString();
    const open = await t.handle.db
      .insertInto('policies')
      .values({
        customer_id: customerId,
        name: 'Open',
        description: '',
        level: 'custom',
        is_default: 0,
        allow_unclassified: 1,
        created_at: now,
        updated_at: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const group = await t.handle.db
      .insertInto('user_groups')
      .values({
        customer_id: customerId,
        name: 'Travellers',
        description: '',
        policy_id: open.id,
        disabled: 0,
        weight: 1,
        created_at: now,
        updated_at: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const alice = await t.handle.db
      .selectFrom('internal_users')
      .select('id')
      .where('customer_id', '=', customerId)
      .where('name', '=', 'alice')
      .executeTakeFirstOrThrow();
    await t.handle.db
      .insertInto('user_group_members')
      .values({ user_id: alice.id, group_id: group.id, customer_id: customerId })
      .execute();
    // A device that inherits the group or default policy.
    await t.handle.db
      .updateTable('devices')
      .set({ policy_mode: 'group' })
      .where('id', '=', agent.state.deviceId)
      .execute();
    await t.changes.publish('policies');
    await t.changes.publish('groups');
    await t.changes.publish('devices');
    await until(1000, async () => (await a(agent.address.port, 'casino.example')) === UPSTREAM);
  });

  it('sends exception names to the system resolver or to the named resolver', async () => {
    const now = new Date().toISOString();
    const exc = await t.handle.db
      .insertInto('device_exceptions')
      .values({ customer_id: customerId, name: 'Office', description: '', created_at: now, updated_at: now })
      .returning('id')
      .executeTakeFirstOrThrow();
    const rule = (domain: string, type: string, resolverAddr: string) => ({
      device_exception_id: exc.id,
      customer_id: customerId,
      domain,
      ip: '',
      resolver: resolverAddr,
      rule_type: type,
      description: '',
      created_at: now,
      updated_at: now,
    });
    await t.handle.db
      .insertInto('device_exception_rules')
      .values([
        rule('lan.example', 'ByPass OTG', ''),
        rule('corp.example', 'Use Specific Resolver', `127.0.0.1:${corp.port}`),
      ])
      .execute();
    await t.handle.db
      .updateTable('devices')
      .set({ device_exception_id: exc.id })
      .where('id', '=', agent.state.deviceId)
      .execute();
    await t.changes.publish('devices');
    expect(await agent.heartbeat()).toBe(true);
    expect(agent.state.config?.rules.map((r) => r.domain).sort()).toEqual(['corp.example', 'lan.example']);
    await a(agent.address.port, 'printer.lan.example');
    expect(system.queries.get('printer.lan.example')).toBe(1);
    expect(upstream.queries.get('printer.lan.example')).toBeUndefined();
    await a(agent.address.port, 'wiki.corp.example');
    expect(corp.queries.get('wiki.corp.example')).toBe(1);
    expect(upstream.queries.get('wiki.corp.example')).toBeUndefined();
    expect(await a(agent.address.port, 'www.example.net')).toBe(UPSTREAM);
    expect(upstream.queries.get('www.example.net')).toBe(1);
  });

  it('enrols again with its install key when its device is removed in the console', async () => {
    const second = await startIt({ installKey, stateDir: mkdtempSync(join(tmpdir(), 'cordon-agent-2-')) });
    try {
      const before = second.state.deviceId;
      expect(before).not.toBe(agent.state.deviceId);
      await ok(await call(t.app, t.rootToken, 'DELETE', `/restapi/users/${customerId}/devices/${before}`));
      expect(await second.heartbeat()).toBe(true);
      expect(second.state.deviceId).not.toBe(before);
      await until(2000, async () => (await a(second.address.port, 'www.example.com')) === UPSTREAM);
    } finally {
      await second.close();
    }
  });

  it('keeps working from its cached configuration when Cordon is unreachable', async () => {
    await agent.close();
    await t.app.close();
    agent = await startIt(); // no install key: the cached device key and rules
    expect(await agent.heartbeat()).toBe(false);
    expect(agent.state.config?.rules).toHaveLength(2);
    await a(agent.address.port, 'nas.lan.example');
    expect(system.queries.get('nas.lan.example')).toBe(1);
    expect(await a(agent.address.port, 'casino.example')).toBe(UPSTREAM);
  });

  it('refuses to start without a device key or an install key, and with a wrong install key', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'cordon-agent-empty-'));
    await expect(
      startAgent({
        server: apiUrl,
        doh: 'https://localhost:1',
        stateDir: empty,
        listen: { host: '127.0.0.1', port: 0 },
      }),
    ).rejects.toThrow(/install key/);
  });
});

describe('agent wire and rules', () => {
  it('adds the user option to a query with or without an OPT record', () => {
    const plain = Buffer.from('abcd01000001000000000000076578616d706c6503636f6d0000010001', 'hex');
    const added = withEdnsOptions(plain, [{ code: 65074, value: Buffer.from('bob') }]);
    expect(added.readUInt16BE(10)).toBe(1);
    expect(readQuestion(added)?.qname).toBe('example.com');
    expect(added.subarray(-7).toString('hex')).toBe(`fe320003${Buffer.from('bob').toString('hex')}`);
    const twice = withEdnsOptions(added, [{ code: 65073, value: Buffer.from('k') }]);
    expect(twice.readUInt16BE(10)).toBe(1);
    expect(twice.length).toBe(added.length + 5);
  });

  it('truncates an answer larger than the client accepts over UDP (TC set, question kept)', () => {
    const plain = Buffer.from('abcd01000001000000000000076578616d706c6503636f6d0000010001', 'hex');
    expect(udpLimit(plain)).toBe(512);
    const edns = withEdnsOptions(plain, [{ code: 10, value: Buffer.alloc(8) }]);
    expect(udpLimit(edns)).toBe(1232);
    const answer = Buffer.concat([
      Buffer.from('abcd81800001000100000000076578616d706c6503636f6d0000010001', 'hex'),
      Buffer.alloc(600),
    ]);
    const cut = fitUdp(plain, answer);
    expect(cut.length).toBe(29);
    expect(cut.readUInt16BE(2) & 0x0200).toBe(0x0200);
    expect(cut.readUInt16BE(6)).toBe(0);
    expect(fitUdp(edns, answer)).toBe(answer);
  });

  it('routes by the first matching rule in id order, by domain suffix and source range', () => {
    const route = compileRules([
      { id: 2, domain: 'corp.example', ip: '', resolver: '10.0.0.53', rule_type: 'Use Specific Resolver' },
      { id: 1, domain: 'lan.corp.example', ip: '', resolver: '', rule_type: 'ByPass OTG' },
      { id: 3, domain: '', ip: '192.168.5.0/24', resolver: '[2001:db8::53]:5353', rule_type: 'Use Specific Resolver' },
      { id: 4, domain: 'bad.example', ip: '', resolver: 'not-an-ip', rule_type: 'Use Specific Resolver' },
    ]);
    expect(route('x.lan.corp.example', '127.0.0.1')).toMatchObject({ kind: 'system', ruleId: 1 });
    expect(route('corp.example', '127.0.0.1')).toMatchObject({ kind: 'resolver', host: '10.0.0.53', port: 53 });
    expect(route('notcorp.example', '127.0.0.1')).toEqual({ kind: 'cordon' });
    expect(route('any.example', '192.168.5.7')).toMatchObject({ kind: 'resolver', host: '2001:db8::53', port: 5353 });
    expect(route('bad.example', '127.0.0.1')).toEqual({ kind: 'cordon' });
  });
});
