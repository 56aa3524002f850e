import { CATEGORIES } from '@cordon/shared';
import { describe, expect, it } from 'vitest';
import { addressClaimColumns } from '../src/address-claims.ts';
import { isOtherSchemaDropped, migrateToLatest } from '../src/migrate.ts';
import { createTestDatabase, testDialects } from '../src/testing.ts';

describe.each(testDialects())('migrations on %s', (dialect) => {
  it('creates the schema, seeds the taxonomy and is idempotent', async () => {
    const handle = await createTestDatabase(dialect);
    try {
      const categories = await handle.db.selectFrom('categories').selectAll().orderBy('id').execute();
      expect(categories).toHaveLength(CATEGORIES.length);
      expect(categories.find((c) => c.id === 20)).toEqual({ id: 20, name: 'Gambling', level: 'M' });
      expect(await migrateToLatest(handle)).toEqual([]);
    } finally {
      await handle.close();
    }
  });

  it('round-trips epoch-ms timestamps as numbers and refuses a duplicate address', async () => {
    const handle = await createTestDatabase(dialect);
    try {
      const { db } = handle;
      const now = new Date().toISOString();
      const msp = await db
        .insertInto('msps')
        .values({ name: 'M', company_name: 'M Ltd', license: '', timezone: '', created_at: now, updated_at: now })
        .returning('id')
        .executeTakeFirstOrThrow();
      const cust = await db
        .insertInto('customers')
        .values({ msp_id: msp.id, account_name: 'C', uuid_str: 'u1', timezone: '', created_at: now, updated_at: now })
        .returning('id')
        .executeTakeFirstOrThrow();
      const loc = await db
        .insertInto('locations')
        .values({
          customer_id: cust.id,
          type: 'staticip',
          name: 'HQ',
          policy_id: null,
          key: null,
          created_at: now,
          updated_at: now,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      await db
        .insertInto('location_addresses')
        .values({ location_id: loc.id, customer_id: cust.id, ...addressClaimColumns('127.0.0.1/32'), created_at: now })
        .execute();
      await expect(
        db
          .insertInto('location_addresses')
          .values({
            location_id: loc.id,
            customer_id: cust.id,
            ...addressClaimColumns('127.0.0.1/32'),
            created_at: now,
          })
          .execute(),
      ).rejects.toThrow();
      const ts = 1_763_700_000_123;
      await db
        .insertInto('query_log')
        .values({
          ts,
          customer_id: cust.id,
          location_id: loc.id,
          policy_id: null,
          client_ip: '127.0.0.1',
          qname: 'a.example',
          qtype: 'A',
          protocol: 'udp',
          action: 'allowed',
          reason: 'default',
          categories: '',
          rcode: 'NOERROR',
          answer_source: 'upstream',
          latency_us: 10,
        })
        .execute();
      const row = await db.selectFrom('query_log').select('ts').executeTakeFirstOrThrow();
      expect(row.ts).toBe(ts);
    } finally {
      await handle.close();
    }
  });
});

describe('a migration that met another schema being dropped', () => {
  it('is tried again for another schema or its table, never for its own', () => {
    const ours = 'cordon_test_run_aaaa';
    expect(isOtherSchemaDropped(new Error('schema "cordon_test_run_bbbb" does not exist'), ours)).toBe(true);
    expect(isOtherSchemaDropped(new Error('relation "cordon_test_run_bbbb.revoked_tokens" does not exist'), ours)).toBe(
      true,
    );
    expect(isOtherSchemaDropped(new Error(`schema "${ours}" does not exist`), ours)).toBe(false);
    expect(isOtherSchemaDropped(new Error(`relation "${ours}.revoked_tokens" does not exist`), ours)).toBe(false);
    // An unqualified relation is the migration's own: not retried.
    expect(isOtherSchemaDropped(new Error('relation "revoked_tokens" does not exist'), ours)).toBe(false);
    expect(isOtherSchemaDropped(new Error('syntax error at or near "x"'), ours)).toBe(false);
  });
});
