import { addressClaimColumns, type DatabaseHandle } from '@cordon/db';
import { createTestDatabase, testDialects } from '@cordon/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dig } from './helpers/dig.ts';
import { type Seeded, seedTenants } from './helpers/seed.ts';
import { type ResolverStack, startResolverStack } from './helpers/stack.ts';

/**
 * The address-hijack and open-resolver attacks of a database written before address claims
 * (docs/security.md), against the real resolver with `dig -b`. Acme (the victim, blocking Gambling)
 * holds 127.0.0.1/32; Beta (the attacker, blocking nothing) holds 127.0.0.3/32 and, inserted
 * directly as the old API let it, rows that once took Acme's traffic or answered everybody.
 * The fake upstream answers every name with 192.0.2.10; the block address is 127.0.0.1.
 */
describe.each(testDialects())('address claims in the resolver with dig (%s)', (dialect) => {
  let handle: DatabaseHandle;
  let seeded: Seeded;
  let port: number;
  let stack: ResolverStack;

  beforeAll(async () => {
    handle = await createTestDatabase(dialect);
    seeded = await seedTenants(handle);
    const now = new Date().toISOString();
    const claim = async (customerId: number, ip: string, canonical: boolean) => {
      const loc = await handle.db
        .insertInto('locations')
        .values({
          customer_id: customerId,
          type: 'staticip',
          name: ip,
          policy_id: null,
          key: null,
          created_at: now,
          updated_at: now,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      // A pre-fix row keeps its old text and has no range (as if written by hand, after migration 0002).
      const columns = canonical ? addressClaimColumns(ip) : { ip, family: 0, range_start: '', range_end: '' };
      await handle.db
        .insertInto('location_addresses')
        .values({ location_id: loc.id, customer_id: customerId, ...columns, created_at: now })
        .execute();
    };
    const acme = seeded.customerId;
    const beta = seeded.otherCustomerId;
    await claim(acme, '127.0.5.0/24', true);
    // The attacker's rows, newer than the victim's: the old snapshot let the newest of equal ranges win.
    await claim(beta, '::ffff:7f00:1/128', false); // Acme's 127.0.0.1/32, spelt IPv4-mapped
    await claim(beta, '::ffff:0:0/96', false); // 0.0.0.0/0 in disguise: an open resolver
    await claim(beta, '0.0.0.0/0', false);
    await claim(beta, '::/0', false);
    // A narrower claim a system admin assigned inside Acme's /24: longest prefix still wins.
    await claim(beta, '127.0.5.9/32', true);
    stack = await startResolverStack(handle);
    ({ port } = stack);
  });

  afterAll(async () => {
    await stack?.close();
    await handle?.close();
  });

  it("answers the victim's source with the victim's policy, and logs it as the victim's", async () => {
    const r = await dig(port, '-b', '127.0.0.1', 'gambling.example', 'A');
    expect(r.status).toBe('NOERROR');
    expect(r.answers).toEqual([{ name: 'gambling.example.', ttl: 60, type: 'A', data: '127.0.0.1' }]);
    const tcp = await dig(port, '+tcp', '-b', '127.0.0.1', 'www.gambling.example', 'A');
    expect(tcp.answers[0]?.data).toBe('127.0.0.1');
    const start = Date.now();
    let rows: Array<{ customer_id: number; client_ip: string }> = [];
    while (rows.length < 2 && Date.now() - start < 2000) {
      await new Promise((done) => setTimeout(done, 50));
      rows = await handle.db.selectFrom('query_log').select(['customer_id', 'client_ip']).execute();
    }
    expect(rows).toEqual([
      { customer_id: seeded.customerId, client_ip: '127.0.0.1' },
      { customer_id: seeded.customerId, client_ip: '127.0.0.1' },
    ]);
  });

  it('refuses a source no claim covers, though rows for /0 and ::ffff:0:0/96 exist', async () => {
    for (const source of ['127.0.0.2', '127.0.6.1']) {
      const r = await dig(port, '-b', source, 'example.org', 'A');
      expect(r.status, source).toBe('REFUSED');
      expect(r.answers).toEqual([]);
    }
  });

  it("answers the attacker's own source with its own policy, and a narrower assigned claim by longest prefix", async () => {
    expect((await dig(port, '-b', '127.0.0.3', 'gambling.example', 'A')).answers[0]?.data).toBe('192.0.2.10');
    expect((await dig(port, '-b', '127.0.5.9', 'gambling.example', 'A')).answers[0]?.data).toBe('192.0.2.10');
    expect((await dig(port, '-b', '127.0.5.10', 'gambling.example', 'A')).answers[0]?.data).toBe('127.0.0.1');
  });
});
