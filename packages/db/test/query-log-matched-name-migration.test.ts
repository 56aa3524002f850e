import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { queryLogPartitionName } from '../src/migrations/0022_partitions_daily_rollups.ts';
import { up } from '../src/migrations/0036_query_log_matched_name.ts';
import { createTestDatabase, testDialects } from '../src/testing.ts';

const DAY_MS = 86_400_000;

/** A query-log row as the writers inserted it before migration 0036 (no `matched_name`). */
function oldRow(ts: number, qname: string) {
  return sql`insert into query_log (ts, customer_id, location_id, policy_id, client_ip, qname, qtype, protocol, action,
      reason, categories, rcode, answer_source, latency_us)
    values (${ts}, 1, null, null, '10.0.0.1', ${qname}, 'A', 'udp', 'blocked', 'category', '20', 'NOERROR', 'policy', 5)`;
}

describe.each(testDialects())('migration 0036_query_log_matched_name on %s', (dialect) => {
  it('adds matched_name (empty for the rows before) to query_log and every partition, old and new', async () => {
    const handle = await createTestDatabase(dialect);
    try {
      const { db } = handle;
      // The log as 0035 left it, with a row in a day's partition and one in the default partition.
      await sql`alter table query_log drop column matched_name`.execute(db);
      const today = Date.now() - (Date.now() % DAY_MS);
      await oldRow(today + 1000, 'today.example').execute(db);
      await oldRow(Date.parse('2001-02-03T04:05:06Z'), 'long-ago.example').execute(db);
      await up(db as never, dialect);

      // A partition the worker creates after the migration (PostgreSQL; `stats.partitions`).
      const later = today + 30 * DAY_MS;
      if (dialect === 'postgres') {
        await sql`create table ${sql.id(queryLogPartitionName(later))} partition of query_log
          for values from (${sql.lit(later)}) to (${sql.lit(later + DAY_MS)})`.execute(db);
      }
      const base = {
        customer_id: 1,
        location_id: null,
        policy_id: null,
        client_ip: '10.0.0.2',
        qtype: 'A',
        protocol: 'udp',
        action: 'blocked',
        reason: 'category',
        categories: '20',
        rcode: 'NOERROR',
        answer_source: 'policy',
        latency_us: 7,
      };
      await db
        .insertInto('query_log')
        .values([
          { ...base, ts: today + 2000, qname: 'cloak.example', matched_name: 'cname-target.example' },
          { ...base, ts: later + 1000, qname: 'later.example', matched_name: 'svcb-target.example' },
        ])
        .execute();
      // Left out: the default.
      await db
        .insertInto('query_log')
        .values({ ...base, ts: later + 2000, qname: 'plain.example' })
        .execute();
      const rows = await db.selectFrom('query_log').select(['qname', 'matched_name']).orderBy('id').execute();
      expect(rows).toEqual([
        { qname: 'today.example', matched_name: '' },
        { qname: 'long-ago.example', matched_name: '' },
        { qname: 'cloak.example', matched_name: 'cname-target.example' },
        { qname: 'later.example', matched_name: 'svcb-target.example' },
        { qname: 'plain.example', matched_name: '' },
      ]);
      // NOT NULL: a writer can never leave it null.
      await expect(
        db
          .insertInto('query_log')
          .values({ ...base, ts: today + 3000, qname: 'null.example', matched_name: null as never })
          .execute(),
      ).rejects.toThrow();

      if (dialect === 'postgres') {
        const partitions = await sql<{ name: string; has: boolean }>`
          select c.relname as name, exists (select 1 from pg_attribute a where a.attrelid = c.oid
              and a.attname = 'matched_name' and a.attnotnull and not a.attisdropped) as has
          from pg_inherits i join pg_class c on c.oid = i.inhrelid join pg_class p on p.oid = i.inhparent
          where p.relname = 'query_log' and p.relnamespace = (select oid from pg_namespace where nspname = current_schema())`.execute(
          db,
        );
        const names = partitions.rows.map((r) => r.name);
        expect(names).toContain('query_log_default');
        expect(names).toContain(queryLogPartitionName(today));
        expect(names).toContain(queryLogPartitionName(later));
        expect(partitions.rows.filter((r) => !r.has)).toEqual([]);
      }
    } finally {
      await handle.close();
    }
  });
});
