import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { addressClaimColumns, type ChangeFeed, type DatabaseHandle } from '@cordon/db';
import { createTestDatabase, testDialects } from '@cordon/db/testing';
import { ensureRootCa, readRootCertificatePem } from '@cordon/pki';
import dnsPacket from 'dns-packet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningResolver } from '../src/index.ts';
import { dig } from './helpers/dig.ts';
import { type FakeUpstream, startFakeUpstream } from './helpers/fake-upstream.ts';
import { type Seeded, seedTenants } from './helpers/seed.ts';
import { type ResolverStack, startResolverStack, within } from './helpers/stack.ts';

const run = promisify(execFile);
const CA_SECRET = 'identification-test-ca-secret-0123456789';
/** What the fake upstream answers for any A question; a blocked A answers the block address 127.0.0.1. */
const ALLOWED = '192.0.2.10';
const BLOCKED = '127.0.0.1';

const hex = (s: string) => Buffer.from(s, 'utf8').toString('hex');
const keyOpt = (key: string) => `+ednsopt=65073:${hex(key)}`;
const userOpt = (user: string) => `+ednsopt=65074:${hex(user)}`;

/** The first A record's address of a dig run, or its status when there is none. */
async function aOf(port: number, ...args: string[]): Promise<string> {
  const r = await dig(port, ...args);
  return r.answers.find((a) => a.type === 'A')?.data ?? r.status;
}

/**
 * Identification and policy precedence over real sockets (docs/architecture.md "Identification";
 * docs/agent.md "Wire format"): the DoH path key (kdig +https), the EDNS(0) device key with the
 * agent's user (dig +ednsopt) from an address no location claims, the source address, and the
 * precedence user → group → device → device configuration → customer default.
 *
 * Seed (customer Acme; seedTenants adds its default policy blocking Gambling 20 and location HQ at
 * 127.0.0.1): policies NewsBlock (blocks News 39) and Open (blocks nothing); groups Relaxed
 * (Open, weight 1), Newsless (NewsBlock, weight 2), Off (Open, disabled); users alice (own policy
 * Open), bob (Relaxed and Newsless), carol (Off only); devices dflt (mode default), named (mode
 * policy, NewsBlock), grp (mode group), foreign (mode policy naming Beta's policy); a virtual
 * location with key vkey-acme and policy NewsBlock. So `gambling.example` is blocked and
 * `news.example` allowed under the default, the reverse under NewsBlock, both allowed under Open.
 */
