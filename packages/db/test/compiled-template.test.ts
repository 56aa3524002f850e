import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CompiledTemplates, type DatabaseHandle, openDatabase, slot } from '../src/index.ts';

/** Statements compiled once per shape and bound per call (`CompiledTemplates`, bench/README.md "API reads"). */
describe('compiled templates', () => {
  let handle: DatabaseHandle;

  beforeEach(async () => {
    handle = openDatabase({ sqlitePath: ':memory:' });
    await sql`create table probe (id integer primary key, owner integer not null, v text not null)`.execute(handle.db);
    await sql`insert into probe (owner, v) values (1, 'a'), (1, 'b'), (2, 'c'), (2, 'd'), (2, 'e')`.execute(handle.db);
  });
  afterEach(async () => {
    await handle.close();
  });

  it('builds a shape once and answers each call with its own values', async () => {
    const templates = new CompiledTemplates<{ owner: number; limit: number }>();
    let builds = 0;
    const rows = async (owner: number, limit: number) => {
      const q = templates.bind('probe', { owner, limit }, () => {
        builds++;
        return handle.db
          .selectFrom('probe' as never)
          .select(sql<string>`v`.as('v'))
          .where(sql.ref('owner'), '=', slot<number>('owner'))
          .orderBy(sql.ref('id'))
          .limit(slot<number>('limit'));
      });
      return (await handle.db.executeQuery(q)).rows.map((r) => (r as { v: string }).v);
    };
    expect(await rows(1, 10)).toEqual(['a', 'b']);
    expect(await rows(2, 2)).toEqual(['c', 'd']);
    expect(await rows(2, 10)).toEqual(['c', 'd', 'e']);
    expect(builds).toBe(1);
  });

  it('refuses a slot the builder did not pass through as a parameter', () => {
    const templates = new CompiledTemplates<{ text: string }>();
    expect(() =>
      templates.bind('inlined', { text: 'x' }, () =>
        handle.db
          .selectFrom('probe' as never)
          .select(sql<string>`v`.as('v'))
          // A builder that makes its own value of the slot (here a LIKE pattern) drops the slot.
          .where(sql.ref('v'), 'like', `%${slot<string>('text')}%`),
      ),
    ).toThrow(/slots not bound as parameters: text/);
  });

  it('keeps at most `max` shapes, dropping the least recently used', () => {
    const templates = new CompiledTemplates<{ owner: number }>(2);
    const builds: string[] = [];
    const bind = (key: string) =>
      templates.bind(key, { owner: 1 }, () => {
        builds.push(key);
        return handle.db
          .selectFrom('probe' as never)
          .select(sql<string>`v`.as('v'))
          .where(sql.ref('owner'), '=', slot<number>('owner'));
      });
    bind('a');
    bind('b');
    bind('a');
    bind('c');
    bind('a');
    bind('b');
    expect(builds).toEqual(['a', 'b', 'c', 'b']);
    expect(templates.size).toBe(2);
  });
});
