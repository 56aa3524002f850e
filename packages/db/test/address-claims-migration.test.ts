import { randomBytes } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { addressClaimColumns } from '../src/address-claims.ts';
import { type DatabaseHandle, openDatabase } from '../src/connection.ts';
import * as m0001 from '../src/migrations/0001_initial.ts';
import * as m0002 from '../src/migrations/0002_address_claims.ts';
import type { Database } from '../src/schema.ts';
import { testDialects } from '../src/testing.ts';

/** A database at migration 0001 only (as a deployment before address claims was), and its cleanup. */
async function atInitialSchema(
  dialect: 'sqlite' | 'postgres',
): Promise<{ handle: DatabaseHandle; done(): Promise<void> }> {
  if (dialect === 'sqlite') {
    const handle = openDatabase({ sqlitePath: ':memory:' });
    await m0001.up(handle.db as Kysely<unknown>, dialect);
    return { handle, done: () => handle.close() };
  }
  const url = process.env.CORDON_TEST_DATABASE_URL as string;
  const schema = `cordon_mig_${randomBytes(6).toString('hex')}`;
  const admin = openDatabase({ url, pgPoolSize: 1 });
  await sql`create schema ${sql.id(schema)}`.execute(admin.db);
  const handle = openDatabase({ url, pgSchema: schema, pgPoolSize: 1 });
  await m0001.up(handle.db as Kysely<unknown>, dialect);
  return {
    handle,
    async done() {
      await handle.close();
      await sql`drop schema ${sql.id(schema)} cascade`.execute(admin.db);
      await admin.close();
    },
  };
}

describe.each(testDialects())('migration 0002 address claims on %s', (dialect) => {
  it('rewrites stored addresses to the canonical form and drops claims nobody may hold', async () => {
    const { handle, done } = await atInitialSchema(dialect);
    try {
      const db = handle.db as unknown as Kysely<
        Omit<Database, 'location_addresses'> & {
          location_addresses: { id?: number; location_id: number; customer_id: number; ip: string; created_at: string };
        }
      >;
      const now = new Date().toISOString();
      const ts = { created_at: now, updated_at: now };
      const msp = await db
        .insertInto('msps')
        .values({ name: 'M', company_name: 'M', license: '', timezone: '', ...ts })
        .returning('id')
        .executeTakeFirstOrThrow();
      const location = async (name: string) => {
        const customer = await db
          .insertInto('customers')
          .values({ msp_id: msp.id, account_name: name, uuid_str: name, timezone: '', ...ts })
          .returning('id')
          .executeTakeFirstOrThrow();
        const loc = await db
          .insertInto('locations')
          .values({ customer_id: customer.id, type: 'staticip', name, policy_id: null, key: null, ...ts })
          .returning('id')
          .executeTakeFirstOrThrow();
        return { customer_id: customer.id, location_id: loc.id };
      };
      const victim = await location('victim');
      const attacker = await location('attacker');
      // What the pre-0002 API could store: its normal form kept IPv4-mapped prefixes as IPv6.
      const legacy: Array<[typeof victim, string]> = [
        [victim, '127.0.0.1/32'],
        [victim, '2001:db8::/48'],
        [attacker, '::ffff:7f00:1/128'], // the victim's 127.0.0.1/32: a later duplicate
        [attacker, '::ffff:0:0/96'], // 0.0.0.0/0
        [attacker, '::/0'],
        [attacker, '0.0.0.0/0'],
        [attacker, '::fffe:0:0/95'], // covers the IPv4-mapped range
        [attacker, '::ffff:c633:6400/120'], // 198.51.100.0/24, kept in canonical form
        [attacker, 'garbage'], // not an address: left alone
      ];
      for (const [owner, ip] of legacy) {
        await db
          .insertInto('location_addresses')
          .values({ ...owner, ip, created_at: now })
          .execute();
      }

      await m0002.up(handle.db as Kysely<unknown>, dialect);

      const rows = await handle.db
        .selectFrom('location_addresses')
        .select(['customer_id', 'ip', 'family', 'range_start', 'range_end'])
        .orderBy('id')
        .execute();
      const row = (owner: typeof victim, ip: string) => ({
        customer_id: owner.customer_id,
        ...addressClaimColumns(ip),
      });
      expect(rows).toEqual([
        row(victim, '127.0.0.1/32'),
        row(victim, '2001:db8::/48'),
        row(attacker, '198.51.100.0/24'),
        { customer_id: attacker.customer_id, ip: 'garbage', family: 0, range_start: '', range_end: '' },
      ]);
      // The overlap query the API runs finds the canonical rows.
      const hit = await handle.db
        .selectFrom('location_addresses')
        .select('ip')
        .where('family', '=', 4)
        .where('range_start', '<=', '7f000009')
        .where('range_end', '>=', '7f000000')
        .execute();
      expect(hit).toEqual([{ ip: '127.0.0.1/32' }]);
    } finally {
      await done();
    }
  });
});
