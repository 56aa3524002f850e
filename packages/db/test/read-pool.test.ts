/**
 * The heavy-read pool (issue 30, "One tenant stalls everyone's API"; docs/decisions.md "Heavy
 * reads"): on a SQLite file the reads run on threads of their own and this thread's loop keeps
 * turning; every read answers `ReadTimeoutError` at its deadline (waiting for a slot included) and
 * stops its work, so the slot serves the next read at once; one key's reads never run side by side;
 * `:memory:` runs them here with the same bound; on PostgreSQL `statement_timeout` stops them.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CompiledQuery, sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { type DatabaseHandle, loadPg, openDatabase } from '../src/connection.ts';
import {
  createReadPool,
  inlineParameters,
  type ReadPool,
  ReadPoolClosedError,
  ReadTimeoutError,
  readDeadlineCheck,
} from '../src/read-pool.ts';
import { createTestDatabase } from '../src/testing.ts';

const PG = process.env.CORDON_TEST_DATABASE_URL;

/** A read of `n` rows counted one by one, which checks its deadline as it goes (about 1 s per 10 M rows). */
function counting(handle: DatabaseHandle, n: number): CompiledQuery {
  const check = readDeadlineCheck(handle.dialect, 'c.x') ?? sql`true`;
  return sql`with recursive c(x) as (select 1 union all select x + 1 from c where x < ${n} and ${check})
    select count(*) as n from c`.compile(handle.db);
}

/** How late a 10 ms timer fires while `work` runs: this thread's loop blocked for that long. */
async function loopDelayDuring<T>(work: Promise<T>): Promise<{ result: T; worstLateMs: number }> {
  let worst = 0;
  let running = true;
  const tick = async () => {
    while (running) {
      const at = performance.now();
      await new Promise((r) => setTimeout(r, 10));
      worst = Math.max(worst, performance.now() - at - 10);
    }
  };
  const ticking = tick();
  try {
    return { result: await work, worstLateMs: worst };
  } finally {
    running = false;
    await ticking;
  }
}