describe.each(testDialects())('identification with dig and kdig (%s)', (dialect) => {
  let handle: DatabaseHandle;
  let stack: ResolverStack;
  let changes: ChangeFeed;
  let resolver: RunningResolver;
  let port: number;
  let dohPort: number;
  let seeded: Seeded;
  let corp: FakeUpstream;
  let caFile: string;
  const ids: Record<string, number> = {};

  const now = () => new Date().toISOString();
  const ts = () => ({ created_at: now(), updated_at: now() });

  const kdig = async (path: string, ...args: string[]): Promise<string> => {
    const { stdout } = await run(
      'kdig',
      [
        '@127.0.0.1',
        '-p',
        String(dohPort),
        `+https=${path}`,
        `+tls-ca=${caFile}`,
        '+tls-hostname=localhost',
        '+retry=0',
        '+timeout=3',
        ...args,
      ],
      { timeout: 15_000 },
    );
    return stdout;
  };
  /** The first A address of kdig's answer, or its status. */
  const kdigA = async (path: string, name: string, ...args: string[]) => {
    const out = await kdig(path, name, 'A', ...args);
    const a = /\bIN\s+A\s+([0-9.]+)/.exec(out.split(';; ANSWER SECTION:')[1] ?? '')?.[1];
    return a ?? /status: ([A-Z]+)/.exec(out)?.[1] ?? out;
  };
  /** An HTTPS request to the DoH listener trusting the deployment root; resolves with the status and body. */
  const https = (method: string, path: string, body?: Buffer, type = 'application/dns-message') =>
    new Promise<{ status: number; type: string; body: Buffer }>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: dohPort,
          method,
          path,
          servername: 'localhost',
          ca: readFileSync(caFile, 'utf8'),
          headers: body ? { 'content-type': type, 'content-length': body.length } : {},
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              type: String(res.headers['content-type'] ?? ''),
              body: Buffer.concat(chunks),
            }),
          );
        },
      );
      req.on('error', reject);
      req.end(body);
    });

  beforeAll(async () => {
    handle = await createTestDatabase(dialect);
    seeded = await seedTenants(handle);
    const db = handle.db;
    const acme = seeded.customerId;
    const policy = async (name: string, blocked: number[], customerId = acme) => {
      const p = await db
        .insertInto('policies')
        .values({
          customer_id: customerId,
          name,
          description: '',
          level: 'custom',
          is_default: 0,
          allow_unclassified: 1,
          ...ts(),
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      for (const c of blocked) {
        await db
          .insertInto('policy_categories')
          .values({ policy_id: p.id, customer_id: customerId, category_id: c })
          .execute();
      }
      return p.id;
    };
    ids.newsBlock = await policy('NewsBlock', [39]);
    ids.open = await policy('Open', []);
    const group = async (name: string, policyId: number, weight: number, disabled = 0) =>
      (
        await db
          .insertInto('user_groups')
          .values({ customer_id: acme, name, description: '', policy_id: policyId, disabled, weight, ...ts() })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id;
    ids.relaxed = await group('Relaxed', ids.open, 1);
    ids.newsless = await group('Newsless', ids.newsBlock, 2);
    ids.off = await group('Off', ids.open, 3, 1);
    const user = async (name: string, policyId: number | null, groups: number[]) => {
      const u = await db
        .insertInto('internal_users')
        .values({
          customer_id: acme,
          name,
          description: '',
          policy_id: policyId,
          last_login_at: null,
          last_login_ip: '',
          last_device_id: null,
          ...ts(),
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      for (const g of groups) {
        await db.insertInto('user_group_members').values({ user_id: u.id, group_id: g, customer_id: acme }).execute();
      }
      return u.id;
    };
    ids.alice = await user('alice', ids.open, [ids.newsless]);
    ids.bob = await user('bob', null, [ids.newsless, ids.relaxed]);
    ids.carol = await user('carol', null, [ids.off]);
    const device = async (key: string, mode: string, policyId: number | null) =>
      (
        await db
          .insertInto('devices')
          .values({ customer_id: acme, key, name: key, policy_mode: mode, policy_id: policyId, ...ts() })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id;
    ids.dflt = await device('dflt-key', 'default', null);
    ids.named = await device('named-key', 'policy', ids.newsBlock);
    ids.grp = await device('grp-key', 'group', null);
    ids.foreign = await device('foreign-key', 'policy', seeded.otherPolicyId);
    // The users each device may assert (docs/security.md "Identity claims"); alice is not grp-key's.
    const bind = (deviceId: number, userId: number) =>
      db
        .insertInto('device_users')
        .values({ device_id: deviceId, user_id: userId, customer_id: acme, source: 'admin', created_at: now() })
        .execute();
    for (const d of [ids.named, ids.dflt, ids.grp]) for (const u of [ids.bob, ids.carol]) await bind(d!, u!);
    await bind(ids.named, ids.alice);
    await bind(ids.dflt, ids.alice);
    ids.virtual = (
      await db
        .insertInto('locations')
        .values({
          customer_id: acme,
          type: 'virtual',
          name: 'Laptops',
          policy_id: ids.newsBlock,
          key: 'vkey-acme',
          ...ts(),
        })
        .returning('id')
        .executeTakeFirstOrThrow()
    ).id;
    // A dynamic-IP location holding no address yet: the test gives it one later.
    ids.dynamic = (
      await db
        .insertInto('locations')
        .values({ customer_id: acme, type: 'dynamicip', name: 'Home', policy_id: ids.open, key: 'update-key', ...ts() })
        .returning('id')
        .executeTakeFirstOrThrow()
    ).id;

    await ensureRootCa(handle, Buffer.from(CA_SECRET, 'utf8'));
    const dir = mkdtempSync(join(tmpdir(), 'cordon-doh-'));
    caFile = join(dir, 'root.pem');
    writeFileSync(caFile, (await readRootCertificatePem(handle)) ?? '');
    corp = await startFakeUpstream();
    stack = await startResolverStack(handle, {
      doh: { host: '127.0.0.1', port: 0, tls: { caSecret: CA_SECRET } },
    });
    ({ changes, resolver, port } = stack);
    dohPort = resolver.address.doh!.port;
  });

  afterAll(async () => {
    await stack?.close();
    await corp?.close();
    await handle?.close();
  });

  it('identifies by source address, and refuses an address no location claims (never an open resolver)', async () => {
    expect(await aOf(port, 'gambling.example', 'A')).toBe(BLOCKED);
    expect(await aOf(port, 'news.example', 'A')).toBe(ALLOWED);
    expect(await aOf(port, '-b', '127.0.0.2', 'news.example', 'A')).toBe('REFUSED');
    // The dynamic-IP location's key is its update URL's, never an identity.
    expect(await aOf(port, '-b', '127.0.0.2', keyOpt('update-key'), 'news.example', 'A')).toBe('REFUSED');
  });

  it('identifies a device by its EDNS(0) key from any address; an unknown key falls back to the address', async () => {
    expect(await aOf(port, '-b', '127.0.0.2', keyOpt('named-key'), 'news.example', 'A')).toBe(BLOCKED);
    expect(await aOf(port, '-b', '127.0.0.2', keyOpt('named-key'), 'gambling.example', 'A')).toBe(ALLOWED);
    // Over TCP too.
    expect(await aOf(port, '+tcp', '-b', '127.0.0.2', keyOpt('named-key'), 'news.example', 'A')).toBe(BLOCKED);
    expect(await aOf(port, '-b', '127.0.0.2', keyOpt('no-such-key'), 'news.example', 'A')).toBe('REFUSED');
    expect(await aOf(port, keyOpt('no-such-key'), 'gambling.example', 'A')).toBe(BLOCKED);
    // A device without a user or policy of its own: the customer default.
    expect(await aOf(port, '-b', '127.0.0.2', keyOpt('dflt-key'), 'gambling.example', 'A')).toBe(BLOCKED);
  });

  it('never applies another customer’s policy named by a device', async () => {
    // foreign-key names Beta's Open policy: skipped, Acme's default applies.
    expect(await aOf(port, '-b', '127.0.0.2', keyOpt('foreign-key'), 'gambling.example', 'A')).toBe(BLOCKED);
  });

  it('applies the precedence user → highest-ranked group → device → customer default', async () => {
    const q = (device: string, user: string, name: string) =>
      aOf(port, '-b', '127.0.0.2', keyOpt(device), userOpt(user), name, 'A');
    // alice's own policy (Open) beats her group and any device choice.
    expect(await q('named-key', 'alice', 'news.example')).toBe(ALLOWED);
    expect(await q('dflt-key', 'alice', 'gambling.example')).toBe(ALLOWED);
    // bob: Relaxed (weight 1, Open) outranks Newsless (weight 2) and the device's named policy…
    expect(await q('grp-key', 'bob', 'news.example')).toBe(ALLOWED);
    expect(await q('named-key', 'bob', 'news.example')).toBe(ALLOWED);
    // …but a device that inherits the default policy skips groups.
    expect(await q('dflt-key', 'bob', 'gambling.example')).toBe(BLOCKED);
    // carol's only group is disabled: the device's choice, then the default.
    expect(await q('grp-key', 'carol', 'gambling.example')).toBe(BLOCKED);
    expect(await q('named-key', 'carol', 'news.example')).toBe(BLOCKED);
    // An unknown user is the device alone.
    expect(await q('named-key', 'mallory', 'news.example')).toBe(BLOCKED);
  });

  it("never gives a device a user's policy unless the user is bound to it (issue 30: asserting another user)", async () => {
    // alice's own policy is Open; grp-key may not assert her: the device's own choice (the default) applies.
    expect(await aOf(port, '-b', '127.0.0.2', keyOpt('grp-key'), userOpt('alice'), 'gambling.example', 'A')).toBe(
      BLOCKED,
    );
    expect(await aOf(port, keyOpt('grp-key'), userOpt('alice'), 'gambling.example', 'A')).toBe(BLOCKED);
    // Bound by an admin, she gets her policy on that device within a second.
    await handle.db
      .insertInto('device_users')
      .values({
        device_id: ids.grp!,
        user_id: ids.alice!,
        customer_id: seeded.customerId,
        source: 'admin',
        created_at: now(),
      })
      .execute();
    await changes.publish('devices');
    await within(
      1000,
      async () =>
        (await aOf(port, '-b', '127.0.0.2', keyOpt('grp-key'), userOpt('alice'), 'gambling.example', 'A')) === ALLOWED,
    );
    await handle.db
      .deleteFrom('device_users')
      .where('device_id', '=', ids.grp!)
      .where('user_id', '=', ids.alice!)
      .execute();
    await changes.publish('devices');
    await within(
      1000,
      async () =>
        (await aOf(port, '-b', '127.0.0.2', keyOpt('grp-key'), userOpt('alice'), 'gambling.example', 'A')) === BLOCKED,
    );
  });

  it("gives a device inheriting the default the customer's device configuration, and follows group changes within a second", async () => {
    await handle.db
      .insertInto('device_settings')
      .values({
        customer_id: seeded.customerId,
        install_key: 'install-acme',
        install_key_created_at: now(),
        policy_mode: 'policy',
        policy_id: ids.newsBlock!,
        device_exception_id: null,
        advanced_config: null,
        updated_at: now(),
      })
      .execute();
    await changes.publish('devices');
    const took = await within(
      1000,
      async () => (await aOf(port, '-b', '127.0.0.2', keyOpt('dflt-key'), 'news.example', 'A')) === BLOCKED,
    );
    expect(took).toBeLessThan(1000);
    // Relaxed disabled: bob falls to Newsless.
    await handle.db.updateTable('user_groups').set({ disabled: 1 }).where('id', '=', ids.relaxed!).execute();
    await changes.publish('groups');
    await within(
      1000,
      async () =>
        (await aOf(port, '-b', '127.0.0.2', keyOpt('grp-key'), userOpt('bob'), 'news.example', 'A')) === BLOCKED,
    );
    // The configuration's choice "inherit group or default": dflt-key now uses bob's group.
    await handle.db
      .updateTable('device_settings')
      .set({ policy_mode: 'group', policy_id: null })
      .where('customer_id', '=', seeded.customerId)
      .execute();
    await changes.publish('devices');
    await within(
      1000,
      async () => (await aOf(port, '-b', '127.0.0.2', keyOpt('dflt-key'), 'news.example', 'A')) === ALLOWED,
    );
    expect(await aOf(port, '-b', '127.0.0.2', keyOpt('dflt-key'), userOpt('bob'), 'news.example', 'A')).toBe(BLOCKED);
    // Back to the named policy for the tests below.
    await handle.db
      .updateTable('device_settings')
      .set({ policy_mode: 'policy', policy_id: ids.newsBlock! })
      .where('customer_id', '=', seeded.customerId)
      .execute();
    await changes.publish('devices');
    await within(
      1000,
      async () => (await aOf(port, '-b', '127.0.0.2', keyOpt('dflt-key'), 'news.example', 'A')) === BLOCKED,
    );
  });

  it('takes a dynamic address update into account within one second', async () => {
    expect(await aOf(port, '-b', '127.0.0.4', 'gambling.example', 'A')).toBe('REFUSED');
    await handle.db
      .insertInto('location_addresses')
      .values({
        location_id: ids.dynamic!,
        customer_id: seeded.customerId,
        ...addressClaimColumns('127.0.0.4/32'),
        created_at: now(),
      })
      .execute();
    await changes.publish('locations');
    const took = await within(
      1000,
      async () => (await aOf(port, '-b', '127.0.0.4', 'gambling.example', 'A')) === ALLOWED,
    );
    expect(took).toBeLessThan(1000);
  });

  it("sends a device exception's Use Specific Resolver names to that resolver", async () => {
    const exc = await handle.db
      .insertInto('device_exceptions')
      .values({ customer_id: seeded.customerId, name: 'Intranet', description: '', ...ts() })
      .returning('id')
      .executeTakeFirstOrThrow();
    await handle.db
      .insertInto('device_exception_rules')
      .values([
        {
          device_exception_id: exc.id,
          customer_id: seeded.customerId,
          domain: 'corp.example',
          ip: '',
          resolver: `127.0.0.1:${corp.port}`,
          rule_type: 'Use Specific Resolver',
          description: '',
          ...ts(),
        },
        {
          device_exception_id: exc.id,
          customer_id: seeded.customerId,
          domain: 'news.example',
          ip: '',
          resolver: '',
          rule_type: 'ByPass OTG',
          description: '',
          ...ts(),
        },
      ])
      .execute();
    await handle.db.updateTable('devices').set({ device_exception_id: exc.id }).where('id', '=', ids.named!).execute();
    await changes.publish('devices');
    await within(1000, async () => {
      await dig(port, '-b', '127.0.0.2', keyOpt('named-key'), 'wiki.corp.example', 'A');
      return corp.queries.get('wiki.corp.example') === 1;
    });
    // In force now (a dig before the devices part reloaded may have gone upstream): a new name under
    // the rule's domain goes to its resolver and never to the upstreams.
    await dig(port, '-b', '127.0.0.2', keyOpt('named-key'), 'intranet.corp.example', 'A');
    expect(corp.queries.get('intranet.corp.example')).toBe(1);
    expect(stack.upstream.queries.get('intranet.corp.example')).toBeUndefined();
    // Another device (no exception) resolves it through the upstreams.
    await dig(port, '-b', '127.0.0.2', keyOpt('grp-key'), 'www.corp.example', 'A');
    expect(corp.queries.get('www.corp.example')).toBeUndefined();
    // A device naming another customer's exception (a row written by hand) gets nothing of it.
    const foreign = await handle.db
      .insertInto('device_exceptions')
      .values({ customer_id: seeded.otherCustomerId, name: 'Beta intranet', description: '', ...ts() })
      .returning('id')
      .executeTakeFirstOrThrow();
    await handle.db
      .insertInto('device_exception_rules')
      .values({
        device_exception_id: foreign.id,
        customer_id: seeded.otherCustomerId,
        domain: 'beta.example',
        ip: '',
        resolver: `127.0.0.1:${corp.port}`,
        rule_type: 'Use Specific Resolver',
        description: '',
        ...ts(),
      })
      .execute();
    await handle.db
      .updateTable('devices')
      .set({ device_exception_id: foreign.id })
      .where('id', '=', ids.foreign!)
      .execute();
    // A new device in the same change: once it answers, the reload that read the exception is in.
    await handle.db
      .insertInto('devices')
      .values({
        customer_id: seeded.customerId,
        key: 'probe-key',
        name: 'probe',
        policy_mode: 'default',
        policy_id: null,
        ...ts(),
      })
      .execute();
    await changes.publish('devices');
    await within(
      1000,
      async () => (await aOf(port, '-b', '127.0.0.2', keyOpt('probe-key'), 'news.example', 'A')) !== 'REFUSED',
    );
    await dig(port, '-b', '127.0.0.2', keyOpt('foreign-key'), 'www.beta.example', 'A');
    expect(corp.queries.get('www.beta.example')).toBeUndefined();
    expect(stack.upstream.queries.get('www.beta.example')).toBe(1);
    // ByPass OTG is the agent's business (its system resolver): a query reaching Cordon is filtered.
    expect(await aOf(port, '-b', '127.0.0.2', keyOpt('named-key'), 'news.example', 'A')).toBe(BLOCKED);
  });

  it("answers DoH (RFC 8484) to a virtual location's key with that location's policy", async () => {
    expect(await kdigA('/dns-query/vkey-acme', 'news.example')).toBe(BLOCKED);
    expect(await kdigA('/dns-query/vkey-acme', 'gambling.example')).toBe(ALLOWED);
    expect(await kdigA('/dns-query/vkey-acme', 'gambling.example', '+https-get')).toBe(ALLOWED);
    // A device key in the path, with the user of option 65074.
    // dflt-key inherits the customer's device configuration (NewsBlock, set above)…
    expect(await kdigA('/dns-query/dflt-key', 'news.example')).toBe(BLOCKED);
    // …grp-key has a choice of its own (group, else the default): the configuration does not apply.
    expect(await kdigA('/dns-query/grp-key', 'news.example')).toBe(ALLOWED);
    expect(await kdigA('/dns-query/named-key', 'news.example', `+ednsopt=65074:${hex('alice')}`)).toBe(ALLOWED);
    expect(resolver.metrics.doh.queries).toBeGreaterThanOrEqual(5);
    expect(resolver.metrics.identifiedBy.locationKey).toBeGreaterThanOrEqual(3);
  });

  it('answers 404 to an unknown key or path, and 4xx to what is not a DoH request', async () => {
    const query = dnsPacket.encode({
      type: 'query',
      id: 0,
      flags: dnsPacket.RECURSION_DESIRED,
      questions: [{ name: 'news.example', type: 'A' }],
    });
    expect((await https('POST', '/dns-query/no-such-key', query)).status).toBe(404);
    expect((await https('POST', '/dns-query/update-key', query)).status).toBe(404);
    expect((await https('POST', '/dns-query', query)).status).toBe(404);
    expect((await https('GET', `/dns-query/no-such-key?dns=${query.toString('base64url')}`)).status).toBe(404);
    expect((await https('GET', '/dns-query/vkey-acme')).status).toBe(400);
    expect((await https('GET', '/dns-query/vkey-acme?dns=!!!')).status).toBe(400);
    expect((await https('POST', '/dns-query/vkey-acme', query, 'text/plain')).status).toBe(415);
    expect((await https('POST', '/dns-query/vkey-acme', Buffer.alloc(70_000))).status).toBe(413);
    expect((await https('PUT', '/dns-query/vkey-acme', query)).status).toBe(405);
    const ok = await https('GET', `/dns-query/vkey-acme?dns=${query.toString('base64url')}`);
    expect(ok.status).toBe(200);
    expect(ok.type).toBe('application/dns-message');
    const answer = dnsPacket.decode(ok.body);
    expect(answer.answers?.[0]).toMatchObject({ type: 'A', data: BLOCKED });
  });

  it("follows a virtual location's regenerated key within a second: the old key is 404 at once", async () => {
    const query = dnsPacket.encode({
      type: 'query',
      id: 0,
      flags: dnsPacket.RECURSION_DESIRED,
      questions: [{ name: 'news.example', type: 'A' }],
    });
    const get = (key: string) => https('GET', `/dns-query/${key}?dns=${query.toString('base64url')}`);
    await handle.db.updateTable('locations').set({ key: 'vkey-acme-2' }).where('id', '=', ids.virtual!).execute();
    await changes.publish('locations');
    const took = await within(1000, async () => (await get('vkey-acme-2')).status === 200);
    expect(took).toBeLessThan(1000);
    expect((await get('vkey-acme')).status).toBe(404);
  });

  it('logs the device and location of DoH and EDNS queries in the query log', async () => {
    await within(2000, async () => {
      const rows = await handle.db
        .selectFrom('query_log')
        .select(['protocol', 'location_id'])
        .where('protocol', '=', 'doh')
        .execute();
      return rows.some((r) => r.location_id === ids.virtual);
    });
  });

  it('logs who asked: the device of a DoH or EDNS(0) key and the user and group the agent reported', async () => {
    expect(await kdigA('/dns-query/named-key', 'who-doh.example', `+ednsopt=65074:${hex('alice')}`)).toBe(ALLOWED);
    expect(await aOf(port, '-b', '127.0.0.2', keyOpt('grp-key'), userOpt('bob'), 'who-edns.example', 'A')).toBeTruthy();
    expect(await aOf(port, '-b', '127.0.0.2', keyOpt('dflt-key'), 'who-device.example', 'A')).toBeTruthy();
    expect(await aOf(port, 'who-address.example', 'A')).toBeTruthy();
    const logged = async () =>
      handle.db
        .selectFrom('query_log')
        .select(['qname', 'protocol', 'device_id', 'user_id', 'user_name', 'group_id'])
        .where('qname', 'in', ['who-doh.example', 'who-edns.example', 'who-device.example', 'who-address.example'])
        .orderBy('qname')
        .execute();
    await within(3000, async () => (await logged()).length === 4);
    expect(await logged()).toEqual([
      { qname: 'who-address.example', protocol: 'udp', device_id: null, user_id: null, user_name: '', group_id: null },
      {
        qname: 'who-device.example',
        protocol: 'udp',
        device_id: ids.dflt,
        user_id: null,
        user_name: '',
        group_id: null,
      },
      // alice's one group is Newsless; bob's too since Relaxed was disabled above.
      {
        qname: 'who-doh.example',
        protocol: 'doh',
        device_id: ids.named,
        user_id: ids.alice,
        user_name: 'alice',
        group_id: ids.newsless,
      },
      {
        qname: 'who-edns.example',
        protocol: 'udp',
        device_id: ids.grp,
        user_id: ids.bob,
        user_name: 'bob',
        group_id: ids.newsless,
      },
    ]);
  });
});
