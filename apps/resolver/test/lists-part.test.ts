import { createTestDatabase, testDialects } from '@cordon/db/testing';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { createListsPart } from '../src/snapshot/lists.ts';
import { seedTenants } from './helpers/seed.ts';

const silent = pino({ level: 'silent' });
/** Rows written here by hand carry no change stamp: the row digests, read on every load, find them. */
const listsPart = createListsPart({ rowDigestEveryMs: 0 });

describe.each(testDialects())('the lists part on %s', (dialect) => {
  it('loads packed indexes per policy, MSP and system, and a reload sees added and deleted entries', async () => {
    const handle = await createTestDatabase(dialect);
    try {
      const seeded = await seedTenants(handle);
      const db = handle.db;
      const mspId = (await db.selectFrom('msps').select('id').executeTakeFirstOrThrow()).id;
      const ts = { created_at: new Date().toISOString(), updated_at: new Date().toISOString() };
      const entry = (domain: string, action: string, subdomains: boolean) => ({
        domain,
        action,
        include_subdomains: subdomains ? 1 : 0,
        comment: '',
        log_requests: 1,
        ...ts,
      });
      const policyRow = (policyId: number, customerId: number, domain: string, action: string, sub: boolean) => ({
        policy_id: policyId,
        customer_id: customerId,
        ...entry(domain, action, sub),
      });
      await db
        .insertInto('policy_domains')
        .values([
          policyRow(seeded.defaultPolicyId, seeded.customerId, 'Tree.Example.', 'block', true),
          policyRow(seeded.defaultPolicyId, seeded.customerId, 'only.example', 'block', false),
          policyRow(seeded.defaultPolicyId, seeded.customerId, 'ok.tree.example', 'allow', true),
          policyRow(seeded.otherPolicyId, seeded.otherCustomerId, 'other.example', 'block', true),
        ])
        .execute();
      await db
        .insertInto('global_domains')
        .values([
          { msp_id: mspId, ...entry('msp.example', 'block', true) },
          { msp_id: null, ...entry('sys.example', 'allow', false) },
        ])
        .execute();

      const first = await listsPart.load(handle, silent, null);
      const own = first.policy.get(seeded.defaultPolicyId)!;
      // Normalised on load (lower case, no trailing dot); a subtree entry matches below it, an exact one does not.
      expect(own.block.lookup('tree.example')).toBe(true);
      expect(own.block.lookup('a.b.tree.example')).toBe(true);
      expect(own.block.lookup('only.example')).toBe(true);
      expect(own.block.lookup('www.only.example')).toBeUndefined();
      expect(own.allow.lookup('x.ok.tree.example')).toBe(true);
      expect(own.allow.lookup('tree.example')).toBeUndefined();
      // Tenants stay apart.
      expect(own.block.lookup('other.example')).toBeUndefined();
      expect(first.policy.get(seeded.otherPolicyId)?.block.lookup('x.other.example')).toBe(true);
      expect(first.msp.get(mspId)?.block.lookup('a.msp.example')).toBe(true);
      expect(first.system.allow.lookup('sys.example')).toBe(true);
      expect(first.system.allow.lookup('a.sys.example')).toBeUndefined();
      // Packed by the load itself, not on the first query.
      expect(own.block.byteSize).toBeGreaterThan(0);

      await db.deleteFrom('policy_domains').where('domain', '=', 'only.example').execute();
      await db
        .insertInto('policy_domains')
        .values(policyRow(seeded.defaultPolicyId, seeded.customerId, 'new.example', 'block', true))
        .execute();
      const second = await listsPart.load(handle, silent, first);
      const reloaded = second.policy.get(seeded.defaultPolicyId)!;
      expect(reloaded.block.lookup('only.example')).toBeUndefined();
      expect(reloaded.block.lookup('x.new.example')).toBe(true);
      expect(reloaded.block.lookup('a.tree.example')).toBe(true);
      expect(reloaded.block.size).toBe(2);
      // The first snapshot is unchanged (a snapshot is only read once built).
      expect(own.block.lookup('only.example')).toBe(true);
    } finally {
      await handle.close();
    }
  }, 60_000);
});
