/**
 * Reuse of PostgreSQL test schemas within a test worker (docs/contributing.md "Running the tests"):
 * a schema a test has closed is emptied and given the template's rows and sequence values again, in
 * one transaction of ≈ 10 ms, instead of being dropped and a new one created from the template
 * script (≈ 250 ms of the server's work each, a quarter of the suite's CPU with two dialects).
 *
 * Each reuse gets a new name (`renamed`), so nothing of the earlier test can reach it.
 * The copy to compare against and take the rows from is the run's pristine schema, which the global
 * setup creates from the template and nobody writes to. A schema is reused only when it still has
 * exactly the pristine one's tables, columns, defaults, indexes, constraints, triggers, functions and
 * sequences (a test that created a partition or altered a table gets its schema dropped as before),
 * and when the reset gets its locks within 2 s (a connection the test left open in a transaction).
 */
import type pg from 'pg';

/** What a schema holds, as text in which the schema's own name is replaced by `$`. */
const FINGERPRINT_SQL = `
  select md5(string_agg(replace(item, $1 || '.', '$.'), E'\\n' order by item)) as fingerprint from (
    select c.relkind::text || ' ' || c.relname || ' ' || coalesce((
      select string_agg(a.attname || ' ' || format_type(a.atttypid, a.atttypmod) || ' ' || a.attnotnull
        || ' ' || a.attidentity::text || ' ' || a.attgenerated::text || ' ' || coalesce(pg_get_expr(d.adbin, d.adrelid), ''),
        ', ' order by a.attnum)
      from pg_attribute a left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
      where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped), '') as item
    from pg_class c where c.relnamespace = $1::regnamespace
    union all
    select 'constraint ' || conname || ' ' || pg_get_constraintdef(oid) from pg_constraint
    where connamespace = $1::regnamespace
    union all
    select 'index ' || pg_get_indexdef(i.indexrelid) from pg_index i join pg_class c on c.oid = i.indexrelid
    where c.relnamespace = $1::regnamespace
    union all
    select 'trigger ' || t.tgname || ' ' || c.relname from pg_trigger t join pg_class c on c.oid = t.tgrelid
    where c.relnamespace = $1::regnamespace and not t.tgisinternal
    union all
    select 'function ' || p.proname || ' ' || md5(p.prosrc) from pg_proc p where p.pronamespace = $1::regnamespace
  ) as items`;

/** The reset of one schema to the pristine one's rows, built once per pristine schema. */
interface ResetPlan {
  /** The pristine schema's fingerprint. */
  fingerprint: string;
  /** The reset's statements, with `$schema$` where the reused schema's name goes. */
  statements: string;
}

const plans = new Map<string, Promise<ResetPlan>>();

/** Quotes an identifier (the names here are the migrations' and the test run's). */
const ident = (name: string) => `"${name.replaceAll('"', '""')}"`;

/**
 * The reset plan of `pristine`: delete every table's rows (the parents of partitioned tables delete
 * their partitions' too), copy the rows of the tables that have some (identity values included; a
 * generated column is computed again), and set each sequence to the pristine one's state. Foreign
 * keys are not checked inside the reset (`session_replication_role = replica`): the rows copied are
 * the pristine schema's, which satisfy them.
 */
async function plan(client: pg.ClientBase, pristine: string): Promise<ResetPlan> {
  const fingerprint = await schemaFingerprint(client, pristine);
  const tables = (
    await client.query<{ name: string }>(
      `select c.relname as name from pg_class c
       where c.relnamespace = $1::regnamespace and c.relkind in ('r', 'p') and not c.relispartition
       order by c.relname`,
      [pristine],
    )
  ).rows;
  const target = (name: string) => `$schema$.${ident(name)}`;
  const source = (name: string) => `${ident(pristine)}.${ident(name)}`;
  const copies: string[] = [];
  for (const { name } of tables) {
    const count = await client.query<{ n: number }>(`select count(*)::int as n from ${source(name)}`);
    if (count.rows[0]!.n === 0) continue;
    const columns = (
      await client.query<{ name: string }>(
        `select a.attname as name from pg_attribute a
         where a.attrelid = $1::regclass and a.attnum > 0 and not a.attisdropped and a.attgenerated = ''
         order by a.attnum`,
        [source(name)],
      )
    ).rows.map((c) => ident(c.name));
    const list = columns.join(', ');
    copies.push(`insert into ${target(name)} (${list}) overriding system value select ${list} from ${source(name)}`);
  }
  const sequences = (
    await client.query<{ name: string }>(
      `select c.relname as name from pg_class c where c.relnamespace = $1::regnamespace and c.relkind = 'S'
       order by c.relname`,
      [pristine],
    )
  ).rows.map(
    ({ name }) =>
      `select setval('$schema$.${ident(name).replaceAll("'", "''")}', last_value, is_called) from ${source(name)}`,
  );
  const statements = [
    'begin',
    "set local lock_timeout = '2s'",
    'set local session_replication_role = replica',
    ...tables.map(({ name }) => `delete from ${target(name)}`),
    ...copies,
    ...sequences,
    'alter schema $schema$ rename to $renamed$',
    'commit',
  ].join(';\n');
  return { fingerprint, statements };
}

/** The fingerprint of `schema` ({@link FINGERPRINT_SQL}). */
async function schemaFingerprint(client: pg.ClientBase, schema: string): Promise<string> {
  const { rows } = await client.query<{ fingerprint: string }>(FINGERPRINT_SQL, [schema]);
  return rows[0]!.fingerprint;
}

/**
 * Resets `schema` to the rows and sequence values of `pristine` when it still has the pristine
 * schema's objects, and renames it `renamed`: a connection the closed test left open (a thread, a
 * second pool) then finds no tables, as if the schema had been dropped, and cannot write into the
 * next test's data. `client` is a connection of its own (not one of the test's pool, which is closed).
 * @returns true when the schema was reset and renamed and may be handed to the next test; false when
 *   it must be dropped (it differs from the pristine one, a lock was not granted within 2 s, or the
 *   server refused the reset, for example to a role that may not set `session_replication_role`)
 */
export async function resetTestSchema(
  client: pg.ClientBase,
  schema: string,
  pristine: string,
  renamed: string,
): Promise<boolean> {
  try {
    let planned = plans.get(pristine);
    if (!planned) {
      planned = plan(client, pristine);
      plans.set(pristine, planned);
      planned.catch(() => plans.delete(pristine));
    }
    const { fingerprint, statements } = await planned;
    if ((await schemaFingerprint(client, schema)) !== fingerprint) return false;
    await client.query(statements.replaceAll('$schema$', ident(schema)).replaceAll('$renamed$', ident(renamed)));
    return true;
  } catch {
    await client.query('rollback').catch(() => undefined);
    return false;
  }
}