describe('the read pool on a SQLite file', () => {
  let dir = '';
  let handle: DatabaseHandle;
  let pool: ReadPool | undefined;

  const open = (options: Parameters<typeof createReadPool>[1] = {}) => {
    dir = mkdtempSync(join(tmpdir(), 'cordon-read-pool-'));
    handle = openDatabase({ sqlitePath: join(dir, 'db.sqlite') });
    pool = createReadPool(handle, options);
    return pool;
  };
  afterEach(async () => {
    await pool?.close();
    await handle?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('runs the statements on a thread, on one snapshot, while this thread keeps turning', async () => {
    const p = open();
    expect(p.kind).toBe('threads');
    await sql`create table t (a integer)`.execute(handle.db);
    await sql`insert into t values (1), (2)`.execute(handle.db);
    const started = performance.now();
    const { result, worstLateMs } = await loopDelayDuring(
      p.read([
        counting(handle, 5_000_000),
        sql`select a from t order by a`.compile(handle.db),
        sql`select count(*) as n from t where a > ${1}`.compile(handle.db),
      ]),
    );
    const took = performance.now() - started;
    expect(result).toEqual([[{ n: 5_000_000 }], [{ a: 1 }, { a: 2 }], [{ n: 1 }]]);
    // On this thread the read would have held the loop for all of `took`.
    expect(worstLateMs).toBeLessThan(took / 3);
  });

  it('answers ReadTimeoutError at the deadline and stops the work: the slot serves the next read at once', async () => {
    const p = open({ size: 1, timeoutMs: 500 });
    const started = performance.now();
    // Some 10 s of counting, were it not stopped.
    await expect(p.read([counting(handle, 100_000_000)])).rejects.toBeInstanceOf(ReadTimeoutError);
    expect(performance.now() - started).toBeLessThan(1_500);
    // One slot: this read answers within its own 500 ms only if the counting has stopped.
    expect(await p.read([sql`select 7 as n`.compile(handle.db)])).toEqual([[{ n: 7 }]]);
  });

  it('counts the wait for a slot in the deadline, and never runs more reads than slots', async () => {
    const p = open({ size: 1, timeoutMs: 300 });
    // A read without the deadline check holds its thread until it is done (about a second).
    const unchecked = sql`with recursive c(x) as (select 1 union all select x + 1 from c where x < ${10_000_000})
      select count(*) as n from c`.compile(handle.db);
    const first = p.read([unchecked]);
    const second = p.read([sql`select 1 as n`.compile(handle.db)]);
    await expect(first).rejects.toBeInstanceOf(ReadTimeoutError);
    await expect(second).rejects.toBeInstanceOf(ReadTimeoutError);
  });

  it("runs one key's reads one after the other, and another key's beside them", async () => {
    const p = open({ size: 2, timeoutMs: 5_000 });
    const done: string[] = [];
    const read = (key: string, n: number, name: string) =>
      p.read([counting(handle, n)], { key }).then(() => done.push(name));
    await Promise.all([read('a', 3_000_000, 'a1'), read('a', 10, 'a2'), read('b', 10, 'b1')]);
    // a2 waited for a1 although a slot was free; b1 did not.
    expect(done).toEqual(['b1', 'a1', 'a2']);
  });

  it("rejects with the database's error, and the thread serves the next read", async () => {
    const p = open({ size: 1 });
    await expect(p.read([sql`select * from missing_table`.compile(handle.db)])).rejects.toThrow(/no such table/);
    expect(await p.read([sql`select 2 as n`.compile(handle.db)])).toEqual([[{ n: 2 }]]);
  });

  it('never writes', async () => {
    const p = open({ size: 1 });
    await sql`create table t (a integer)`.execute(handle.db);
    await expect(p.read([sql`insert into t values (1) returning a`.compile(handle.db)])).rejects.toThrow(/readonly/i);
  });

  it('rejects the reads waiting when closed, and any read after', async () => {
    const p = open({ size: 1, timeoutMs: 5_000 });
    const outcomes = Promise.allSettled([
      p.read([counting(handle, 20_000_000)]),
      p.read([sql`select 1 as n`.compile(handle.db)]),
    ]);
    await p.close();
    const [running, waiting] = await outcomes;
    expect(running).toMatchObject({ status: 'rejected', reason: expect.any(ReadPoolClosedError) });
    expect(waiting).toMatchObject({ status: 'rejected', reason: expect.any(ReadPoolClosedError) });
    await expect(p.read([sql`select 1 as n`.compile(handle.db)])).rejects.toBeInstanceOf(ReadPoolClosedError);
  });

  it('refuses a size or bound out of range', () => {
    const h = openDatabase({ sqlitePath: ':memory:' });
    expect(() => createReadPool(h, { size: 0 })).toThrow(RangeError);
    expect(() => createReadPool(h, { timeoutMs: 0 })).toThrow(RangeError);
    void h.close();
  });
});

describe('the read pool on SQLite :memory:', () => {
  it('runs the reads on the connection itself, within the bound', async () => {
    const handle = openDatabase({ sqlitePath: ':memory:' });
    const pool = createReadPool(handle, { timeoutMs: 200 });
    try {
      expect(pool.kind).toBe('in-process');
      expect(await pool.read([counting(handle, 1000)])).toEqual([[{ n: 1000 }]]);
      const started = performance.now();
      await expect(pool.read([counting(handle, 100_000_000)])).rejects.toBeInstanceOf(ReadTimeoutError);
      expect(performance.now() - started).toBeLessThan(700);
      // The connection is fine afterwards.
      expect((await sql<{ n: number }>`select 3 as n`.execute(handle.db)).rows).toEqual([{ n: 3 }]);
    } finally {
      await pool.close();
      await handle.close();
    }
  });
});

describe.runIf(PG)('the read pool on PostgreSQL', () => {
  let handle: DatabaseHandle;
  afterEach(async () => {
    await handle?.close();
  });

  it('stops a read at the deadline (statement_timeout) and keeps the other connections free', async () => {
    handle = await createTestDatabase('postgres');
    const pool = createReadPool(handle, { size: 1, timeoutMs: 300 });
    expect(pool.kind).toBe('postgres');
    const sleep = sql`select pg_sleep(5) as n`.compile(handle.db);
    const started = performance.now();
    const slow = pool.read([sleep]);
    // Another query meanwhile gets a connection at once: the pool holds one.
    expect((await sql<{ n: number }>`select 1 as n`.execute(handle.db)).rows).toEqual([{ n: 1 }]);
    await expect(slow).rejects.toBeInstanceOf(ReadTimeoutError);
    expect(performance.now() - started).toBeLessThan(1_500);
    expect(await pool.read([sql`select 4 as n`.compile(handle.db)])).toEqual([[{ n: 4 }]]);
    await pool.close();
  });

  it('reads in a read-only transaction', async () => {
    handle = await createTestDatabase('postgres');
    const pool = createReadPool(handle);
    await sql`create table t (a integer)`.execute(handle.db);
    await expect(pool.read([sql`insert into t values (1)`.compile(handle.db)])).rejects.toThrow(/read-only/);
    await pool.close();
  });

  it('answers a one-statement read with its parameters written in as the parameters would, in one round trip', async () => {
    handle = await createTestDatabase('postgres');
    const pool = createReadPool(handle);
    const values = ["it's", 'back\\slash', "a\\'mix''", 'héllo ✓', '$1 -- not /* a comment', '', '%_'];
    for (const v of values) {
      const q = sql<{
        v: string;
        n: number;
        b: boolean;
        z: null;
        l: number;
      }>`select ${v} as v, ${-42} as n, ${true} as b,
        ${null}::text as z, length(${v}) as l, ${'x'} || ${v} as c where ${v} like ${`%${v.slice(1)}`} escape '\\'`.compile(
        handle.db,
      );
      expect(inlineParameters(q, loadPg().escapeLiteral)).toBeDefined();
      expect(await pool.read([q])).toEqual([(await handle.db.executeQuery(q)).rows]);
    }
    // A statement that fails leaves the connection usable (rolled back), and the next read answers.
    await expect(pool.read([sql`select 1 / ${0} as n`.compile(handle.db)])).rejects.toThrow(/division by zero/);
    expect(await pool.read([sql`select ${7}::int as n`.compile(handle.db)])).toEqual([[{ n: 7 }]]);
    // The time bound holds for an inlined statement too.
    const bounded = createReadPool(handle, { size: 1, timeoutMs: 300 });
    await expect(bounded.read([sql`select pg_sleep(${5}) as n`.compile(handle.db)])).rejects.toBeInstanceOf(
      ReadTimeoutError,
    );
    await bounded.close();
    await pool.close();
  });

  it('keeps two statements on one snapshot', async () => {
    handle = await createTestDatabase('postgres');
    const pool = createReadPool(handle);
    const now = sql`select clock_timestamp() = statement_timestamp() as a, now()::text as t, ${1}::int as p`.compile(
      handle.db,
    );
    const [a, b] = (await pool.read([now, now])) as Array<Array<{ t: string }>>;
    expect(a![0]!.t).toBe(b![0]!.t);
    await pool.close();
  });
});

describe('inlineParameters (a PostgreSQL read in one round trip)', () => {
  const quote = loadPg().escapeLiteral;
  const q = (text: string, ...parameters: unknown[]) => ({ sql: text, parameters }) as unknown as CompiledQuery;

  it('writes each parameter in as a quoted literal, outside quotes and comments only', () => {
    expect(
      inlineParameters(
        q(
          'select $1, $2, $3, $4 from "t$1" where a = \'$1\' -- $2\n and b = $10',
          "a'b",
          5,
          null,
          true,
          0,
          0,
          0,
          0,
          0,
          'x',
        ),
        quote,
      ),
    ).toBe(`select 'a''b', '5', NULL, 'true' from "t$1" where a = '$1' -- $2\n and b = 'x'`);
    expect(inlineParameters(q('select /* $1 */ $1', 'back\\slash'), quote)).toBe(`select /* $1 */  E'back\\\\slash'`);
    expect(inlineParameters(q("select 'it''s $1' || $1", '-1'), quote)).toBe(`select 'it''s $1' || '-1'`);
    expect(inlineParameters(q('select $1 - $2', 1, -1), quote)).toBe(`select '1' - '-1'`);
  });

  it('keeps the parameters of what it cannot read for certain', () => {
    for (const [text, ...parameters] of [
      ['select $1', new Date(0)],
      ['select $1', 1n],
      ['select $1', Number.NaN],
      ['select $1', Buffer.from('x')],
      ['select $1', undefined],
      ['select $2', 1],
      ['select $0', 1],
      ['select $$x$$'],
      ['select a$1 from t', 1],
      ["select E'\\'' || $1", 'x'],
      ["select U&'d\\0061t' || $1", 'x'],
      ["select 'open || $1", 'x'],
      ['select "open || $1', 'x'],
      ['select /* open $1', 'x'],
    ] as Array<[string, ...unknown[]]>) {
      expect({ text, inlined: inlineParameters(q(text, ...parameters), quote) }).toEqual({ text, inlined: undefined });
    }
  });
});
