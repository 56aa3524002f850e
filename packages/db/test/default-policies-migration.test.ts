import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { up } from '../src/migrations/0008_default_policies.ts';
import { createTestDatabase, testDialects } from '../src/testing.ts';

describe.each(testDialects())('migration 0008_default_policies on %s', (dialect) => {
  it("seeds the system's template at low and one copy per existing MSP; policies get safe_search off", async () => {
    const handle = await createTestDatabase(dialect);
    try {
      // The database as 0007 left it: no templates, no safe_search column; one MSP with a policy.
      await sql`drop table default_policy_categories`.execute(handle.db);
      await sql`drop table default_policies`.execute(handle.db);
      await sql`alter table policies drop column safe_search`.execute(handle.db);
      const at = new Date().toISOString();
      const msp = await handle.db
        .insertInto('msps')
        .values({ name: 'Old MSP', company_name: '', license: '', timezone: '', created_at: at, updated_at: at })
        .returning('id')
        .executeTakeFirstOrThrow();
      const customer = await handle.db
        .insertInto('customers')
        .values({ msp_id: msp.id, account_name: 'Old', uuid_str: 'u', timezone: '', created_at: at, updated_at: at })
        .returning('id')
        .executeTakeFirstOrThrow();
      await sql`insert into policies (customer_id, name, description, level, is_default, allow_unclassified, created_at, updated_at)
        values (${customer.id}, 'Default', '', 'low', 1, 1, ${at}, ${at})`.execute(handle.db);
      await up(handle.db as never, dialect);

      const templates = await handle.db.selectFrom('default_policies').selectAll().orderBy('id').execute();
      expect(templates.map((t) => [t.msp_id, t.level, Number(t.allow_unclassified), Number(t.safe_search)])).toEqual([
        [null, 'low', 1, 0],
        [msp.id, 'low', 1, 0],
      ]);
      const lowIds = (await handle.db.selectFrom('categories').select('id').where('level', '=', 'L').execute()).map(
        (r) => r.id,
      );
      for (const t of templates) {
        const cats = await handle.db
          .selectFrom('default_policy_categories')
          .select('category_id')
          .where('default_policy_id', '=', t.id)
          .orderBy('category_id')
          .execute();
        expect(cats.map((c) => c.category_id)).toEqual([...lowIds].sort((a, b) => a - b));
      }
      const policy = await handle.db.selectFrom('policies').select('safe_search').executeTakeFirstOrThrow();
      expect(Number(policy.safe_search)).toBe(0);
      // One template per owner, the system's included.
      await expect(
        sql`insert into default_policies (msp_id, description, level, allow_unclassified, safe_search, created_at, updated_at)
          values (null, '', 'low', 1, 0, ${at}, ${at})`.execute(handle.db),
      ).rejects.toThrow();
    } finally {
      await handle.close();
    }
  });
});
