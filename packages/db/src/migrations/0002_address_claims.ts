import { claimRefusal, parseCidr } from '@cordon/shared';
import { type Kysely, sql } from 'kysely';
import { addressClaimColumns } from '../address-claims.ts';
import type { Dialect } from '../dialect-kind.ts';

/** The part of the schema this migration reads and writes. */
interface AddressTable {
  location_addresses: { id: number; ip: string; family: number; range_start: string; range_end: string };
}

/**
 * Address claims (docs/security.md; docs/decisions.md "Address claims"): every location address in
 * the one canonical form, with its family and first/last address as fixed-width hex so SQL can
 * find overlapping claims, indexed by (family, range_start).
 *
 * Existing rows are rewritten to canonical form (`::ffff:7f00:1/128` → `127.0.0.1/32`). Rows that
 * nobody may hold any more are deleted: a /0 (or `::ffff:0:0/96`, which is 0.0.0.0/0), an IPv6
 * prefix covering the IPv4-mapped range, and every later duplicate of a range once written
 * differently — the oldest claim (lowest id) keeps it, as the resolver's tie rule says. A row that
 * does not parse is left as is (family 0: no range, the resolver skips it).
 */
export async function up(db: Kysely<unknown>, dialect: Dialect): Promise<void> {
  // Hex ranges compare as bytes on PostgreSQL whatever the database's collation.
  const hexText = dialect === 'postgres' ? sql`text collate "C"` : sql`text`;
  await db.schema
    .alterTable('location_addresses')
    .addColumn('family', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  for (const column of ['range_start', 'range_end']) {
    await db.schema
      .alterTable('location_addresses')
      .addColumn(column, hexText, (c) => c.notNull().defaultTo(''))
      .execute();
  }

  const d = db as unknown as Kysely<AddressTable>;
  const rows = await d.selectFrom('location_addresses').select(['id', 'ip']).orderBy('id').execute();
  const kept = new Set<string>();
  const doomed: number[] = [];
  const updates: Array<{ id: number } & ReturnType<typeof addressClaimColumns>> = [];
  for (const row of rows) {
    const range = parseCidr(row.ip);
    if (!range) continue;
    const columns = addressClaimColumns(row.ip);
    if (claimRefusal(range, null) !== null || kept.has(columns.ip)) {
      doomed.push(row.id);
      continue;
    }
    kept.add(columns.ip);
    updates.push({ id: row.id, ...columns });
  }
  // Deletes first: a survivor's new text can only equal the old text of a deleted duplicate.
  for (let i = 0; i < doomed.length; i += 500) {
    await d
      .deleteFrom('location_addresses')
      .where('id', 'in', doomed.slice(i, i + 500))
      .execute();
  }
  for (const { id, ...columns } of updates) {
    await d.updateTable('location_addresses').set(columns).where('id', '=', id).execute();
  }
  await db.schema
    .createIndex('location_addresses_range')
    .on('location_addresses')
    .columns(['family', 'range_start'])
    .execute();
}
